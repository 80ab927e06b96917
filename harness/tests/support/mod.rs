//! What the harness's integration tests share.

use std::process::Output;

pub mod chromium;
#[cfg(unix)]
pub mod python_example;
#[cfg(unix)]
pub mod release;
pub mod turns;

/// A finished command's status and everything it printed, for a failed
/// assertion's message.
pub fn said(output: &Output) -> String {
    format!(
        "{}\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
