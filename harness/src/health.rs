//! Whether another launch is worth making, consulted before each one.
//!
//! A gateway whose first launches all fail the same way, none having come
//! up, fails the rest that way too: each would wait out its start-up window
//! and repeat the same stderr. Launching over that transport stops then,
//! with that one cause. With `--max-failures`, launching stops once that
//! many scenarios failed.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Mutex,
};

use serde::{Deserialize, Serialize};

use crate::launch::{StartFailure, Transport};

/// Launches that failed alike, none having come up, after which a gateway is
/// taken never to start. More than one, so a chance failure is not the
/// verdict; few, so a gateway that never starts costs seconds, not minutes.
const GIVE_UP_AFTER: usize = 4;

/// The launch record of a run, shared by every scenario.
#[derive(Debug, Default)]
pub struct Health {
    transports: Mutex<[Record; 2]>,
    max_failures: Option<usize>,
    failed: AtomicUsize,
    relaunched: AtomicUsize,
    launched: AtomicUsize,
}

/// One transport's launches.
#[derive(Debug, Default)]
struct Record {
    came_up: bool,
    /// Failed launches while none had come up, with their signatures.
    failures: Vec<(String, StartFailure)>,
    never_started: Option<NeverStarted>,
}

/// Why a launch was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The gateway never started over this transport.
    NeverStarted(Transport),
    /// `--max-failures` scenarios failed the run or could not be judged.
    Budget(usize),
    /// The scenario wants the upstream credential in a place the gateway
    /// cannot put it (`--credential-in`); the reason.
    Placement(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NeverStarted(transport) => write!(
                f,
                "not launched: the gateway never started over {transport}; its first launches all failed the same way (shown once, before the verdict)"
            ),
            Self::Budget(max) => write!(
                f,
                "launching stopped after {max} scenario(s) failed or could not be judged (--max-failures {max})"
            ),
            Self::Placement(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for Refusal {}

impl Health {
    pub fn new(max_failures: Option<usize>) -> Self {
        Self {
            max_failures,
            ..Self::default()
        }
    }

    fn record<T>(&self, transport: Transport, f: impl FnOnce(&mut Record) -> T) -> T {
        let mut records = self.transports.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut records[transport as usize])
    }

    /// Whether a scenario may launch the gateway over `transport`. A probe
    /// (see [`crate::world::GatewayWorld::probe`]) ignores the failure budget.
    pub fn may_launch(&self, transport: Transport, probe: bool) -> Result<(), Refusal> {
        if self.record(transport, |r| r.never_started.is_some()) {
            return Err(Refusal::NeverStarted(transport));
        }
        match self.max_failures {
            Some(max) if !probe && self.failed.load(Ordering::Relaxed) >= max => {
                Err(Refusal::Budget(max))
            }
            _ => Ok(()),
        }
    }

    /// A gateway came up: it accepted TCP (HTTP) or answered the handshake.
    pub fn came_up(&self, transport: Transport) {
        self.record(transport, |r| r.came_up = true);
    }

    /// Whether any gateway came up over `transport`.
    pub fn has_come_up(&self, transport: Transport) -> bool {
        self.record(transport, |r| r.came_up)
    }

    /// A gateway that was to come up did not. After [`GIVE_UP_AFTER`] such
    /// launches, all alike and none having come up, no more are made.
    pub fn launch_failed(&self, transport: Transport, failure: &StartFailure) {
        self.record(transport, |r| {
            if r.came_up || r.never_started.is_some() {
                return;
            }
            r.failures.push((signature(failure), failure.clone()));
            let first = &r.failures[0].0;
            if r.failures.len() >= GIVE_UP_AFTER && r.failures.iter().all(|(s, _)| s == first) {
                r.never_started =
                    Some(never_started(transport, &r.failures[0].1, r.failures.len()));
            }
        });
    }

    /// Why launching over `transport` stopped, if it did.
    pub fn never_started(&self, transport: Transport) -> Option<NeverStarted> {
        self.record(transport, |r| r.never_started.clone())
    }

    /// A gateway was launched.
    pub fn launched(&self) {
        self.launched.fetch_add(1, Ordering::Relaxed);
    }

    /// Gateways launched in the run.
    pub fn launches(&self) -> usize {
        self.launched.load(Ordering::Relaxed)
    }

    /// A launch that stayed silent through its window was made again.
    pub fn relaunched(&self) {
        self.relaunched.fetch_add(1, Ordering::Relaxed);
    }

    /// How many launches were made again.
    pub fn relaunches(&self) -> usize {
        self.relaunched.load(Ordering::Relaxed)
    }

    /// A scenario failed the run or could not be judged (for `--max-failures`).
    pub fn scenario_failed(&self) {
        self.failed.fetch_add(1, Ordering::Relaxed);
    }
}

/// The cause of a gateway that never started, from one of its launches.
pub fn never_started(
    transport: Transport,
    failure: &StartFailure,
    launches: usize,
) -> NeverStarted {
    NeverStarted {
        transport: transport.name().to_owned(),
        launches,
        // One line, for the verdict.
        reason: failure
            .reason
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        command: failure.invocation.command.clone(),
        environment: failure.invocation.environment(),
        stderr: failure.stderr.clone(),
    }
}

/// What two launches that failed the same way share: the reason and stderr
/// with numbers (ports, process IDs, temporary folders) blanked out.
fn signature(failure: &StartFailure) -> String {
    let mut signature = String::new();
    let mut in_number = false;
    for c in failure
        .reason
        .chars()
        .chain(['\n'])
        .chain(failure.stderr.chars())
    {
        if c.is_ascii_digit() {
            if !in_number {
                signature.push('#');
            }
            in_number = true;
        } else {
            signature.push(c);
            in_number = false;
        }
    }
    signature
}

/// A gateway that never came up over a transport: the one cause of all its
/// scenarios there, reported once rather than with each of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeverStarted {
    pub transport: String,
    /// Its launches that failed alike, none having come up.
    pub launches: usize,
    /// Why the first of them was given up on.
    pub reason: String,
    /// The command as run, placeholders filled.
    pub command: String,
    /// The variables the harness set (never the credential itself).
    pub environment: String,
    pub stderr: String,
}

