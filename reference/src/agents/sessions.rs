//! Each MCP session belongs to the agent that opened it. Another agent,
//! let in with a key or token of its own, that shows the session's ID (seen
//! in a log, a proxy, a shared machine) is answered as though the session
//! did not exist: it learns nothing, and cannot call tools, read the
//! session's stream or end it. The MCP security best practices ask this of
//! a server that lets in more than one principal.
//!
//! Only sessions opened through the gate are known here. A session ID it
//! never saw opened (one of before a reload that turned the check on) is
//! left to MCP, which answers an unknown one with 404 itself.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

/// How many sessions are kept before the ended ones are looked for: ended
/// sessions go as the endpoint drops them, found at most once per this
/// many new ones beyond those alive at the last look.
const PRUNE_SLACK: usize = 64;

/// The agent each session was opened by.
#[derive(Debug, Default)]
pub struct SessionOwners {
    owners: Mutex<Owners>,
}

#[derive(Debug, Default)]
struct Owners {
    by_session: HashMap<String, String>,
    /// Pruned again once `by_session` grows past this.
    prune_at: usize,
}

/// What [`SessionOwners::opened`] asks of the caller.
#[derive(Debug, PartialEq, Eq)]
pub enum Bookkeeping {
    Done,
    /// Enough sessions are kept that the ended ones should be found: call
    /// [`SessionOwners::keep_only`] with those alive.
    Prune,
}

impl SessionOwners {
    /// Whether `principal` may use the session `id`: its own, or one never
    /// seen opened here.
    pub fn may_use(&self, id: &str, principal: &str) -> bool {
        self.lock()
            .by_session
            .get(id)
            .is_none_or(|owner| owner == principal)
    }

    /// Notes that `principal` opened the session `id`.
    pub fn opened(&self, id: &str, principal: &str) -> Bookkeeping {
        let mut owners = self.lock();
        owners
            .by_session
            .insert(id.to_owned(), principal.to_owned());
        if owners.by_session.len() > owners.prune_at {
            Bookkeeping::Prune
        } else {
            Bookkeeping::Done
        }
    }

    /// Forgets the session `id`: closed by its agent, or gone.
    pub fn ended(&self, id: &str) {
        self.lock().by_session.remove(id);
    }

    /// Forgets every session not in `alive`.
    pub fn keep_only(&self, alive: &HashSet<String>) {
        let mut owners = self.lock();
        owners.by_session.retain(|id, _| alive.contains(id));
        owners.prune_at = owners.by_session.len() * 2 + PRUNE_SLACK;
    }

    /// How many sessions it knows the owner of.
    pub fn len(&self) -> usize {
        self.lock().by_session.len()
    }

    /// Whether it knows none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Owners> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_its_opener_s_alone() {
        let owners = SessionOwners::default();
        assert!(
            owners.may_use("s1", "key:a"),
            "a session never seen is MCP's to judge"
        );
        owners.opened("s1", "key:a");
        assert!(owners.may_use("s1", "key:a"));
        assert!(!owners.may_use("s1", "key:b"));
        owners.ended("s1");
        assert!(
            owners.may_use("s1", "key:b"),
            "an ended session is forgotten"
        );
    }

    #[test]
    fn ended_sessions_are_looked_for_as_sessions_grow() {
        let owners = SessionOwners::default();
        let mut asked = 0;
        for n in 0..1_000_usize {
            if owners.opened(&format!("s{n}"), "key:a") == Bookkeeping::Prune {
                asked += 1;
                // Only the ten latest are still alive.
                let alive = (n.saturating_sub(9)..=n).map(|k| format!("s{k}")).collect();
                owners.keep_only(&alive);
            }
        }
        assert!(
            owners.len() <= 10 + PRUNE_SLACK + 1,
            "kept {}",
            owners.len()
        );
        assert!(
            (10..=20).contains(&asked),
            "asked {asked} times in 1,000 sessions: neither every time nor never"
        );
    }

    #[test]
    fn ended_sessions_are_looked_for_past_twice_those_alive_and_the_slack() {
        let owners = SessionOwners::default();
        assert!(owners.is_empty());
        // Nothing was looked at yet: the first session asks for a look.
        assert_eq!(owners.opened("first", "key:a"), Bookkeeping::Prune);
        let alive: HashSet<String> = (0..10).map(|n| format!("s{n}")).collect();
        for id in &alive {
            owners.opened(id, "key:a");
        }
        owners.keep_only(&alive);
        assert_eq!(owners.len(), 10);
        assert!(!owners.is_empty());

        let next_look = 2 * alive.len() + PRUNE_SLACK;
        for n in alive.len()..next_look {
            assert_eq!(owners.opened(&format!("s{n}"), "key:a"), Bookkeeping::Done);
        }
        assert_eq!(owners.len(), next_look);
        assert_eq!(owners.opened("one more", "key:a"), Bookkeeping::Prune);
    }
}
