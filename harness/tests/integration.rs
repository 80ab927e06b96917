//! The harness's integration tests, in one binary (as ripgrep keeps its
//! own): one link instead of one per file. Each module is one concern; run
//! one with its path, e.g. `cargo test -p hosted-mcp-conformance --test
//! integration verdicts::`. Tests that run whole suites take turns by
//! module (`support::turns`).
//!
//! The suite against the reference, `tests/conformance.rs`, is a binary of
//! its own: cargo-mutants judges every mutant by it alone
//! (`.cargo/mutants.toml`), and nothing else should run then.

mod support;

mod action;
mod catalogue;
mod example_gateway;
mod field;
mod html_report;
mod imports;
mod install;
mod interrupt;
mod junit;
mod listing;
mod live_marks;
mod packages;
mod peers;
mod release;
mod reproduce;
mod timing;
mod verdicts;
mod workflows;