impl NeverStarted {
    /// One line, for the verdict.
    pub fn headline(&self) -> String {
        format!(
            "the gateway never started over {}: {} ({} launch(es) failed alike, none came up; nothing over {} was judged)",
            self.transport, self.reason, self.launches, self.transport
        )
    }

    /// The launch in full: command, environment and stderr.
    pub fn details(&self) -> String {
        let mut out = format!(
            "command as run: {}\nenvironment set: {}",
            self.command, self.environment
        );
        match self.stderr.trim_end() {
            "" => out.push_str("\ngateway stderr: (empty)"),
            stderr => {
                let lines: Vec<&str> = stderr.lines().collect();
                let tail = &lines[lines.len().saturating_sub(NEVER_STARTED_STDERR_LINES)..];
                out.push_str("\ngateway stderr:");
                for line in tail {
                    out.push_str("\n  ");
                    out.push_str(line);
                }
            }
        }
        out
    }
}

/// Lines of stderr shown with a gateway that never started.
const NEVER_STARTED_STDERR_LINES: usize = 40;

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(stderr: &str) -> StartFailure {
        StartFailure {
            reason: "it exited during start-up (exit status: 2)".into(),
            status: None,
            stderr: stderr.into(),
            invocation: Default::default(),
            timed_out: false,
        }
    }

    #[test]
    fn gives_up_on_launches_that_fail_alike_and_only_those() {
        let health = Health::new(None);
        for port in 40001..40001 + GIVE_UP_AFTER {
            assert!(health.may_launch(Transport::Http, false).is_ok());
            health.launch_failed(
                Transport::Http,
                &failure(&format!(
                    "usage: gw [--port {port}] /tmp/run-{port}/document.yaml"
                )),
            );
        }
        assert_eq!(
            health.may_launch(Transport::Http, false),
            Err(Refusal::NeverStarted(Transport::Http))
        );
        assert!(health.may_launch(Transport::Stdio, false).is_ok());

        // Different documents refused differently: not one cause.
        let differing = Health::new(None);
        for n in 0..GIVE_UP_AFTER * 2 {
            let name = ["paths", "info", "openapi"][n % 3];
            differing.launch_failed(Transport::Http, &failure(&format!("missing {name}")));
        }
        assert!(differing.may_launch(Transport::Http, false).is_ok());

        // Once one came up, failures are the scenarios' own.
        let came_up = Health::new(None);
        came_up.came_up(Transport::Http);
        for _ in 0..GIVE_UP_AFTER {
            came_up.launch_failed(Transport::Http, &failure("boom"));
        }
        assert!(came_up.may_launch(Transport::Http, false).is_ok());
    }

    #[test]
    fn the_failure_budget_stops_launches_but_not_a_probe() {
        let health = Health::new(Some(2));
        health.scenario_failed();
        assert!(health.may_launch(Transport::Http, false).is_ok());
        health.scenario_failed();
        assert_eq!(
            health.may_launch(Transport::Http, false),
            Err(Refusal::Budget(2))
        );
        assert!(health.may_launch(Transport::Http, true).is_ok());
    }
}
