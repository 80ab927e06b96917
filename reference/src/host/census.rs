//! The census: one operator event every few seconds with what the HTTP
//! server holds (live sessions, open connections, calls being answered, and
//! the runtime's tasks), so that growth shows from outside the process.
//!
//! It is a `debug` event on a target of its own, [`TARGET`], written only
//! when the log levels ask for it (`RUST_LOG=info,hosted_mcp_gateway::census=debug`).
//! Whether they do is decided once, at start-up: otherwise no timer runs and
//! nothing is counted.

use std::time::Duration;

use tokio::time::{Interval, MissedTickBehavior};

use super::table::Routes;

/// The target the census is logged on, for `RUST_LOG`.
pub const TARGET: &str = "hosted_mcp_gateway::census";

/// When the next census is due; never, when its event would not be written.
pub struct Census {
    ticks: Option<Interval>,
}

impl Census {
    /// A census every `every`, the first at once; none when the log levels
    /// leave its event out.
    pub fn every(every: Duration) -> Census {
        let ticks = tracing::enabled!(target: TARGET, tracing::Level::DEBUG).then(|| {
            let mut ticks = tokio::time::interval(every);
            // After a stall, one census rather than a burst of them.
            ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
            ticks
        });
        Census { ticks }
    }

    /// Completes when a census is due, and never when none is taken.
    pub async fn due(&mut self) {
        match &mut self.ticks {
            Some(ticks) => {
                ticks.tick().await;
            }
            None => std::future::pending().await,
        }
    }
}

/// Logs the census, summed over every API of `routes`. `connections` are
/// the HTTP connections open now; a tool call counts from its arrival to its
/// answer, waiting for a turn included.
pub async fn report(routes: &Routes, connections: usize) {
    let mut sessions = 0;
    let mut calls_in_flight = 0;
    for hosted in routes.apis() {
        sessions += hosted.endpoint.sessions_alive().await;
        calls_in_flight += hosted.endpoint.calls_in_flight();
    }
    let tasks = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    tracing::debug!(
        target: TARGET,
        sessions,
        connections,
        calls_in_flight,
        tasks,
        "census"
    );
}
