//! The sessions of the `initialize` era, in a table of the endpoint's own.
//!
//! rmcp still opens a session (its `initialize` handshake, its ID) and
//! closes one on a DELETE, but the calls of a ready session are answered
//! without it ([`super::lean`]), so its session worker no longer sees every
//! message and cannot tell an idle session from a busy one. The table keeps
//! when each session was last used, and the endpoint closes in rmcp those
//! idle for the operator's timeout.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What the table knows of a session ID a request shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Initialized: its calls may be answered by the lean path.
    Ready,
    /// Opened, but the client has not said `notifications/initialized`.
    Opening,
    /// Not in the table (never opened, closed, or idle too long).
    Unknown,
}

struct Session {
    last_used: Instant,
    ready: bool,
}

pub struct SessionTable {
    idle_timeout: Duration,
    sessions: Mutex<HashMap<Arc<str>, Session>>,
    last_sweep: Mutex<Instant>,
}

impl SessionTable {
    pub fn new(idle_timeout: Duration) -> Self {
        Self {
            idle_timeout,
            sessions: Mutex::new(HashMap::new()),
            last_sweep: Mutex::new(Instant::now()),
        }
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Session>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A session rmcp opened for an `initialize`.
    pub fn opened(&self, id: &str) {
        let session = Session {
            last_used: Instant::now(),
            ready: false,
        };
        self.sessions().insert(id.into(), session);
    }

    /// The client said `notifications/initialized` on the session.
    pub fn initialized(&self, id: &str) {
        if let Some(session) = self.sessions().get_mut(id) {
            session.ready = true;
        }
    }

    /// A request showed the session's ID: it is used now, unless it has
    /// been idle too long already (then it is unknown, and left for
    /// [`SessionTable::idle`] to hand over for closing).
    pub fn used(&self, id: &str) -> Seen {
        self.used_at(id, Instant::now())
    }

    fn used_at(&self, id: &str, now: Instant) -> Seen {
        match self.sessions().get_mut(id) {
            Some(session)
                if now.saturating_duration_since(session.last_used) < self.idle_timeout =>
            {
                session.last_used = session.last_used.max(now);
                if session.ready {
                    Seen::Ready
                } else {
                    Seen::Opening
                }
            }
            _ => Seen::Unknown,
        }
    }

    /// The session was closed (DELETE) or rmcp no longer knows it.
    pub fn ended(&self, id: &str) {
        self.sessions().remove(id);
    }

    /// Forgets every session.
    pub fn clear(&self) {
        self.sessions().clear();
    }

    /// Keeps only the sessions `alive` names.
    pub fn retain(&self, alive: impl Fn(&str) -> bool) {
        self.sessions().retain(|id, _| alive(id));
    }

    /// Whether the idle sessions are due to be looked for: a few times per
    /// timeout, so a session outlives it by a quarter at most.
    pub fn sweep_due(&self) -> bool {
        let now = Instant::now();
        let mut last = self
            .last_sweep
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if now.duration_since(*last) < self.idle_timeout / 4 {
            return false;
        }
        *last = now;
        true
    }

    /// Takes the sessions idle for the timeout out of the table, for closing.
    pub fn idle(&self) -> Vec<Arc<str>> {
        self.idle_at(Instant::now())
    }

    fn idle_at(&self, now: Instant) -> Vec<Arc<str>> {
        let mut idle = Vec::new();
        self.sessions().retain(|id, session| {
            let keep = now.saturating_duration_since(session.last_used) < self.idle_timeout;
            if !keep {
                idle.push(Arc::clone(id));
            }
            keep
        });
        idle
    }

    pub fn len(&self) -> usize {
        self.sessions().len()
    }

    pub fn ids(&self) -> std::collections::HashSet<String> {
        self.sessions().keys().map(|id| id.to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUT: Duration = Duration::from_secs(60);

    #[test]
    fn a_session_is_ready_once_initialized_and_unknown_once_idle() {
        let table = SessionTable::new(TIMEOUT);
        assert_eq!(table.used("s"), Seen::Unknown);
        table.opened("s");
        assert_eq!(table.used("s"), Seen::Opening);
        table.initialized("s");
        assert_eq!(table.used("s"), Seen::Ready);
        let later = Instant::now() + TIMEOUT;
        assert_eq!(
            table.used_at("s", later),
            Seen::Unknown,
            "idle past the timeout"
        );
        assert_eq!(table.idle_at(later).as_slice(), [Arc::<str>::from("s")]);
        assert_eq!(table.len(), 0);
    }

    #[test]
    fn use_keeps_a_session_alive_and_ended_ones_are_gone() {
        let table = SessionTable::new(TIMEOUT);
        table.opened("a");
        table.opened("b");
        let half = Instant::now() + TIMEOUT / 2;
        assert_eq!(table.used_at("a", half), Seen::Opening);
        assert_eq!(
            table.idle_at(half + TIMEOUT / 2).as_slice(),
            [Arc::<str>::from("b")]
        );
        assert_eq!(table.ids(), ["a".to_owned()].into());
        table.ended("a");
        assert_eq!(table.len(), 0);
    }
}
