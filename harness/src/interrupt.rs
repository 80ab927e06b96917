//! Ctrl-C and SIGTERM. A stopped run ends as a finished one does: its
//! gateways killed, its temporary folders removed, the summary so far
//! printed; then it exits as shells expect of a process a signal ended.

use tokio::signal::unix::{signal, Signal, SignalKind};

/// A signal that stops the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT, as Ctrl-C sends.
    Interrupt,
    /// SIGTERM, as CI runners and `kill` send.
    Terminate,
}

impl Stop {
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
        }
    }

    /// 128 plus the signal's number: 130 for SIGINT, 143 for SIGTERM.
    pub fn exit_code(self) -> u8 {
        let number = match self {
            Self::Interrupt => libc::SIGINT,
            Self::Terminate => libc::SIGTERM,
        };
        u8::try_from(128 + number).unwrap_or(u8::MAX)
    }
}

/// The run's handlers of SIGINT and SIGTERM. Installed before the first
/// launch: from then on these signals no longer end the process at once.
#[derive(Debug)]
pub struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    pub fn install() -> std::io::Result<Self> {
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// The first of the two signals to arrive.
    pub async fn received(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
        }
    }
}
