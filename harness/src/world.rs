//! One scenario's world: its own mock upstream, its document, and the gateway
//! launched from it at the first step that needs it. The world ties its
//! parts, each a module of its own: the scenario's [`upstream`], the
//! gateway's [`lifecycle`], the tool [`calls`] and names, and the
//! [`verdict`]'s bookkeeping.

mod calls;
mod lifecycle;
mod upstream;
mod verdict;

use std::{
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{bail, Context as _};
use mock_upstream::Upstream;
use serde_json::Value;

pub use self::verdict::Diagnostics;
use self::{
    calls::{call_request, Calls},
    lifecycle::Lifecycle,
    upstream::ScenarioUpstream,
    verdict::Verdict,
};
use crate::{
    client::{CallOutcome, Era, McpClient},
    client_auth::{self, ClientAuth, Shown},
    health::Health,
    issuer::Issuer,
    lag,
    launch::{Launcher, StartFailure, Transport},
    pool::Pool,
    prepare::Preparation,
    raw::RawHttp,
};

/// The state of one scenario. Everything it started (gateway process, MCP
/// session, temp files, upstream) ends when it is torn down or dropped.
#[derive(cucumber::World)]
#[world(init = Self::new)]
pub struct GatewayWorld {
    /// The scenario's mock upstream, or the one a kept gateway came with.
    upstream: ScenarioUpstream,
    /// The gateway: what it is launched with, and where it is in its life.
    gateway: Lifecycle,
    calls: Calls,
    verdict: Verdict,
}

/// What the runner chooses for a scenario before it starts.
pub(crate) struct Settings {
    pub(crate) launcher: Arc<Launcher>,
    /// The run's launch record.
    pub(crate) health: Arc<Health>,
    /// Gateways kept between scenarios; `None` with `--isolate`.
    pub(crate) pool: Option<Arc<Pool>>,
    /// The gateway's build per document (`--prepare`), if it has one.
    pub(crate) preparation: Option<Preparation>,
    pub(crate) transport: Transport,
    /// Whether the gateway is told where the credential goes (see [`crate::placement`]).
    pub(crate) hint_credential: bool,
    /// Whether a tool the gateway names otherwise is found by its operation.
    pub(crate) resolve_names: bool,
    /// The rules the scenario judges (its `@TC-...` tags).
    pub(crate) rules: Vec<String>,
}

impl fmt::Debug for GatewayWorld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GatewayWorld")
            .field("transport", &self.gateway.transport())
            .field("era", self.gateway.setup().era())
            .field("upstream", &self.upstream)
            .field("last_call", &self.calls.last_call().ok())
            .field("gateway_stderr", &self.gateway.running_stderr())
            .finish_non_exhaustive()
    }
}

/// The scenario's life: set up by the runner, torn down and reported after.
impl GatewayWorld {
    async fn new() -> anyhow::Result<Self> {
        Ok(Self {
            upstream: ScenarioUpstream::start().await?,
            gateway: Lifecycle::new(),
            calls: Calls::new(),
            verdict: Verdict::new(),
        })
    }

    /// Sets the scenario up as the runner chose; done before each scenario.
    pub(crate) fn configure(&mut self, settings: Settings) {
        self.gateway.configure(
            settings.launcher,
            settings.health,
            settings.pool,
            settings.preparation,
            settings.transport,
            settings.hint_credential,
        );
        self.calls.resolve_names(settings.resolve_names);
        self.verdict.judge(settings.rules);
    }

    /// Whether the gateway comes up over `transport` on a plain document,
    /// for a run in which no launch did: then what its scenarios saw (a
    /// refusal, say) shows the gateway ran. The failure, if it did not.
    pub(crate) async fn probe(
        launcher: Arc<Launcher>,
        health: Arc<Health>,
        transport: Transport,
    ) -> anyhow::Result<Option<StartFailure>> {
        let mut world = Self::new().await?;
        world.configure(Settings {
            launcher,
            health,
            pool: None,
            preparation: None,
            transport,
            hint_credential: true,
            resolve_names: true,
            rules: Vec::new(),
        });
        world.gateway.only_probe();
        world.set_document(PROBE_DOCUMENT).await?;
        let failure = match world.start().await {
            Ok(()) => None,
            Err(error) => Some(world.gateway.launch_failure().ok_or(error)?),
        };
        world.teardown();
        Ok(failure)
    }

