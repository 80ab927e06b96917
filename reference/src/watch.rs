//! What an operator watches: Prometheus metrics, and whether the gateway is
//! alive and ready, served on an address of their own ([`admin`]), never on
//! the MCP port.
//!
//! Each part of the gateway records what it alone sees: the call flow each
//! call's outcome, status class and time ([`ApiMeter`]); the HTTP layer the
//! agents it refused; hosting the reloads and the configuration's version.
//! What is a count of things alive (sessions, APIs) is read when scraped.
//!
//! Metrics, all prefixed `hosted_mcp_`:
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `calls_total` | api, tool, outcome | tool calls answered; outcome `ok` or the catalogue code |
//! | `upstream_responses_total` | api, class | the API's answers by status class (`2xx` ... `5xx`) |
//! | `call_duration_seconds` | api | histogram of a call from its arrival to its answer |
//! | `calls_in_flight` | api | calls sending or answering now |
//! | `calls_waiting` | api | calls waiting for a turn (`--max-calls`) |
//! | `sessions` | api | sessions of the `initialize` era alive |
//! | `agents_refused_total` | api, reason | requests refused before MCP, by reason |
//! | `upstream_tokens_total` | api, outcome | access tokens fetched for the API (OAuth client credentials) |
//! | `reloads_total` | outcome | configuration reloads, `applied` or `refused` |
//! | `config_version` | | 1 at start-up, one more for each applied reload |
//! | `apis` | | APIs served |

mod admin;
mod log_lines;
mod metrics;

pub use admin::{serve as serve_admin, BeforeScrape};
pub use log_lines::{Flushed, LogLines};
pub use metrics::{ApiMeter, Counted, Metrics};
