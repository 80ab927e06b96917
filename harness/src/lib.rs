//! Conformance harness for OpenAPI-to-MCP gateways.
//!
//! Every rule of `docs/rules.md` is a Gherkin scenario under `features/`,
//! tagged with its ID (`@TC-NAME-007`) and, for recommended rules,
//! `@recommended`. The harness drives a gateway as a black box:
//!
//! - [`launch`]: the one launch contract for gateways in any language (a
//!   command template with `{openapi}`, `{base_url}`, `{port}`, and the
//!   credential in `HOSTED_MCP_CREDENTIAL`), over HTTP or stdio.
//! - `health`: whether another launch is worth making (a gateway that
//!   never starts, `--max-failures`).
//! - [`reference`](mod@reference): the reference gateway a run without `--gateway`
//!   checks (built in the workspace, else beside the harness or on `PATH`).
//! - [`prepare`]: the preparation step of a gateway built per document
//!   (`--prepare`, code generators), once per distinct document.
//! - `pool`: gateways kept running from one scenario to the next with the
//!   same document (`--isolate` turns it off).
//! - `placement`: where a scenario wants the credential
//!   (`HOSTED_MCP_CREDENTIAL_IN`).
//! - `world`: one `world::GatewayWorld` per scenario, with its own mock
//!   upstream, its document, and the gateway launched lazily from it;
//!   `folder`: the scenario's folder its document is written to.
//! - [`client_auth`]: the credential the harness's client shows a gateway
//!   that checks its own clients (`--client-auth`), masked in reports;
//!   [`issuer`]: the authorization server of `--client-auth oauth`, whose
//!   tokens it shows; `protected`: what a gateway says of itself as an
//!   OAuth protected resource (its challenge, its RFC 9728 metadata).
//! - `client`: MCP sessions through rmcp, in either protocol era;
//!   `raw`: hand-made JSON-RPC over HTTP for exact protocol checks.
//! - `steps`: the step definitions, one file per section of the rules;
//!   `json`: looking into the JSON a gateway sent, for steps and world.
//! - [`report`]: results per scenario and rule, the terminal table, JUnit,
//!   JSON and HTML, and the verdict; [`errors`]: the error catalogue, whose
//!   codes the HTML report explains where failures show them.
//! - [`suite`]: the scenarios a features folder holds, for checking a
//!   baseline before a run.
//! - [`listing`]: the suite as a reader sees it (`list`, `show`), and the
//!   check of a `--tags` expression against the tags it holds.
//! - `lag`: how late this machine runs the harness's own timers, so that
//!   a timing a busy machine explains is not judged rather than failed.
//! - `leftovers` and `interrupt`: the gateways and temporary folders a
//!   run must not leave behind, even when Ctrl-C or SIGTERM stops it.
//! - [`run`]: ties them together for the `hosted-mcp-conformance` binary.
//!
//! Only what the binary and the tests use is public; the rest stays private,
//! so the dead-code lint sees it.

pub mod catalogue;
mod client;
pub mod client_auth;
pub mod errors;
mod folder;
mod health;
mod interrupt;
pub mod issuer;
mod json;
pub mod kit;
mod lag;
pub mod launch;
mod leftovers;
pub mod listing;
mod naming;
mod placement;
mod pool;
pub mod prepare;
mod protected;
mod random;
mod raw;
pub mod reference;
pub mod report;
pub mod run;
mod steps;
pub mod suite;
mod tags;
mod wire;
mod world;
