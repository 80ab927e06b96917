//! Where the scenario's gateway is in its life, and what each state tells
//! the report.

use crate::{
    client::McpClient,
    health::Refusal,
    launch::{Gateway, StartFailure},
    pool::{KeptGateway, LaunchKey},
};

/// Where the scenario's gateway is in its life: one field, so that no two
/// records can disagree (a start failure kept while a gateway still runs).
pub(super) enum Life {
    /// Nothing launched yet, or a launch about to be made again.
    NotLaunched,
    /// A gateway kept from an earlier scenario, taken for this one when its
    /// document was set: used at the launch if it still fits.
    Kept(Box<KeptGateway>),
    /// Launched; the MCP session opens at the first step that needs it.
    /// Boxed: a session is large, and a scenario has one at a time.
    Running(Box<Running>),
    /// The launch did not come up: it exited, or stayed silent.
    FailedToStart(StartFailure),
    /// No launch was made: the run gave up on the gateway, or reached
    /// `--max-failures`.
    Refused(Refusal),
    /// Stopped (teardown, restart) or handed back to the pool; what it left.
    Ended(Ended),
}

/// A launched gateway; the session is dropped before the process.
pub(super) struct Running {
    pub(super) client: Option<McpClient>,
    pub(super) gateway: Gateway,
    /// What it was launched with.
    pub(super) key: LaunchKey,
    /// How many scenarios it served before this one.
    pub(super) served_before: usize,
    /// Why its MCP handshake failed, if it did: it may still be running
    /// (see [`Life::launch_failure`]).
    pub(super) failed_handshake: Option<StartFailure>,
    /// Whether it was running when its scenario failed (see
    /// [`Life::settle_stderr`]).
    running_at_failure: bool,
}

/// What the gateway left behind when its scenario ended.
#[derive(Debug, Clone)]
pub(super) struct Ended {
    stderr: String,
    /// Its exit status, when it exited on its own before the end.
    exited: Option<std::process::ExitStatus>,
}

impl Running {
    pub(super) fn new(gateway: Gateway, key: LaunchKey, served_before: usize) -> Self {
        Self {
            client: None,
            gateway,
            key,
            served_before,
            failed_handshake: None,
            running_at_failure: false,
        }
    }
}

impl Life {
    /// The running gateway, if one is.
    pub(super) fn running(&self) -> Option<&Running> {
        match self {
            Life::Running(running) => Some(running),
            _ => None,
        }
    }

    /// Why the gateway did not come up, if it did not.
    pub(super) fn start_failure(&self) -> Option<&StartFailure> {
        match self {
            Life::FailedToStart(failure) => Some(failure),
            _ => None,
        }
    }

    /// Why the latest launch did not come up (exited, silent, no
    /// handshake): a gateway that fails its handshake may still be running.
    pub(super) fn launch_failure(&self) -> Option<StartFailure> {
        match self {
            Life::FailedToStart(failure) => Some(failure.clone()),
            Life::Running(running) => running.failed_handshake.clone(),
            _ => None,
        }
    }

    /// What the gateway wrote on stderr, if it was launched.
    pub(super) fn stderr(&self) -> String {
        match self {
            Life::Running(running) => running.gateway.stderr(),
            Life::Ended(ended) => ended.stderr.clone(),
            Life::FailedToStart(failure) => failure.stderr.clone(),
            Life::NotLaunched | Life::Kept(_) | Life::Refused(_) => String::new(),
        }
    }

    /// Waits for a running gateway's stderr to go quiet, its scenario
    /// having failed. Its exit is judged as it was at the failure: one
    /// during the wait (a crash on the way out of its last answer) is no
    /// verdict on what the scenario saw, and its stderr shows it.
    pub(super) async fn settle_stderr(&mut self) {
        let Life::Running(running) = self else { return };
        if running.gateway.exit_status().is_some() {
            return;
        }
        running.running_at_failure = true;
        running.gateway.wait_for_quiet_stderr().await;
    }

    /// Why the scenario was not run: no launch was made, for a reason that
    /// is no matter of the gateway (`--max-failures`, a credential place it
    /// cannot take).
    pub(super) fn why_not_run(&self) -> Option<String> {
        match self {
            Life::Refused(refusal @ (Refusal::Budget(_) | Refusal::Placement(_))) => {
                Some(refusal.to_string())
            }
            _ => None,
        }
    }

    /// Why what the scenario saw is no verdict: the gateway did not start,
    /// or exited, where that is not what the scenario checks, or the run
    /// gave up on it.
    pub(super) fn why_not_judged(
        &self,
        start_under_test: bool,
        exit_expected: bool,
    ) -> Option<String> {
        match self {
            Life::FailedToStart(failure) if failure.status.is_some() && start_under_test => None,
            Life::FailedToStart(failure) => {
                Some(format!("the gateway did not start: {}", failure.reason))
            }
            Life::Ended(Ended {
                exited: Some(status),
                ..
            }) if !status.success() && !exit_expected => {
                Some(format!("the gateway exited during the scenario ({status})"))
            }
            Life::Refused(Refusal::Budget(_) | Refusal::Placement(_)) => None,
            Life::Refused(refusal) => Some(refusal.to_string()),
            _ => None,
        }
    }

    /// The kept gateway taken for this scenario, if it still waits for the
    /// launch; nothing is launched then.
    pub(super) fn take_kept(&mut self) -> Option<Box<KeptGateway>> {
        match std::mem::replace(self, Life::NotLaunched) {
            Life::Kept(kept) => Some(kept),
            other => {
                *self = other;
                None
            }
        }
    }

    /// Stops the running gateway, keeping what it left (stderr, an exit of
    /// its own) for the report.
    pub(super) fn end(&mut self) {
        if let Life::Running(running) = self {
            let ended = Ended {
                stderr: running.gateway.stderr(),
                exited: if running.running_at_failure {
                    None
                } else {
                    running.gateway.exit_status()
                },
            };
            *self = Life::Ended(ended);
        }
    }

    /// Takes the running gateway to hand it back to the pool; what a report
    /// of this scenario shows stays.
    pub(super) fn hand_over(&mut self) -> Option<Box<Running>> {
        let Life::Running(running) = std::mem::replace(self, Life::NotLaunched) else {
            return None;
        };
        *self = Life::Ended(Ended {
            stderr: running.gateway.stderr(),
            exited: None,
        });
        Some(running)
    }
}