    /// Waits until the gateway has written nothing on stderr for a moment
    /// (bounded), its scenario having failed: a gateway that writes its log
    /// in batches may still hold the failing call's line. The report reads
    /// its stderr once the scenario is torn down.
    pub(crate) async fn settle_stderr(&mut self) {
        self.gateway.settle_stderr().await;
    }

    /// Hands the gateway and its upstream back to the pool after a scenario
    /// that left it running with every call answered (see [`crate::pool`]).
    pub(crate) async fn hand_back(&mut self) {
        let unanswered = self.calls.unanswered();
        self.gateway.hand_back(&mut self.upstream, unanswered).await;
    }

    /// Stops the gateway and ends the session; done after each scenario.
    pub(crate) fn teardown(&mut self) {
        self.gateway.teardown();
    }

    /// Moves the folder of the scenario's last gateway to `into`: where it
    /// was, and where it is now; `None` when the scenario launched nothing.
    pub(crate) fn keep_files(&mut self, into: &Path) -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
        self.gateway.keep_files(into)
    }

    /// What the report shows besides the failed step; see [`Diagnostics`].
    pub fn diagnostics(&self) -> Diagnostics {
        Diagnostics {
            not_judged: self.gateway.why_not_judged(),
            not_run: self.gateway.why_not_run(),
            launch: self.gateway.launched_as().cloned(),
            calls: self.calls.made().to_vec(),
            unseen: self.verdict.unseen().cloned(),
            notes: self.verdict.noted().to_vec(),
            stderr: self.gateway.stderr(),
            upstream: self.upstream.requests(),
        }
    }

    /// The error codes this scenario's calls carried, in order.
    pub fn codes_seen(&self) -> Vec<String> {
        self.calls.codes_seen()
    }
}

/// The verdict's bookkeeping (see [`verdict`]).
impl GatewayWorld {
    /// Whether this scenario judges `rule`: then what breaks it is a
    /// verdict here, never a reason to leave the scenario not judged.
    pub fn judges(&self, rule: &str) -> bool {
        self.verdict.judges(rule)
    }

    /// Whether the scenario judges a rule whose ID starts with `prefix`
    /// (`TC-ARG-`).
    pub fn judges_rules_of(&self, prefix: &str) -> bool {
        self.verdict.judges_rules_of(prefix)
    }

    /// Ends the step without a verdict: what the scenario needed to see its
    /// rule is missing because the gateway breaks `judged_by`, whose own
    /// scenarios judge that. The step returns what this gives:
    /// `return Err(world.not_judged("TC-NAME-003", "...").into())`.
    pub fn not_judged(&mut self, judged_by: &str, why: impl fmt::Display) -> anyhow::Error {
        self.verdict.not_judged(judged_by, why)
    }

    /// Ends the step without a verdict: the machine running the check was
    /// too busy to time what the scenario judges (see [`crate::lag`]).
    pub fn too_busy(&mut self, why: impl fmt::Display) -> anyhow::Error {
        self.verdict.too_busy(why)
    }

    /// Ends the step without a verdict: the gateway gives the scenario
    /// nothing its rule applies to, as `why` says.
    pub fn cannot_judge(&mut self, why: impl fmt::Display) -> anyhow::Error {
        self.verdict.cannot_judge(why)
    }

    /// Passes `found` on, unless it failed on a schema no validator can use
    /// as published: see [`Verdict::unless_unusable`].
    pub fn unless_unusable<T>(&mut self, found: anyhow::Result<T>) -> anyhow::Result<T> {
        self.verdict.unless_unusable(found)
    }

    /// A verdict was reached on what could be seen, so what could not be
    /// seen no longer makes the scenario not judged.
    pub fn judged_after_all(&mut self) {
        self.verdict.judged_after_all();
    }
}

/// The upstream and what the gateway is launched with, set by the steps.
impl GatewayWorld {
    /// This scenario's mock upstream.
    pub fn upstream(&self) -> &Upstream {
        self.upstream.get()
    }

    /// Answers every request no stub matches with `status` (below every
    /// stub of a step), on a kept gateway's upstream too.
    pub async fn answer_every_request_with(&mut self, status: u16) {
        self.upstream.answer_every_request_with(status).await;
    }

