//! Gateways kept running from one scenario to the next that launches the
//! same one.
//!
//! Most scenarios need nothing but a gateway started on their document, with
//! their credential where they want it. Launching one per scenario makes a
//! slow gateway's start-up the cost of the whole run (a Python gateway spends
//! most of a run starting). So a scenario hands its gateway back here,
//! together with the mock upstream its base URL points at, reset; the next
//! scenario that sets the same document takes both and opens a fresh MCP
//! session. `--isolate` keeps one launch per scenario.
//!
//! Kept are only HTTP gateways (over stdio the session is the process), and
//! only after a scenario that left its gateway running with every tool call
//! answered (one still at a call is not handed on), did not speak HTTP to it
//! by hand (which may leave it mid-request), and did not put starting or
//! stopping under test. A failure is kept too, as a verdict on a gateway
//! that behaves the same whichever scenario it serves: that is what
//! `--isolate` and the comparison of both modes check; its report says the
//! gateway served earlier scenarios, and its rerun command launches one.

use std::{
    collections::VecDeque,
    path::PathBuf,
    pin::pin,
    sync::{
        atomic::{AtomicU64, AtomicUsize, Ordering},
        Mutex, MutexGuard,
    },
    time::Duration,
};

use mock_upstream::Upstream;
use tokio::{sync::Notify, time::Instant};

use crate::{folder::ScenarioDir, launch::Gateway};

/// Idle gateways kept at most; the one idle longest goes first.
const CAPACITY: usize = 16;

/// What a scenario asks of its launch, known once its document is set.
/// Scenarios that ask the same can be served by the same gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The document as the scenario wrote it, before `{{base_url}}` is filled.
    pub document: String,
    pub files: Vec<(PathBuf, String)>,
    pub folder: PathBuf,
    pub credential: String,
    /// Whether the gateway is told where the credential goes.
    pub hint_credential: bool,
    /// The path the API lives under, at the end of the base URL.
    pub base_path: String,
    /// The URL of the scenario's own authorization server, if it has one
    /// (empty: the run's): a gateway trusts the one it was launched with.
    pub issuer: String,
}

/// What a launch was made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchKey {
    pub wanted: Wanted,
    /// The upstream's base URL the gateway was given (its base path too).
    pub base_url: String,
}

/// A gateway that served a scenario, with the upstream it calls.
#[derive(Debug)]
pub struct Kept {
    pub upstream: Upstream,
    pub gateway: KeptGateway,
}

/// The gateway of a [`Kept`], until a scenario uses it.
#[derive(Debug)]
pub struct KeptGateway {
    pub key: LaunchKey,
    pub gateway: Gateway,
    /// The folder its document was written to.
    pub dir: ScenarioDir,
    /// How many scenarios it served so far.
    pub served: usize,
}

/// The gateways of a run kept between scenarios, and who is using which.
#[derive(Debug, Default)]
pub struct Pool {
    state: Mutex<State>,
    /// Told whenever a scenario is done with what it wanted.
    released: Notify,
    reused: AtomicUsize,
    /// The longest time a scenario took to get a gateway by launching one,
    /// in microseconds (0: none yet).
    longest_launch: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    idle: VecDeque<Kept>,
    /// What the scenarios under way wanted.
    busy: Vec<Busy>,
}

/// What a scenario under way wanted, and whether its gateway is up yet.
#[derive(Debug)]
struct Busy {
    wanted: Wanted,
    /// Still launching (or not yet at its launch): nothing to wait out yet.
    launching: bool,
}

impl Busy {
    fn launching(wanted: &Wanted) -> Self {
        Self {
            wanted: wanted.clone(),
            launching: true,
        }
    }

    fn up(wanted: &Wanted) -> Self {
        Self {
            wanted: wanted.clone(),
            launching: false,
        }
    }
}

impl Pool {
    /// A kept gateway for `wanted`, taken out of the pool. While a scenario
    /// under way wants the same, its gateway is waited for: scenarios of one
    /// document, run at once, would otherwise each launch one. For as long
    /// as that scenario is still getting its gateway up, since launching
    /// another would only queue for the same turns; once it is up, for up to
    /// `patience` more. `None`: launch one. Either way the caller wants
    /// `wanted` until it calls [`Self::release`].
    pub async fn take(&self, wanted: &Wanted, patience: Duration) -> Option<Kept> {
        // Set once every scenario with the same wants has its gateway up.
        let mut deadline: Option<Instant> = None;
        loop {
            let mut released = pin!(self.released.notified());
            released.as_mut().enable();
            {
                let mut state = self.state();
                let found = state
                    .idle
                    .iter()
                    .rposition(|kept| kept.gateway.key.wanted == *wanted);
                if let Some(at) = found {
                    state.busy.push(Busy::up(wanted));
                    return state.idle.remove(at);
                }
                let mut same = state
                    .busy
                    .iter()
                    .filter(|busy| busy.wanted == *wanted)
                    .peekable();
                if same.peek().is_none() {
                    state.busy.push(Busy::launching(wanted));
                    return None;
                }
                if same.any(|busy| busy.launching) {
                    deadline = None;
                } else if deadline.is_some_and(|at| Instant::now() >= at) {
                    state.busy.push(Busy::launching(wanted));
                    return None;
                } else {
                    deadline.get_or_insert_with(|| Instant::now() + patience);
                }
            }
            match deadline {
                Some(at) => {
                    let _ = tokio::time::timeout_at(at, released).await;
                }
                None => released.await,
            }
        }
    }

