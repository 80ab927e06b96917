//! Reference OpenAPI-to-MCP gateway.
//!
//! Data flows one way: [`load`] reads a document into a model with its `$ref`s
//! resolved, [`convert`] turns the model into tools and per-tool call plans,
//! [`check`] compiles one argument validator per tool, [`request`] turns checked
//! arguments and a plan into one HTTP request, [`deliver`] sends it once under a
//! deadline, and [`answer`] turns the response into the text the agent sees.
//! [`errors`] is the catalogue of every message an agent can get, and [`mcp`] is
//! the only module that knows MCP. The credential is held as a
//! [`secret::Secret`] wherever it is kept, so no debug output can show it.

pub mod agents;
pub mod answer;
pub mod check;
pub mod cleartext;
pub mod convert;
pub mod deliver;
pub mod errors;
pub mod exchange;
pub mod gateway;
pub mod host;
pub mod load;
pub mod mcp;
pub mod request;
pub mod secret;
pub mod watch;
