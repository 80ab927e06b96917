//! Hosting: the APIs a gateway serves, above the one-API call flow.
//!
//! Each API is its own gateway in every rule (its document, its base URL as
//! the verified host, its stored credential), served at its own endpoint.
//! [`settings`] says what the operator asked for, from the flags or from
//! the [`config`] file; [`api`] reads an API's document and credential and
//! builds its gateway; [`stack`] puts each API's layers in front of its
//! MCP endpoint ([`deadline`], the agents' admission and session
//! ownership, [`agent_limits`], [`reach`]); [`table`] holds the APIs being
//! served and replaces them in one swap on a reload; [`front`] routes each
//! request to its API's stack; [`listener`] accepts connections within the
//! [`connections`]' limits; [`server`] assembles it all, for `main` and for
//! tests alike.

mod agent_limits;
mod api;
mod census;
mod config;
mod connections;
mod deadline;
mod errors;
mod front;
mod listener;
mod message;
mod reach;
mod server;
mod settings;
mod stack;
mod table;

pub use agent_limits::ClientAddress;
pub use api::{catalogue, Built, Summary};
pub use config::{parse as parse_config, read as read_config};
pub use connections::{
    descriptor_limit, max_open_below, ConnectionLimits, Descriptors, DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEAD_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_SEND_TIMEOUT,
};
pub use errors::{ApiError, ConfigError, HostError, Written};
pub use server::{log_serving, reload_on_hangup, Server, ServerOptions};
pub use settings::{ApiSettings, CredentialSource, ExchangeSettings, Key, Origin, Settings};
pub use table::{build_all, Changes, Hosted, Routes};

/// How often the census is logged unless the operator says otherwise.
pub const DEFAULT_CENSUS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(10);