    /// The scenario that wants `wanted` has its gateway up: those waiting
    /// for it now wait no longer than their patience.
    pub fn came_up(&self, wanted: &Wanted) {
        let mut state = self.state();
        if let Some(busy) = state
            .busy
            .iter_mut()
            .find(|busy| busy.wanted == *wanted && busy.launching)
        {
            busy.launching = false;
        }
        drop(state);
        self.released.notify_waiters();
    }

    /// A scenario is done with `wanted`; those waiting for it look again.
    pub fn release(&self, wanted: &Wanted) {
        let mut state = self.state();
        if let Some(at) = state.busy.iter().position(|busy| busy.wanted == *wanted) {
            state.busy.swap_remove(at);
        }
        drop(state);
        self.released.notify_waiters();
    }

    /// Notes how long a scenario took to get a gateway by launching one,
    /// from asking for a turn to launch until it came up.
    pub fn launched_in(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.longest_launch
            .fetch_max(micros.max(1), Ordering::Relaxed);
    }

    /// How long a scenario waits for a gateway a scenario under way uses,
    /// once that gateway is up, before it launches one: as long as getting
    /// one by launching has taken in this run (the longest yet, the wait for
    /// a turn to launch included), at most three start-up `window`s; one
    /// window before any launch came up. So a slow gateway launched a few at a time is waited
    /// for, as launching would take longer, while one that comes up in
    /// milliseconds is launched again rather than waited for behind a
    /// scenario that takes seconds (a deadline's, say).
    pub fn patience(&self, window: Duration) -> Duration {
        match self.longest_launch.load(Ordering::Relaxed) {
            0 => window,
            micros => Duration::from_micros(micros).min(window * 3),
        }
    }

    /// Counts a scenario served by a gateway launched for an earlier one.
    pub fn reused(&self) {
        self.reused.fetch_add(1, Ordering::Relaxed);
    }

    /// Scenarios served by a gateway launched for an earlier one.
    pub fn reuses(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Takes back a gateway that served a scenario, its upstream already
    /// reset; the gateway idle longest is stopped when too many are kept.
    pub fn give_back(&self, mut kept: Kept) {
        kept.gateway.gateway.forget_stderr();
        kept.gateway.served += 1;
        let mut state = self.state();
        state.idle.push_back(kept);
        while state.idle.len() > CAPACITY {
            state.idle.pop_front();
        }
    }

    /// Stops every idle gateway (at the end of the run).
    pub fn clear(&self) {
        self.state().idle.clear();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::Arc, time::Duration};

    use super::{Pool, Wanted};

    fn wanted(document: &str) -> Wanted {
        Wanted {
            document: document.to_owned(),
            files: Vec::new(),
            folder: Default::default(),
            credential: "c".to_owned(),
            hint_credential: true,
            base_path: String::new(),
            issuer: String::new(),
        }
    }

    #[tokio::test]
    async fn a_scenario_waits_for_the_one_under_way_with_the_same_document() {
        let pool = Arc::new(Pool::default());
        let patience = Duration::from_secs(30);
        assert!(pool.take(&wanted("a"), patience).await.is_none());
        // Another document launches at once.
        let other = wanted("b");
        let other = tokio::time::timeout(Duration::from_secs(1), pool.take(&other, patience));
        assert!(matches!(other.await, Ok(None)));

        let waiting = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.take(&wanted("a"), patience).await.is_none() }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!waiting.is_finished(), "it waits while \"a\" is under way");
        // Done without a gateway to keep (it failed): the waiter launches.
        pool.release(&wanted("a"));
        let launches = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        assert!(matches!(launches, Ok(Ok(true))));
    }

    #[test]
    fn patience_is_what_a_launch_takes() {
        let pool = Pool::default();
        let window = Duration::from_secs(10);
        assert_eq!(pool.patience(window), window);
        pool.launched_in(Duration::from_millis(40));
        assert_eq!(pool.patience(window), Duration::from_millis(40));
        pool.launched_in(Duration::from_millis(12_500));
        pool.launched_in(Duration::from_millis(300));
        assert_eq!(pool.patience(window), Duration::from_millis(12_500));
        pool.launched_in(Duration::from_secs(90));
        assert_eq!(pool.patience(window), window * 3);
    }

    #[tokio::test]
    async fn waiting_ends_after_the_patience_once_the_gateway_is_up() {
        let pool = Pool::default();
        assert!(pool.take(&wanted("a"), Duration::ZERO).await.is_none());
        pool.came_up(&wanted("a"));
        let started = tokio::time::Instant::now();
        assert!(pool
            .take(&wanted("a"), Duration::from_millis(50))
            .await
            .is_none());
        assert!(started.elapsed() >= Duration::from_millis(50));
        // Both count as under way until each is released.
        pool.release(&wanted("a"));
        assert_eq!(pool.state().busy.len(), 1);
        pool.release(&wanted("a"));
        assert!(pool.state().busy.is_empty());
    }

    /// Scenarios of one document started together wait for the first one's
    /// launch however long its turn takes, instead of each launching their own.
    #[tokio::test]
    async fn no_patience_runs_out_while_the_gateway_is_still_launching() {
        let pool = Arc::new(Pool::default());
        let patience = Duration::from_millis(20);
        assert!(pool.take(&wanted("a"), patience).await.is_none());
        let waiting = tokio::spawn({
            let pool = Arc::clone(&pool);
            async move { pool.take(&wanted("a"), patience).await.is_none() }
        });
        tokio::time::sleep(patience * 10).await;
        assert!(!waiting.is_finished(), "it waits while \"a\" is launching");
        // Up now: the patience starts, then the waiter launches its own.
        pool.came_up(&wanted("a"));
        let launches = tokio::time::timeout(Duration::from_secs(1), waiting).await;
        assert!(matches!(launches, Ok(Ok(true))));
    }
}
