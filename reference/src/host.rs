//! Hosting: the APIs a gateway serves, above the one-API call flow.
//!
//! Each API is its own gateway in every rule (its document, its base URL as
//! the verified host, its stored credential), served at its own endpoint.
//! [`settings`] says what the operator asked for, from the flags or from
//! the [`config`] file; [`api`] reads an API's
//! document and credential and builds its gateway; [`table`] holds the
//! APIs being served and replaces them on a reload ([`reload`] on SIGHUP);
//! [`front`] is the HTTP listener that routes each request to its API's
//! endpoint, letting in only the agents each API's gate lets in.

mod api;
mod census;
mod config;
mod errors;
mod front;
mod reload;
mod settings;
mod table;

pub use api::{catalogue, Built, Summary};
pub use config::{parse as parse_config, read as read_config};
pub use errors::{ApiError, ConfigError, HostError, Written};
pub use front::serve;
pub use reload::{reload, reload_on_hangup};
pub use settings::{ApiSettings, CredentialSource, ExchangeSettings, Key, Origin, Settings};
pub use table::{before_scrape, build_all, Changes, Hosted, Routes, Table};

/// How often the census is logged unless the operator says otherwise.
pub const DEFAULT_CENSUS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);
