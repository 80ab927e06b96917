//! What the harness's integration tests share.

pub mod chromium;
#[cfg(unix)]
pub mod python_example;
#[cfg(unix)]
pub mod release;
pub mod turns;
