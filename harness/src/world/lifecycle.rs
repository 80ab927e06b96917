//! The scenario's gateway through its life, as one state machine: a gateway
//! kept from an earlier scenario taken when the document is set (see
//! [`crate::pool`]), else a launch at the first step that needs it, one turn
//! at a time and made once more after a silence; its MCP session; and what
//! it left when it ended or was handed back to the pool.

mod folders;
mod life;
mod setup;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, Context as _};
use tokio::sync::OwnedSemaphorePermit;

use self::{
    folders::Folders,
    life::{Life, Running},
    setup::Setup,
};
use super::{upstream::ScenarioUpstream, verdict::Notes};
use crate::{
    client::{
        EndpointRefused, Era, HandshakeTimedOut, HandshakeUnanswered, McpClient, CONNECT_TIMEOUT,
    },
    client_auth::{ClientAuth, Shown},
    folder::ScenarioDir,
    health::{Health, Refusal},
    issuer::Issuer,
    launch::{Gateway, Invocation, Launch, Launcher, StartFailure, Transport},
    pool::{Kept, KeptGateway, LaunchKey, Pool, Wanted},
    prepare::Preparation,
    raw::RawHttp,
};

/// How long a gateway whose session failed gets to show that it exited.
const EXIT_SEEN_WITHIN: Duration = Duration::from_secs(1);

/// The scenario's gateway: what it is launched with, where it is in its
/// life, and what its launches answer to.
pub(super) struct Lifecycle {
    /// What the gateway is launched with, as the steps set it.
    setup: Setup,
    /// What this scenario told the pool it wants, until it is done.
    wanted: Option<Wanted>,
    /// Set where the scenario stops or restarts its gateway itself: it is
    /// not kept for another.
    own_launches: bool,
    launcher: Option<Arc<Launcher>>,
    /// The run's launch record: whether another launch is worth making.
    health: Option<Arc<Health>>,
    /// Gateways kept between scenarios; `None` with `--isolate`.
    pool: Option<Arc<Pool>>,
    /// The gateway's build per document (`--prepare`), if it has one.
    preparation: Option<Preparation>,
    /// This scenario's turn to launch, held while its gateway comes up: until
    /// it answers the MCP handshake (a gateway may accept TCP long before it
    /// can serve), or accepts TCP when the scenario drives HTTP by hand.
    /// Not part of [`Life`]: a launch that failed keeps it until teardown.
    slot: Option<OwnedSemaphorePermit>,
    transport: Transport,
    life: Life,
    /// The hand-driven HTTP client, once a step asked for it (see [`Self::raw_http`]).
    raw: Option<RawHttp>,
    folders: Folders,
    /// How the latest gateway was launched.
    launched_as: Option<Invocation>,
    /// Set by the step that puts starting itself under test.
    start_under_test: bool,
    /// Set when the scenario expects the gateway to exit (a refused document).
    exit_expected: bool,
    /// Set in a world that only checks the gateway starts (see
    /// [`GatewayWorld::probe`](super::GatewayWorld::probe)).
    probe: bool,
    /// The run's start-up window (see [`Self::start_timeout`]).
    start_window: Duration,
    /// Set once a launch that stayed silent was made again (see
    /// [`Self::may_relaunch`]); the window is then twice as long.
    relaunched: bool,
}

