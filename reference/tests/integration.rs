//! The gateway's integration tests, in one binary (as ripgrep keeps its
//! own): one link instead of one per file, and `support` is checked for
//! dead code like any other module. Each module is one concern; run one
//! with its path, e.g. `cargo test -p hosted-mcp-gateway --test integration
//! properties::`.

mod support;

mod agents;
mod balanced;
mod call_path;
mod config_values;
mod corpus;
mod descriptors;
mod differential;
mod exchange;
mod front_door;
mod hosting;
mod issuers;
mod json_schema_test_suite;
mod load;
mod logs;
mod official_suite;
mod properties;
mod sdk_clients;
mod secrets;
mod server;
mod sessions;
mod shutdown;
mod split;
mod tls;
mod watching;
