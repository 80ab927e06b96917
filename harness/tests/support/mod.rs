//! What the harness's integration tests share.

pub mod chromium;
pub mod turns;