    /// Puts the API under `path` (such as `/api/v1`, with a query after it
    /// where the base URL has one) for the gateway this scenario launches
    /// or takes. Kept in the set-up, not only set on the upstream, so that a
    /// gateway kept from a scenario with the same path can serve this one.
    pub fn set_base_path(&mut self, path: &str) -> anyhow::Result<()> {
        self.gateway
            .before_launch("the base path")?
            .set_base_path(path);
        self.upstream.set_base_path(path);
        Ok(())
    }

    /// The transport this scenario speaks.
    pub fn transport(&self) -> Transport {
        self.gateway.transport()
    }

    /// Sets the OpenAPI document (JSON or YAML text). `{{base_url}}` in it
    /// becomes the mock upstream's base URL. A gateway kept from an earlier
    /// scenario on the same may be taken for it.
    pub async fn set_document(&mut self, text: &str) -> anyhow::Result<()> {
        self.gateway
            .before_launch("the document")?
            .set_document(text);
        self.gateway.take_kept(&mut self.upstream).await;
        Ok(())
    }

    /// Puts the document in `folder` (a relative path) of the scenario's
    /// folder, so a file beside it can be outside the document's folder tree.
    pub fn set_document_folder(&mut self, folder: &str) -> anyhow::Result<()> {
        self.gateway
            .before_launch("the document's folder")?
            .set_document_folder(folder)
    }

    /// Adds a file of a split document at `path`, relative to the document's
    /// folder (`../x.yaml` is allowed while it stays in the scenario's
    /// folder). `{{base_url}}` in it becomes the mock upstream's base URL.
    pub fn add_file(&mut self, path: &str, text: &str) -> anyhow::Result<()> {
        self.gateway
            .before_launch("the document's files")?
            .add_file(path, text)
    }

    /// Sets the credential stored for the gateway.
    pub fn set_credential(&mut self, credential: &str) -> anyhow::Result<()> {
        self.gateway
            .before_launch("the credential")?
            .set_credential(credential);
        Ok(())
    }

    /// The credential stored for the gateway.
    pub fn credential(&self) -> &str {
        self.gateway.setup().credential()
    }

    /// Chooses the MCP lifecycle of the session opened at launch.
    pub fn set_era(&mut self, era: Era) -> anyhow::Result<()> {
        self.gateway.before_launch("the protocol era")?.set_era(era);
        Ok(())
    }
}

/// The gateway's launch and its session (see [`lifecycle`]).
impl GatewayWorld {
    /// Launches the gateway and opens the MCP session, if not done yet.
    pub async fn start(&mut self) -> anyhow::Result<()> {
        self.session().await.map(drop)
    }

    /// Stops the gateway and launches it again on the same document.
    pub async fn restart(&mut self) -> anyhow::Result<()> {
        self.gateway.stop_to_restart();
        self.start().await
    }

    /// Launches the gateway expecting it to refuse the document: it must exit
    /// on its own, with a failure status, within the start-up time.
    pub async fn start_refused(&mut self) -> anyhow::Result<StartFailure> {
        let base_url = self.upstream.base_url();
        self.gateway
            .start_refused(&base_url, self.verdict.notes())
            .await
    }

    /// Puts starting itself under test: a gateway that exits at start-up in
    /// this scenario breaks the scenario's rule, rather than leaving it unjudged.
    pub fn put_start_under_test(&mut self) {
        self.gateway.put_start_under_test();
    }

    /// Why the gateway did not come up in this scenario, if it did not.
    pub fn start_failure(&self) -> Option<&StartFailure> {
        self.gateway.start_failure()
    }

    /// How the gateway ended at start-up, if it did: it never came up, or,
    /// over stdio, it exited before its handshake.
    pub async fn ended_at_start(&mut self) -> Option<&StartFailure> {
        self.gateway.ended_at_start().await
    }

    /// The protocol version the gateway agreed to for this session.
    pub async fn protocol_version(&mut self) -> anyhow::Result<String> {
        self.session()
            .await?
            .protocol_version()
            .context("the gateway announced no protocol version")
    }

    /// The bytes of the largest SSE event's data the scenario's MCP session
    /// received (TC-PROTO-009).
    pub async fn largest_sse_event(&mut self) -> anyhow::Result<usize> {
        Ok(self.session().await?.largest_event())
    }

