//! The scenario's gateway's state, and what the world reads of it.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use anyhow::bail;
use tokio::sync::OwnedSemaphorePermit;

use super::{folders::Folders, life::Life, setup::Setup};
use crate::{
    health::Health,
    issuer::Issuer,
    launch::{Invocation, Launcher, StartFailure, Transport},
    pool::{Pool, Wanted},
    prepare::Preparation,
    raw::RawHttp,
};

/// How long a gateway whose session failed gets to show that it exited.
pub(super) const EXIT_SEEN_WITHIN: Duration = Duration::from_secs(1);

/// The scenario's gateway: what it is launched with, where it is in its
/// life, and what its launches answer to.
pub(crate) struct Lifecycle {
    /// What the gateway is launched with, as the steps set it.
    pub(super) setup: Setup,
    /// What this scenario told the pool it wants, until it is done.
    pub(super) wanted: Option<Wanted>,
    /// Set where the scenario stops or restarts its gateway itself: it is
    /// not kept for another.
    pub(super) own_launches: bool,
    pub(super) launcher: Option<Arc<Launcher>>,
    /// The run's launch record: whether another launch is worth making.
    pub(super) health: Option<Arc<Health>>,
    /// Gateways kept between scenarios; `None` with `--isolate`.
    pub(super) pool: Option<Arc<Pool>>,
    /// The gateway's build per document (`--prepare`), if it has one.
    pub(super) preparation: Option<Preparation>,
    /// This scenario's turn to launch, held while its gateway comes up: until
    /// it answers the MCP handshake (a gateway may accept TCP long before it
    /// can serve), or accepts TCP when the scenario drives HTTP by hand.
    /// Not part of [`Life`]: a launch that failed keeps it until teardown.
    pub(super) slot: Option<OwnedSemaphorePermit>,
    pub(super) transport: Transport,
    pub(super) life: Life,
    /// The hand-driven HTTP client, once a step asked for it (see [`Self::raw_http`]).
    pub(super) raw: Option<RawHttp>,
    pub(super) folders: Folders,
    /// How the latest gateway was launched.
    pub(super) launched_as: Option<Invocation>,
    /// Set by the step that puts starting itself under test.
    pub(super) start_under_test: bool,
    /// Set when the scenario expects the gateway to exit (a refused document).
    pub(super) exit_expected: bool,
    /// Set in a world that only checks the gateway starts (see
    /// [`GatewayWorld::probe`](super::GatewayWorld::probe)).
    pub(super) probe: bool,
    /// The run's start-up window (see [`Self::start_timeout`]).
    pub(super) start_window: Duration,
    /// Set once a launch that stayed silent was made again (see
    /// [`Self::may_relaunch`]); the window is then twice as long.
    pub(super) relaunched: bool,
}

impl Lifecycle {
    pub(crate) fn new() -> Self {
        Self {
            setup: Setup::new(),
            wanted: None,
            own_launches: false,
            launcher: None,
            health: None,
            pool: None,
            preparation: None,
            slot: None,
            transport: Transport::Http,
            life: Life::NotLaunched,
            raw: None,
            folders: Folders::default(),
            launched_as: None,
            start_under_test: false,
            exit_expected: false,
            probe: false,
            start_window: crate::launch::DEFAULT_START_TIMEOUT,
            relaunched: false,
        }
    }

    /// Sets the launches up as the runner chose for the scenario.
    pub(crate) fn configure(
        &mut self,
        launcher: Arc<Launcher>,
        health: Arc<Health>,
        pool: Option<Arc<Pool>>,
        preparation: Option<Preparation>,
        transport: Transport,
        hint_credential: bool,
    ) {
        self.start_window = launcher.start_timeout;
        self.pool = pool;
        self.preparation = preparation;
        self.launcher = Some(launcher);
        self.health = Some(health);
        self.transport = transport;
        self.setup.hint_credential(hint_credential);
    }

    /// Makes this a world that only checks the gateway starts.
    pub(crate) fn only_probe(&mut self) {
        self.probe = true;
    }