impl Lifecycle {
    pub(super) fn new() -> Self {
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
    pub(super) fn configure(
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
    pub(super) fn only_probe(&mut self) {
        self.probe = true;
    }

    /// Puts starting itself under test: a gateway that exits at start-up in
    /// this scenario breaks the scenario's rule, rather than leaving it unjudged.
    pub(super) fn put_start_under_test(&mut self) {
        self.start_under_test = true;
    }

    /// The transport this scenario speaks.
    pub(super) fn transport(&self) -> Transport {
        self.transport
    }

    /// What the gateway is launched with.
    pub(super) fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The set-up, for a step that sets `what` in it: only before the
    /// gateway is launched.
    pub(super) fn before_launch(&mut self, what: &str) -> anyhow::Result<&mut Setup> {
        if self.life.running().is_some() {
            bail!("{what} must be set before the gateway is launched");
        }
        Ok(&mut self.setup)
    }

    /// Stops the gateway and ends the session; done after each scenario.
    /// What the gateway left (stderr, an exit of its own) is kept for the report.
    pub(super) fn teardown(&mut self) {
        self.raw = None;
        self.life.end();
        self.folders.finish();
        self.slot = None;
    }

    /// Has the gateway launched trusting `issuer`, the scenario's own
    /// authorization server; it is kept for no other scenario.
    pub(super) fn trust_own_issuer(&mut self, issuer: Arc<Issuer>) -> anyhow::Result<()> {
        self.before_launch("the authorization server")?
            .set_issuer(issuer);
        self.own_launches = true;
        Ok(())
    }

    /// Stops the gateway so the scenario can launch it again itself.
    pub(super) fn stop_to_restart(&mut self) {
        self.own_launches = true;
        self.teardown();
    }

    /// Moves the folder of the scenario's last gateway to `into` (see
    /// [`Folders::keep`]).
    pub(super) fn keep_files(&mut self, into: &Path) -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
        self.folders.keep(into)
    }

    /// Why the gateway did not come up in this scenario, if it did not.
    pub(super) fn start_failure(&self) -> Option<&StartFailure> {
        self.life.start_failure()
    }

    /// How the gateway ended at start-up, if it did: it never came up (as
    /// recorded at its launch), or, over stdio, it was launched and then
    /// exited before its handshake, which the failed session shows.
    pub(super) async fn ended_at_start(&mut self) -> Option<&StartFailure> {
        if let Life::Running(running) = &mut self.life {
            let failure = running.gateway.exit_within(EXIT_SEEN_WITHIN).await?;
            self.life = Life::FailedToStart(failure);
        }
        self.life.start_failure()
    }

    /// Why the latest launch did not come up (exited, silent, no handshake),
    /// for [`GatewayWorld::probe`](super::GatewayWorld::probe).
    pub(super) fn launch_failure(&self) -> Option<StartFailure> {
        self.life.launch_failure()
    }

    /// How the latest gateway was launched.
    pub(super) fn launched_as(&self) -> Option<&Invocation> {
        self.launched_as.as_ref()
    }

    /// What the gateway wrote on stderr, if it was launched.
    pub(super) fn stderr(&self) -> String {
        self.life.stderr()
    }

    /// The process group of the running gateway, if one is running.
    pub(super) fn running_group(&self) -> Option<i32> {
        self.life.running().and_then(|r| r.gateway.group())
    }

    /// What the running gateway wrote on stderr so far, if one is running.
    pub(super) fn running_stderr(&self) -> Option<String> {
        self.life.running().map(|r| r.gateway.stderr())
    }

    /// Why the scenario was not run (see [`Life::why_not_run`]).
    pub(super) fn why_not_run(&self) -> Option<String> {
        self.life.why_not_run()
    }

    /// Why what the scenario saw is no verdict (see [`Life::why_not_judged`]).
    pub(super) fn why_not_judged(&self) -> Option<String> {
        self.life
            .why_not_judged(self.start_under_test, self.exit_expected)
    }

    /// The gateway's MCP session, launching the gateway on the upstream at
    /// `base_url` first if needed.
    pub(super) async fn session(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<&McpClient> {
        loop {
            self.launched(base_url, notes).await?;
            let may_relaunch = self.may_relaunch();
            // The handshake ends the start-up: it gets the start-up window too.
            let within = self.start_timeout().max(CONNECT_TIMEOUT);
            let Life::Running(running) = &mut self.life else {
                bail!("no gateway");
            };
            if running.client.is_some() {
                break;
            }
            let client = match (running.gateway.mcp_url(), running.gateway.take_stdio()) {
                (Some(url), _) => {
                    let headers = running.gateway.client_headers(&[]);
                    McpClient::over_http(&url, self.setup.era(), &headers, within).await
                }
                (None, Some(pipes)) => McpClient::over_stdio(pipes, self.setup.era(), within).await,
                (None, None) => Err(anyhow!("the gateway's stdio session was already used")),
            };
            let client = match client {
                Ok(client) => client,
                Err(error) if running.served_before > 0 => {
                    // A kept gateway that cannot open another session is not
                    // this scenario's verdict: it gets a launch of its own.
                    self.life = Life::NotLaunched;
                    notes.add(format!(
                        "the gateway kept from an earlier scenario could not open a new session \
                         ({error:#}); one was launched for this scenario"
                    ));
                    continue;
                }
                Err(error)
                    if *self.setup.era() != Era::Discover && error.is::<EndpointRefused>() =>
                {
                    let status = error
                        .downcast_ref::<EndpointRefused>()
                        .map_or(0, |refused| refused.status);
                    return Err(self.refused_at_endpoint(status, &error).await);
                }
                Err(error) => {
                    // Launches that failed alike must read alike: one that
                    // is exiting is reported with its status and last words.
                    let unanswered = error.is::<HandshakeUnanswered>();
                    let exited = if unanswered {
                        running.gateway.exit_during_start_up(EXIT_SEEN_WITHIN).await
                    } else {
                        running.gateway.exit_within(EXIT_SEEN_WITHIN).await
                    };
                    if exited.is_none() && may_relaunch && error.is::<HandshakeTimedOut>() {
                        self.life = Life::NotLaunched;
                        self.relaunch("did not answer the MCP handshake", notes);
                        continue;
                    }
                    let failure = match exited {
                        // Gone before it answered a word, it did not start:
                        // the verdict an HTTP gateway gets whose port never
                        // opened. One that answered and then went (its
                        // stdin closes with the failed session) started.
                        Some(exited) if unanswered => {
                            // As below, the turn ends once the failure is known.
                            self.launch_failed(&exited);
                            self.slot = None;
                            self.life = Life::FailedToStart(exited.clone());
                            return Err(exited.into());
                        }
                        Some(exited) => exited,
                        None => {
                            let reason = format!("its MCP handshake failed: {error:#}");
                            running.gateway.failure(reason, None).await
                        }
                    };
                    running.failed_handshake = Some(failure.clone());
                    // The turn ends once the failure is known: the next
                    // launch is not made when it makes this one the last.
                    self.launch_failed(&failure);
                    self.slot = None;
                    // What the gateway said on stderr goes with the report.
                    return Err(error.context(format!(
                        "connecting to the gateway over {} failed",
                        self.transport
                    )));
                }
            };
            running.client = Some(client);
            self.slot = None;
            self.came_up();
        }
        let running = self.life.running().context("no gateway")?;
        running.client.as_ref().context("no session")
    }

    /// A session of its own whose every HTTP request carries `headers`.
    /// HTTP only.
    pub(super) async fn session_with_headers(
        &mut self,
        headers: &[(String, String)],
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<McpClient> {
        let url = self.mcp_url(base_url, notes).await?;
        let headers = self
            .life
            .running()
            .context("no gateway")?
            .gateway
            .client_headers(headers);
        McpClient::over_http(&url, self.setup.era(), &headers, CONNECT_TIMEOUT).await
    }

    /// A plain `initialize` answered by hand-driven HTTP with a status that
    /// lets no client in (see [`EndpointRefused`]) leaves the scenario not
    /// judged, as the SDK's handshake does.
    pub(super) async fn unless_refused_at_endpoint(&mut self) -> anyhow::Result<()> {
        let status = match &self.raw {
            Some(raw) => raw.last()?.status,
            None => return Ok(()),
        };
        if matches!(status, 401 | 403 | 404 | 405) {
            let answered = format!("a plain initialize was answered with HTTP {status}");
            return Err(self.refused_at_endpoint(status, &answered).await);
        }
        Ok(())
    }

    /// The gateway's MCP endpoint answered the handshake with `status`
    /// (401, 403, 404 or 405): how it was reached is wrong, not a rule. The
    /// scenario is not judged, with what to check.
    async fn refused_at_endpoint(
        &mut self,
        status: u16,
        seen: &dyn std::fmt::Display,
    ) -> anyhow::Error {
        let Life::Running(running) = &mut self.life else {
            return anyhow!("{seen}");
        };
        let url = running.gateway.mcp_url().unwrap_or_default();
        let hint = match (status, running.gateway.client_auth()) {
            (401 | 403, None) => {
                "does it let in only clients it knows? --client-auth gives the harness's \
                 client a credential"
            }
            (401 | 403, Some(_)) => {
                "it did not take the client credential where --client-auth put it"
            }
            _ => "does it serve MCP at another path? --endpoint says which",
        };
        let reason = format!("its MCP endpoint {url} let no client in ({hint}): {seen:#}");
        let failure = running.gateway.failure(reason, None).await;
        self.launch_failed(&failure);
        self.slot = None;
        self.life = Life::FailedToStart(failure.clone());
        failure.into()
    }

    /// The scenario's hand-driven HTTP client of the gateway's MCP endpoint
    /// (one per scenario, so it keeps its session and last answer). HTTP only.
    pub(super) async fn raw_http(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<&mut RawHttp> {
        if self.raw.is_none() {
            let url = self.mcp_url(base_url, notes).await?;
            let auth = self
                .life
                .running()
                .and_then(|r| r.gateway.client_auth())
                .cloned();
            self.raw = Some(RawHttp::new(url, auth));
        }
        self.raw.as_mut().context("no HTTP client")
    }

    /// A hand-driven HTTP client of its own, in place of the scenario's
    /// one: no session, and showing `shown` of the client credential.
    pub(super) async fn another_raw_http(
        &mut self,
        shown: Shown,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<&mut RawHttp> {
        let url = self.mcp_url(base_url, notes).await?;
        let mut raw = RawHttp::new(url, self.client_auth().cloned());
        raw.show(shown);
        Ok(self.raw.insert(raw))
    }

    /// The credential the gateway wants of its clients (`--client-auth`),
    /// if the run gives one: the running gateway's own (under `--client-auth
    /// oauth`, its token), else the run's.
    pub(super) fn client_auth(&self) -> Option<&ClientAuth> {
        if let Some(auth) = self.life.running().and_then(|r| r.gateway.client_auth()) {
            return Some(auth);
        }
        self.launcher
            .as_ref()?
            .target
            .template(Transport::Http)?
            .client_auth()
    }

    /// The gateway's MCP endpoint, launching it if needed. HTTP only.
    async fn mcp_url(&mut self, base_url: &str, notes: &mut Notes) -> anyhow::Result<String> {
        self.launched(base_url, notes).await?;
        // Hand-driven HTTP has no handshake to wait for: accepting is starting.
        self.slot = None;
        let running = self.life.running().context("no gateway")?;
        running.gateway.mcp_url().with_context(|| {
            format!(
                "this needs the http transport, the scenario speaks {}",
                self.transport
            )
        })
    }

    /// Launches the gateway expecting it to refuse the document: it must exit
    /// on its own, with a failure status, within the start-up time.
    pub(super) async fn start_refused(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<StartFailure> {
        self.exit_expected = true;
        // Refusing the document takes a launch of its own: a kept gateway is stopped.
        drop(self.life.take_kept());
        let failure = match self.spawn(base_url, notes).await? {
            Err(failure) if failure.status.is_some() => failure,
            Err(failure) => {
                bail!("the gateway should have refused its document; instead {failure}")
            }
            Ok(mut running) => match self.exits_at_start(&mut running.gateway).await {
                Some(failure) => failure,
                None => {
                    // Over stdio, alive is not up: a hang is alive too.
                    if self.transport == Transport::Http {
                        self.came_up();
                    }
                    self.slot = None;
                    self.life = Life::Running(running);
                    bail!(
                        "the gateway is running ({}) although it should have refused its document",
                        match self.transport {
                            Transport::Http => "its port accepts connections".to_owned(),
                            Transport::Stdio => format!(
                                "still alive {} s after its launch",
                                self.start_timeout().as_secs_f64()
                            ),
                        }
                    )
                }
            },
        };
        self.slot = None;
        if failure.status.is_some_and(|s| s.success()) {
            bail!(
                "the gateway exited with success although it refused its document:\n{}",
                failure.stderr
            );
        }
        Ok(failure)
    }

    /// An HTTP gateway that accepts connections has started; a stdio one gets
    /// the start-up time to exit.
    async fn exits_at_start(&self, gateway: &mut Gateway) -> Option<StartFailure> {
        match self.transport {
            Transport::Http => None,
            Transport::Stdio => gateway.exit_within(self.start_timeout()).await,
        }
    }

    /// The start-up window of this scenario's next launch: the run's, twice
    /// that for a launch made again.
    fn start_timeout(&self) -> Duration {
        if self.relaunched {
            self.start_window * 2
        } else {
            self.start_window
        }
    }

    /// Whether a launch that stayed silent through its window is made once
    /// more: only for a gateway seen to come up in this run (so the silence
    /// is most likely a busy machine, not a gateway that cannot start), once
    /// per scenario, and never where the scenario expects the gateway to
    /// exit. Where starting is under test it is made too: silence is no
    /// verdict there either (only an exit is), so a gateway that hangs on
    /// the document is still not judged, only later, while one the machine
    /// slowed down gets judged.
    fn may_relaunch(&self) -> bool {
        !self.relaunched
            && !self.exit_expected
            && !self.probe
            && self
                .health
                .as_ref()
                .is_some_and(|health| health.has_come_up(self.transport))
    }

    /// Notes, and counts for the run, a launch made again after `silence`.
    fn relaunch(&mut self, silence: &str, notes: &mut Notes) {
        let window = self.start_timeout();
        self.relaunched = true;
        if let Some(health) = &self.health {
            health.relaunched();
        }
        notes.add(format!(
            "the first launch {silence} within {} s although this gateway has started in this \
             run: it was launched once more, with {} s",
            window.as_secs_f64(),
            self.start_timeout().as_secs_f64()
        ));
    }

    async fn launched(&mut self, base_url: &str, notes: &mut Notes) -> anyhow::Result<()> {
        if self.life.running().is_none() {
            if let Some(kept) = self.kept_that_fits(base_url) {
                self.use_kept(*kept, notes);
                return Ok(());
            }
            let running = match self.spawn(base_url, notes).await? {
                Ok(running) => running,
                Err(failure) => {
                    self.launch_failed(&failure);
                    self.life = Life::FailedToStart(failure.clone());
                    return Err(failure.into());
                }
            };
            if self.transport == Transport::Http {
                self.came_up();
            }
            self.life = Life::Running(running);
        }
        Ok(())
    }

    /// Writes the document and starts the gateway on the upstream at
    /// `base_url`; the outer error is the harness's, the inner one the
    /// gateway's.
    async fn spawn(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<Result<Box<Running>, StartFailure>> {
        let document = self.setup.document_for(base_url)?;
        let credential_in = self.setup.credential_in(&document);
        let launcher = Arc::clone(
            self.launcher
                .as_ref()
                .context("the world was not configured")?,
        );
        let template = launcher.target.template(self.transport).with_context(|| {
            format!(
                "the gateway under test offers no {} transport",
                self.transport
            )
        })?;
        if let Some(why) = credential_in
            .as_deref()
            .and_then(|place| launcher.target.cannot_take_credential_at(place))
        {
            let refusal = Refusal::Placement(why);
            self.life = Life::Refused(refusal.clone());
            return Err(refusal.into());
        }
        let dir = ScenarioDir::create()?;
        let written = self.setup.write(&dir, &document, base_url)?;
        let credential = self.setup.credential().to_owned();
        // What getting a gateway by launching costs, its turn included.
        let asked = Instant::now();
        // The start-up window opens with the launch, not while waiting for a turn.
        // A turn still held (a launch made again after a silent handshake)
        // is given back first: two launches that each wait for another turn
        // while holding theirs would wait for ever.
        self.slot = None;
        self.slot = Some(launcher.slot().await);
        let refused = self.health.as_ref().map_or(Ok(()), |health| {
            health.may_launch(self.transport, self.probe)
        });
        if let Err(refusal) = refused {
            self.slot = None;
            self.life = Life::Refused(refusal.clone());
            return Err(refusal.into());
        }
        let key = self.launch_key(base_url);
        self.count_launch();
        // A gateway built per document is built once, under this launch's turn.
        let prepared = match &self.preparation {
            Some(step) => {
                let document: Vec<(&Path, &str)> = written
                    .files
                    .iter()
                    .map(|(path, text)| (path.as_path(), text.as_str()))
                    .collect();
                Some(step.prepared(&written.openapi, &document).await)
            }
            None => None,
        };
        let own_issuer = self.setup.issuer().cloned();
        let launch = Launch {
            openapi: &written.openapi,
            base_url,
            credential: &credential,
            credential_in: credential_in.as_deref(),
            prepared: prepared
                .as_ref()
                .and_then(|p| p.as_ref().ok())
                .map(PathBuf::as_path),
            issuer: own_issuer.as_ref(),
        };
        let mut started = match &prepared {
            Some(Err(refused)) => Err(refused.clone()),
            _ => Gateway::start(template, self.transport, launch, self.start_timeout()).await,
        };
        if started.as_ref().is_err_and(|f| f.timed_out) && self.may_relaunch() {
            self.relaunch("did not accept TCP connections", notes);
            self.count_launch();
            started = Gateway::start(template, self.transport, launch, self.start_timeout()).await;
        }
        if let (Ok(_), Some(pool)) = (&started, &self.pool) {
            pool.launched_in(asked.elapsed());
            if let Some(wanted) = &self.wanted {
                pool.came_up(wanted);
            }
        }
        self.launched_as = Some(match &started {
            Ok(gateway) => gateway.invocation().clone(),
            Err(failure) => failure.invocation.clone(),
        });
        self.folders.launched(dir);
        Ok(started.map(|gateway| Box::new(Running::new(gateway, key, 0))))
    }

    fn count_launch(&self) {
        if let Some(health) = &self.health {
            health.launched();
        }
    }

    /// A gateway that was to come up has.
    fn came_up(&self) {
        if let Some(health) = &self.health {
            health.came_up(self.transport);
        }
    }

    /// A gateway that was to come up did not; launches where starting is
    /// itself under test (a refused document) are the scenario's matter.
    fn launch_failed(&self, failure: &StartFailure) {
        if let Some(health) = &self.health {
            if !self.start_under_test && !self.exit_expected {
                health.launch_failed(self.transport, failure);
            }
        }
    }

    /// What the next launch would be made of, on the upstream at `base_url`.
    fn launch_key(&self, base_url: &str) -> LaunchKey {
        LaunchKey {
            wanted: self.setup.wanted(),
            base_url: base_url.to_owned(),
        }
    }

    /// Takes a kept gateway launched on the document just set, with its
    /// upstream, in place of this scenario's fresh one; only while nothing
    /// was set up on that one yet. Waits for one a scenario under way uses.
    pub(super) async fn take_kept(&mut self, upstream: &mut ScenarioUpstream) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        if self.transport != Transport::Http
            || upstream.used()
            || self.probe
            || self.wanted.is_some()
            || self.life.running().is_some()
        {
            return;
        }
        let wanted = self.setup.wanted();
        let taken = pool
            .take(&wanted, pool.patience(self.start_timeout()))
            .await;
        self.wanted = Some(wanted);
        let Some(Kept {
            upstream: kept_upstream,
            gateway,
        }) = taken
        else {
            return;
        };
        upstream
            .take_kept(kept_upstream, self.setup.base_path())
            .await;
        self.life = Life::Kept(Box::new(gateway));
    }

    /// The kept gateway, if it is still running and the scenario's launch
    /// would be made of the same (a step after the document may have set
    /// another credential); else it is stopped and `None`.
    fn kept_that_fits(&mut self, base_url: &str) -> Option<Box<KeptGateway>> {
        let mut kept = self.life.take_kept()?;
        // Where no launch would be made (`--max-failures` reached), none is
        // used either: the scenario is not run, as with `--isolate`.
        let may_launch = self
            .health
            .as_ref()
            .is_none_or(|health| health.may_launch(self.transport, self.probe).is_ok());
        let fits = may_launch
            && !self.own_launches
            && !self.exit_expected
            && !self.start_under_test
            && kept.key == self.launch_key(base_url)
            && kept.gateway.exit_status().is_none();
        fits.then_some(kept)
    }

    /// Serves the scenario with a kept gateway, noted in its report.
    fn use_kept(&mut self, kept: KeptGateway, notes: &mut Notes) {
        notes.add(format!(
            "the gateway had served {} scenario(s) with this document before this one \
             (gateways are kept between scenarios; --isolate launches one per \
             scenario, as the rerun command does)",
            kept.served
        ));
        if let Some(pool) = &self.pool {
            pool.reused();
        }
        self.launched_as = Some(kept.gateway.invocation().clone());
        self.folders.launched(kept.dir);
        self.life = Life::Running(Box::new(Running::new(kept.gateway, kept.key, kept.served)));
    }

    /// Hands the gateway and its upstream back to the pool after a scenario
    /// that left it running with every call answered (`unanswered` says
    /// otherwise), unless the scenario launched or stopped gateways as part
    /// of its rule (see [`crate::pool`]).
    pub(super) async fn hand_back(&mut self, upstream: &mut ScenarioUpstream, unanswered: bool) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        if let Some(kept) = self.keepable(upstream, unanswered).await {
            pool.give_back(kept);
        }
        if let Some(wanted) = self.wanted.take() {
            pool.release(&wanted);
        }
    }

    /// The gateway and upstream to keep after the scenario, its upstream
    /// reset, if they may be kept.
    async fn keepable(
        &mut self,
        upstream: &mut ScenarioUpstream,
        unanswered: bool,
    ) -> Option<Kept> {
        // A gateway spoken to by hand (raw HTTP: a refused Origin, a bad
        // header) may be left mid-request: openapi-mcp-server 1.16.1 crashes
        // on its next request after refusing a foreign Origin.
        let may_keep = !unanswered
            && self.raw.is_none()
            && !self.own_launches
            && !self.start_under_test
            && !self.exit_expected
            && !self.probe
            && self.transport == Transport::Http
            && self.folders.has_running()
            && upstream.is_here()
            && match &mut self.life {
                Life::Running(running) => running.gateway.exit_status().is_none(),
                _ => false,
            };
        if !may_keep {
            return None;
        }
        // What a report of this scenario shows, kept before the reset.
        let running = self.life.hand_over()?;
        let dir = self.folders.take_running()?;
        // The session ends as at teardown: dropped, which closes its
        // connections (a polite close waits on rmcp for up to 2 s).
        self.raw = None;
        self.slot = None;
        let upstream = upstream.hand_back().await?;
        self.folders.handed_back(dir.path());
        let Running {
            gateway,
            key,
            served_before,
            ..
        } = *running;
        Some(Kept {
            upstream,
            gateway: KeptGateway {
                key,
                gateway,
                dir,
                served: served_before,
            },
        })
    }
}