    /// The lines the stdio gateway wrote on stdout that were not JSON-RPC
    /// messages: how many, and the first (TC-PROTO-001).
    pub async fn stdout_strays(&mut self) -> anyhow::Result<(usize, Option<String>)> {
        if self.transport() != Transport::Stdio {
            bail!("only a stdio gateway has its stdout read");
        }
        Ok(self.session().await?.stdout_strays())
    }

    /// The scenario's hand-driven HTTP client of the gateway's MCP endpoint
    /// (one per scenario, so it keeps its session and last answer). HTTP only.
    pub async fn raw_http(&mut self) -> anyhow::Result<&mut RawHttp> {
        let base_url = self.upstream.base_url();
        self.gateway.raw_http(&base_url, self.verdict.notes()).await
    }

    /// A hand-driven HTTP client of its own, in place of the scenario's
    /// one: no session yet, and showing `shown` of the client credential
    /// (TC-PROTO-010). HTTP only.
    pub async fn another_raw_http(&mut self, shown: Shown) -> anyhow::Result<&mut RawHttp> {
        let base_url = self.upstream.base_url();
        self.gateway
            .another_raw_http(shown, &base_url, self.verdict.notes())
            .await
    }

    /// The credential the gateway wants of its clients (`--client-auth`),
    /// if the run gives one.
    pub fn client_auth(&self) -> Option<&ClientAuth> {
        self.gateway.client_auth()
    }

    /// A plain `initialize` answered by hand-driven HTTP with a status that
    /// lets no client in leaves the scenario not judged, as the SDK's
    /// handshake does.
    pub async fn unless_refused_at_endpoint(&mut self) -> anyhow::Result<()> {
        self.gateway.unless_refused_at_endpoint().await
    }

    /// The MCP session, launching the gateway first if needed.
    async fn session(&mut self) -> anyhow::Result<&McpClient> {
        let base_url = self.upstream.base_url();
        self.gateway.session(&base_url, self.verdict.notes()).await
    }
}

/// Tools, their names, and calls (see [`calls`]).
impl GatewayWorld {
    /// Every tool the gateway lists, as JSON.
    pub async fn list_tools(&mut self) -> anyhow::Result<Vec<Value>> {
        self.session().await?.list_tools().await
    }

    /// The listed tool the rules call `name`, if there is one (see
    /// [`Self::tool_name`]).
    pub async fn tool(&mut self, name: &str) -> anyhow::Result<Option<Value>> {
        let name = self.tool_name(name).await?;
        Ok(self
            .list_tools()
            .await?
            .into_iter()
            .find(|tool| tool["name"] == name.as_str()))
    }

    /// The gateway's name for the tool the rules call `name`: `name` itself
    /// when listed; else, outside the naming rules' own scenarios, the tool
    /// of the same operation as [`crate::naming::find`] tells it by what it
    /// is, with a note for the report. A gateway that names its tools
    /// otherwise and leaves that tool unknown leaves the scenario not
    /// judged: its names are the naming rule's matter.
    pub async fn tool_name(&mut self, name: &str) -> anyhow::Result<String> {
        if let Some(known) = self.calls.found_name(name) {
            return Ok(known.to_owned());
        }
        let tools = self.list_tools().await?;
        let setup = self.gateway.setup();
        let document = setup.document().unwrap_or_default();
        let beside = |path: &str| setup.file_beside(path).map(str::to_owned);
        self.calls
            .gateway_name(name, &tools, document, &beside, &mut self.verdict)
    }