    /// Puts starting itself under test: a gateway that exits at start-up in
    /// this scenario breaks the scenario's rule, rather than leaving it unjudged.
    pub(crate) fn put_start_under_test(&mut self) {
        self.start_under_test = true;
    }

    /// The transport this scenario speaks.
    pub(crate) fn transport(&self) -> Transport {
        self.transport
    }

    /// What the gateway is launched with.
    pub(crate) fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The set-up, for a step that sets `what` in it: only before the
    /// gateway is launched.
    pub(crate) fn before_launch(&mut self, what: &str) -> anyhow::Result<&mut Setup> {
        if self.life.running().is_some() {
            bail!("{what} must be set before the gateway is launched");
        }
        Ok(&mut self.setup)
    }

    /// Stops the gateway and ends the session; done after each scenario.
    /// What the gateway left (stderr, an exit of its own) is kept for the report.
    pub(crate) fn teardown(&mut self) {
        self.raw = None;
        self.life.end();
        self.folders.finish();
        self.slot = None;
    }

    /// Has the gateway launched trusting `issuer`, the scenario's own
    /// authorization server; it is kept for no other scenario.
    pub(crate) fn trust_own_issuer(&mut self, issuer: Arc<Issuer>) -> anyhow::Result<()> {
        self.before_launch("the authorization server")?
            .set_issuer(issuer);
        self.own_launches = true;
        Ok(())
    }

    /// Stops the gateway so the scenario can launch it again itself.
    pub(crate) fn stop_to_restart(&mut self) {
        self.own_launches = true;
        self.teardown();
    }

    /// Moves the folder of the scenario's last gateway to `into` (see
    /// [`Folders::keep`]).
    pub(crate) fn keep_files(&mut self, into: &Path) -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
        self.folders.keep(into)
    }

    /// Why the gateway did not come up in this scenario, if it did not.
    pub(crate) fn start_failure(&self) -> Option<&StartFailure> {
        self.life.start_failure()
    }

    /// How the gateway ended at start-up, if it did: it never came up (as
    /// recorded at its launch), or, over stdio, it was launched and then
    /// exited before its handshake, which the failed session shows.
    pub(crate) async fn ended_at_start(&mut self) -> Option<&StartFailure> {
        if let Life::Running(running) = &mut self.life {
            let failure = running.gateway.exit_within(EXIT_SEEN_WITHIN).await?;
            self.life = Life::FailedToStart(failure);
        }
        self.life.start_failure()
    }

    /// Why the latest launch did not come up (exited, silent, no handshake),
    /// for [`GatewayWorld::probe`](super::GatewayWorld::probe).
    pub(crate) fn launch_failure(&self) -> Option<StartFailure> {
        self.life.launch_failure()
    }

    /// How the latest gateway was launched.
    pub(crate) fn launched_as(&self) -> Option<&Invocation> {
        self.launched_as.as_ref()
    }

    /// What the gateway wrote on stderr, if it was launched.
    pub(crate) fn stderr(&self) -> String {
        self.life.stderr()
    }

    /// Waits for the gateway's stderr to go quiet, its scenario having
    /// failed (see [`Life::settle_stderr`]).
    pub(crate) async fn settle_stderr(&mut self) {
        self.life.settle_stderr().await;
    }

    /// The process group of the running gateway, if one is running.
    pub(crate) fn running_group(&self) -> Option<i32> {
        self.life.running().and_then(|r| r.gateway.group())
    }

    /// What the running gateway wrote on stderr so far, if one is running.
    pub(crate) fn running_stderr(&self) -> Option<String> {
        self.life.running().map(|r| r.gateway.stderr())
    }

    /// Why the scenario was not run (see [`Life::why_not_run`]).
    pub(crate) fn why_not_run(&self) -> Option<String> {
        self.life.why_not_run()
    }

    /// Why what the scenario saw is no verdict (see [`Life::why_not_judged`]).
    pub(crate) fn why_not_judged(&self) -> Option<String> {
        self.life
            .why_not_judged(self.start_under_test, self.exit_expected)
    }
}
