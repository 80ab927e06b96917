//! Step definitions, one module per section of `docs/rules.md`, plus the
//! steps every section shares: the document ([`document`]) and how the
//! upstream answers ([`upstream`]); and helpers ([`support`], the JSON
//! reader that keeps numbers as written).
//!
//! Steps register themselves with cucumber when their module is compiled,
//! so a new section only needs its `pub mod` line here.

pub mod answer;
pub mod arguments;
pub mod authorization;
pub mod call_support;
pub mod checking;
pub mod delivery;
pub mod descriptions;
pub mod document;
mod failure;
pub mod hints;
pub mod loading;
pub mod masking;
pub mod names;
pub mod protocol;
pub mod request;
pub mod schemas;
pub mod support;
pub mod upstream;
mod written;