    /// The gateway's name for a tool already found (see [`Self::tool_name`]).
    pub fn known_tool_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.calls.found_name(name).unwrap_or(name)
    }

    /// Calls a tool; the outcome is also kept as [`Self::last_call`].
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> anyhow::Result<&CallOutcome> {
        let name = self.tool_name(name).await?;
        let arguments = self.as_the_gateway_names(&name, arguments).await?;
        let request = call_request(&name, &arguments);
        let group = self.gateway.running_group();
        let session = self.session().await?;
        let waiting = lag::CpuWait::start(group);
        let started = Instant::now();
        let called = session.call_tool(&name, arguments).await;
        let took = started.elapsed();
        self.calls.took(took, waiting.so_far());
        self.calls.record(request, called, self.verdict.notes())
    }

    /// Calls a tool in a session of its own whose every HTTP request carries
    /// `headers` (the agent's own `Authorization`, `Cookie`, ...). HTTP only.
    pub async fn call_tool_with_headers(
        &mut self,
        name: &str,
        arguments: Value,
        headers: &[(String, String)],
    ) -> anyhow::Result<&CallOutcome> {
        let name = self.tool_name(name).await?;
        let arguments = self.as_the_gateway_names(&name, arguments).await?;
        let request = call_request(&name, &arguments);
        let base_url = self.upstream.base_url();
        let client = self
            .gateway
            .session_with_headers(headers, &base_url, self.verdict.notes())
            .await?;
        let called = client.call_tool(&name, arguments).await;
        client.close().await;
        self.calls.record(request, called, self.verdict.notes())
    }

    /// `arguments` under the names the gateway gives them (see
    /// [`crate::naming::as_the_gateway_names`]), with a note for the report.
    /// Not in the argument rules' own scenarios, whose matter the names are.
    /// A body the tool takes in no way leaves the scenario not judged.
    async fn as_the_gateway_names(
        &mut self,
        tool: &str,
        arguments: Value,
    ) -> anyhow::Result<Value> {
        self.calls.forget_places();
        let Value::Object(given) = arguments else {
            return Ok(arguments);
        };
        if !self.renames_arguments() {
            return Ok(Value::Object(given));
        }
        let tools = self.list_tools().await?;
        self.calls
            .as_the_gateway_names(tool, given, &tools, &mut self.verdict)
    }

    /// Whether calls give arguments under the gateway's names and places:
    /// not in the argument rules' own scenarios, whose matter those are.
    pub fn renames_arguments(&self) -> bool {
        self.calls.renames_arguments(&self.verdict)
    }

    /// The pointers a place named in the latest call's answer may take:
    /// see [`Calls::as_the_gateway_placed`].
    pub fn as_the_gateway_placed(&self, pointer: &str) -> Vec<String> {
        self.calls.as_the_gateway_placed(pointer)
    }

    /// The outcome of the latest tool call.
    pub fn last_call(&self) -> anyhow::Result<&CallOutcome> {
        self.calls.last_call()
    }

    /// How long the latest tool call took (calls over the scenario's session).
    pub fn last_call_took(&self) -> anyhow::Result<Duration> {
        self.calls.last_call_took()
    }

    /// When the latest tool call was sent, and when its answer came.
    pub fn last_call_span(&self) -> anyhow::Result<(std::time::Instant, std::time::Instant)> {
        self.calls.last_call_span()
    }

    /// How long the gateway's threads waited for a CPU
    /// during the latest tool call (see [`lag::CpuWait`]).
    pub fn last_call_waited(&self) -> Duration {
        self.calls.last_call_waited()
    }
}

/// The authorization server the gateway trusts (`--client-auth oauth`).
impl GatewayWorld {
    /// The scenario's own authorization server, else the run's; a step
    /// that needs one in a run without `--client-auth oauth` (its scenario
    /// not tagged for it) fails.
    pub fn issuer(&self) -> anyhow::Result<Arc<Issuer>> {
        if let Some(own) = self.gateway.setup().issuer() {
            return Ok(Arc::clone(own));
        }
        self.client_auth()
            .and_then(ClientAuth::issuer)
            .cloned()
            .with_context(|| {
                format!(
                    "this step needs an authorization server, and {} (tag the scenario @{} to \
                     have it not run)",
                    client_auth::oauth_not_run_reason(),
                    client_auth::OAUTH_TAG
                )
            })
    }

    /// Launches the gateway trusting an authorization server of the
    /// scenario's own, whose keys the scenario may change; never kept for
    /// another scenario.
    pub async fn trust_own_issuer(&mut self) -> anyhow::Result<Arc<Issuer>> {
        let own = self.issuer()?.another().await?;
        self.gateway.trust_own_issuer(Arc::clone(&own))?;
        Ok(own)
    }

    /// Adds what the scenario's report should mention besides its verdict.
    pub fn note(&mut self, note: String) {
        self.verdict.notes().add(note);
    }

    /// Starts timing how long the gateway's processes wait for a CPU.
    pub fn cpu_wait(&self) -> lag::CpuWait {
        lag::CpuWait::start(self.gateway.running_group())
    }
}

/// The document of [`GatewayWorld::probe`]: one operation, nothing unusual.
const PROBE_DOCUMENT: &str = r#"openapi: 3.0.3
info: {title: Probe, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses: {"200": {description: ok}}
"#;
