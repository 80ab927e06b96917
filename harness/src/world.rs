//! One scenario's world: its own mock upstream, its document, and the gateway
//! launched from it at the first step that needs it.

use std::{
    cell::Cell,
    collections::{BTreeSet, HashMap},
    fmt,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, Context as _};
use mock_upstream::Upstream;
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;
use wiremock::{matchers::any, Mock, ResponseTemplate};

use crate::{
    client::{CallOutcome, EndpointRefused, Era, HandshakeTimedOut, McpClient},
    folder::{inside_scenario, ScenarioDir},
    health::{Health, Refusal},
    json::UnusableSchema,
    launch::{Gateway, Invocation, Launch, Launcher, StartFailure, Transport},
    naming, placement,
    pool::{KeptGateway, LaunchKey, Pool, Wanted},
    prepare::Preparation,
    raw::RawHttp,
};

/// The rule that input schemas are JSON Schema 2020-12 a validator can use,
/// self-contained.
const SELF_CONTAINED: &str = "TC-SCHEMA-002";

/// The credential the harness stores for every gateway unless a step sets
/// another. Distinctive, so masking checks cannot match by accident, and
/// holding `/`, `+`, `=` and `@`, which percent-encoding changes, so a URL
/// that shows it encoded is caught too. Nothing in it needs a JSON escape:
/// a JSON echo of it is the plain credential, which every gateway must mask.
pub const DEFAULT_CREDENTIAL: &str = "sk/conformance+3f9a=7c1e@x";

/// How long a gateway whose session failed gets to show that it exited.
const EXIT_SEEN_WITHIN: Duration = Duration::from_secs(1);

/// The body of the upstream's answer to a request no step stubbed: JSON,
/// which every gateway can read (some read every answer as JSON and fail
/// on anything else).
pub const UNSTUBBED_ANSWER: &str = r#"{"ok": true}"#;

/// The body of every answer a scenario asked for by status alone.
const FALLBACK_ANSWER: &str = r#"{"upstream": "says no"}"#;

/// Written in a document, replaced by the mock upstream's base URL (for
/// documents that point somewhere the harness can watch).
pub const BASE_URL_PLACEHOLDER: &str = "{{base_url}}";

mod kept;

/// The state of one scenario. Everything it started (gateway process, MCP
/// session, temp files, upstream) ends when it is torn down or dropped.
#[derive(cucumber::World)]
#[world(init = Self::new)]
pub struct GatewayWorld {
    /// `None` only once handed back to the pool with its gateway.
    upstream: Option<Upstream>,
    /// Whether a step has used the upstream: then it is not swapped for a
    /// kept gateway's, which has none of that step's set-up.
    upstream_used: Cell<bool>,
    /// Gateways kept between scenarios; `None` with `--isolate`.
    pool: Option<Arc<Pool>>,
    /// The gateway's build per document (`--prepare`), if it has one.
    preparation: Option<Preparation>,
    /// A kept gateway taken for this scenario, used at its launch if it still
    /// fits (see [`crate::pool`]).
    kept: Option<KeptGateway>,
    /// What this scenario told the pool it wants, until it is done.
    wanted: Option<Wanted>,
    /// What the running gateway was launched with.
    launched_key: Option<LaunchKey>,
    /// How many scenarios the running gateway served before this one.
    served_before: usize,
    /// Set where the scenario stops or restarts its gateway itself: it is
    /// not kept for another.
    own_launches: bool,
    /// The folder of a gateway handed back to the pool, for `--keep`.
    handed_back_dir: Option<PathBuf>,
    /// What the upstream had received when it was handed back with its
    /// gateway: the report may be written after that.
    handed_back_requests: Vec<String>,
    /// What every request no stub matches is answered with, if a step said.
    fallback_status: Option<u16>,
    /// The path the API lives under, if a step said: part of what a
    /// gateway is launched with, so a kept one serves only the same.
    base_path: String,
    /// A tool call went without an answer: the gateway may still be at it,
    /// so it is not kept for another scenario.
    unanswered: bool,
    launcher: Option<Arc<Launcher>>,
    /// The run's launch record: whether another launch is worth making.
    health: Option<Arc<Health>>,
    /// This scenario's turn to launch, held while its gateway comes up: until
    /// it answers the MCP handshake (a gateway may accept TCP long before it
    /// can serve), or accepts TCP when the scenario drives HTTP by hand.
    slot: Option<OwnedSemaphorePermit>,
    transport: Transport,
    /// Whether the gateway is told where the credential goes (see [`placement`]).
    hint_credential: bool,
    era: Era,
    document: Option<String>,
    /// The document's folder within the scenario's folder (empty: the top).
    document_folder: PathBuf,
    /// The other files of a split document, by their path within the
    /// scenario's folder, already checked to stay inside it.
    files: Vec<(PathBuf, String)>,
    credential: String,
    /// Where the scenario's gateway is in its life.
    life: Life,
    last_call: Option<CallOutcome>,
    /// Where the latest call put the arguments it gave elsewhere than the
    /// rules name them, so that places its answer names can be followed.
    last_moved: Vec<naming::Moved>,
    /// The arguments the latest call's tool takes (its input schema's
    /// properties), where the call's arguments were renamed for it.
    last_taken: serde_json::Map<String, Value>,
    /// How long the latest tool call took, from sending it to its answer.
    last_call_took: Option<Duration>,
    /// Every error code the scenario's calls carried (see [`CallOutcome::codes`]).
    codes_seen: BTreeSet<String>,
    raw: Option<RawHttp>,
    /// The folder of the running gateway's document.
    dir: Option<ScenarioDir>,
    /// The folder of the last gateway's document, kept after teardown so a
    /// failing scenario's files can be kept for the reader.
    finished_dir: Option<ScenarioDir>,
    /// How the latest gateway was launched.
    launched_as: Option<Invocation>,
    /// Each tool call the scenario made and what came back, in order.
    calls: Vec<String>,
    /// Whether a tool the gateway names otherwise is found by its operation:
    /// not in the naming rules' own scenarios.
    resolve_names: bool,
    /// Tools the gateway names otherwise: the rules' name to the gateway's.
    renamed: HashMap<String, String>,
    /// The rules this scenario judges.
    rules: Vec<String>,
    /// What a report of this scenario should mention besides its failure.
    notes: Vec<String>,
    /// Why the scenario could not see its rule, set by the step that found it.
    unseen: Option<String>,
    /// Set by the step that puts starting itself under test.
    start_under_test: bool,
    /// Set when the scenario expects the gateway to exit (a refused document).
    exit_expected: bool,
    /// Why the latest launch did not come up (exited, silent, no handshake),
    /// for the run's health and [`Self::probe`]: a gateway that fails its
    /// handshake may still be running.
    launch_failure: Option<StartFailure>,
    /// Set in a world that only checks the gateway starts (see [`Self::probe`]).
    probe: bool,
    /// The run's start-up window (see [`Self::start_timeout`]).
    start_window: Duration,
    /// Set once a launch that stayed silent was made again (see
    /// [`Self::may_relaunch`]); the window is then twice as long.
    relaunched: bool,
}

/// Where the scenario's gateway is in its life: one field, so that no two
/// records can disagree (a start failure kept while a gateway still runs).
enum Life {
    /// Nothing launched yet, or a launch about to be made again.
    NotLaunched,
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
    /// Whether the gateway is told where the credential goes (see [`placement`]).
    pub(crate) hint_credential: bool,
    /// Whether a tool the gateway names otherwise is found by its operation.
    pub(crate) resolve_names: bool,
    /// The rules the scenario judges (its `@TC-...` tags).
    pub(crate) rules: Vec<String>,
}

/// What the gateway left behind when its scenario ended.
#[derive(Debug, Clone)]
struct Ended {
    stderr: String,
    /// Its exit status, when it exited on its own before the end.
    exited: Option<std::process::ExitStatus>,
}

/// What a report shows about a scenario besides its failed step: whether
/// it could be judged at all, the gateway's stderr, and what the upstream got.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    /// Why the scenario could not be judged (the gateway did not start, or
    /// crashed); `None` when the failure is a verdict on the gateway.
    pub not_judged: Option<String>,
    /// Why the scenario was not run (`--max-failures` was reached).
    pub not_run: Option<String>,
    /// Why the scenario ran but could not see its rule, and which rule
    /// judges the cause (see [`GatewayWorld::not_judged`]).
    pub unseen: Option<String>,
    pub stderr: String,
    /// Every request the mock upstream received, as text.
    pub upstream: Vec<String>,
    /// How the latest gateway was launched.
    pub launch: Option<Invocation>,
    /// Each tool call made and what came back.
    pub calls: Vec<String>,
    /// What else the reader should know (a tool found under another name).
    pub notes: Vec<String>,
}

/// A launched gateway; the session is dropped before the process.
struct Running {
    client: Option<McpClient>,
    gateway: Gateway,
}

impl fmt::Debug for GatewayWorld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GatewayWorld")
            .field("transport", &self.transport)
            .field("era", &self.era)
            .field("upstream", &self.upstream.as_ref().map(Upstream::base_url))
            .field("last_call", &self.last_call)
            .field(
                "gateway_stderr",
                &self.running().map(|r| r.gateway.stderr()),
            )
            .finish_non_exhaustive()
    }
}

impl GatewayWorld {
    async fn new() -> anyhow::Result<Self> {
        let upstream = Upstream::start()
            .await
            .context("cannot start the mock upstream")?;
        answer_unstubbed(&upstream).await;
        Ok(Self {
            upstream: Some(upstream),
            upstream_used: Cell::new(false),
            pool: None,
            preparation: None,
            kept: None,
            wanted: None,
            launched_key: None,
            served_before: 0,
            own_launches: false,
            handed_back_dir: None,
            handed_back_requests: Vec::new(),
            fallback_status: None,
            base_path: String::new(),
            unanswered: false,
            launcher: None,
            health: None,
            slot: None,
            transport: Transport::Http,
            hint_credential: true,
            era: Era::default(),
            document: None,
            document_folder: PathBuf::new(),
            files: Vec::new(),
            credential: DEFAULT_CREDENTIAL.to_owned(),
            life: Life::NotLaunched,
            last_call: None,
            last_moved: Vec::new(),
            last_taken: serde_json::Map::new(),
            last_call_took: None,
            codes_seen: BTreeSet::new(),
            raw: None,
            dir: None,
            finished_dir: None,
            launched_as: None,
            calls: Vec::new(),
            resolve_names: true,
            renamed: HashMap::new(),
            rules: Vec::new(),
            notes: Vec::new(),
            unseen: None,
            start_under_test: false,
            exit_expected: false,
            launch_failure: None,
            probe: false,
            start_window: crate::launch::DEFAULT_START_TIMEOUT,
            relaunched: false,
        })
    }

    /// Sets the scenario up as the runner chose; done before each scenario.
    pub(crate) fn configure(&mut self, settings: Settings) {
        self.start_window = settings.launcher.start_timeout;
        self.pool = settings.pool;
        self.preparation = settings.preparation;
        self.launcher = Some(settings.launcher);
        self.health = Some(settings.health);
        self.transport = settings.transport;
        self.hint_credential = settings.hint_credential;
        self.resolve_names = settings.resolve_names;
        self.rules = settings.rules;
    }

    /// Whether this scenario judges `rule`: then what breaks it is a
    /// verdict here, never a reason to leave the scenario not judged.
    pub fn judges(&self, rule: &str) -> bool {
        self.rules.iter().any(|own| own == rule)
    }

    /// Whether the scenario judges a rule whose ID starts with `prefix`
    /// (`TC-ARG-`).
    pub fn judges_rules_of(&self, prefix: &str) -> bool {
        self.rules.iter().any(|own| own.starts_with(prefix))
    }

    /// Stops the gateway and ends the session; done after each scenario.
    /// What the gateway left (stderr, an exit of its own) is kept for the report.
    pub(crate) fn teardown(&mut self) {
        self.raw = None;
        if let Life::Running(running) = &mut self.life {
            let ended = Ended {
                stderr: running.gateway.stderr(),
                exited: running.gateway.exit_status(),
            };
            self.life = Life::Ended(ended);
        }
        if let Some(dir) = self.dir.take() {
            self.finished_dir = Some(dir);
        }
        self.slot = None;
    }

    /// Moves the folder of the scenario's last gateway (its document and the
    /// files beside it) to `into`, so it outlives the run: where it was, and
    /// where it is now; `None` when the scenario launched nothing.
    pub(crate) fn keep_files(&mut self, into: &Path) -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
        if let Some(shared) = self.handed_back_dir.take() {
            crate::folder::copy_tree(&shared, into).with_context(|| {
                format!("cannot copy the scenario's files to {}", into.display())
            })?;
            return Ok(Some((shared, into.to_path_buf())));
        }
        let Some(dir) = self.finished_dir.take().or_else(|| self.dir.take()) else {
            return Ok(None);
        };
        let was = dir.path().to_path_buf();
        dir.move_to(into).map(|now| Some((was, now)))
    }

    /// Puts starting itself under test: a gateway that exits at start-up in
    /// this scenario breaks the scenario's rule, rather than leaving it unjudged.
    pub fn put_start_under_test(&mut self) {
        self.start_under_test = true;
    }

    /// What the report shows besides the failed step; see [`Diagnostics`].
    pub fn diagnostics(&self) -> Diagnostics {
        let stderr = match &self.life {
            Life::Running(running) => running.gateway.stderr(),
            Life::Ended(ended) => ended.stderr.clone(),
            Life::FailedToStart(failure) => failure.stderr.clone(),
            Life::NotLaunched | Life::Refused(_) => String::new(),
        };
        // Why the scenario was not run, or what it saw is no verdict.
        let (not_run, not_judged) = match &self.life {
            Life::FailedToStart(failure) if failure.status.is_some() && self.start_under_test => {
                (None, None)
            }
            Life::FailedToStart(failure) => (
                None,
                Some(format!("the gateway did not start: {}", failure.reason)),
            ),
            Life::Ended(Ended {
                exited: Some(status),
                ..
            }) if !status.success() && !self.exit_expected => (
                None,
                Some(format!("the gateway exited during the scenario ({status})")),
            ),
            Life::Refused(refusal @ (Refusal::Budget(_) | Refusal::Placement(_))) => {
                (Some(refusal.to_string()), None)
            }
            Life::Refused(refusal) => (None, Some(refusal.to_string())),
            _ => (None, None),
        };
        Diagnostics {
            not_judged,
            not_run,
            launch: self.launched_as.clone(),
            calls: self.calls.clone(),
            unseen: self.unseen.clone(),
            notes: self.notes.clone(),
            stderr,
            upstream: self
                .upstream
                .as_ref()
                .map_or_else(|| self.handed_back_requests.clone(), requests_seen),
        }
    }

    /// Ends the step without a verdict: what the scenario needed to see its
    /// rule is missing because the gateway breaks `judged_by`, whose own
    /// scenarios judge that. The step returns what this gives:
    /// `return Err(world.not_judged("TC-NAME-003", "...").into())`.
    pub fn not_judged(&mut self, judged_by: &str, why: impl fmt::Display) -> anyhow::Error {
        self.unseen_error(judged_by, why)
    }

    /// Passes `found` on, unless it failed on a schema no validator can use
    /// as published ([`UnusableSchema`]): that breaks the rule that input
    /// schemas are self-contained, whose own scenarios judge it; in any
    /// other scenario it leaves the scenario not judged.
    pub fn unless_unusable<T>(&mut self, found: anyhow::Result<T>) -> anyhow::Result<T> {
        match found {
            Err(error)
                if error.downcast_ref::<UnusableSchema>().is_some()
                    && !self.judges(SELF_CONTAINED) =>
            {
                Err(self.not_judged(SELF_CONTAINED, format!("{error:#}")))
            }
            found => found,
        }
    }

    /// A verdict was reached on what could be seen, so what could not be
    /// seen no longer makes the scenario not judged.
    pub fn judged_after_all(&mut self) {
        self.unseen = None;
    }

    /// Records why the scenario cannot see its rule; the error to return.
    fn unseen_error(&mut self, judged_by: &str, why: impl fmt::Display) -> anyhow::Error {
        let unseen = format!("not judged: {why}; {judged_by} judges that");
        self.unseen = Some(unseen.clone());
        anyhow!(unseen)
    }

    /// Stops the gateway and launches it again on the same document.
    pub async fn restart(&mut self) -> anyhow::Result<()> {
        self.own_launches = true;
        self.teardown();
        self.start().await
    }

    /// This scenario's mock upstream.
    pub fn upstream(&self) -> &Upstream {
        self.upstream_used.set(true);
        self.upstream
            .as_ref()
            .expect("the upstream is handed back only after the scenario")
    }

    /// Answers every request no stub matches with `status` (below every
    /// stub of a step). Kept by the world, not only mounted, so that it
    /// holds on a kept gateway's upstream too when set before the document.
    pub async fn answer_every_request_with(&mut self, status: u16) {
        self.fallback_status = Some(status);
        if let Some(upstream) = &self.upstream {
            answer_every_request(upstream, status).await;
        }
    }

    /// Puts the API under `path` (such as `/api/v1`, with a query after it
    /// where the base URL has one) for the gateway this scenario launches
    /// or takes. Kept by the world, not only set on the upstream, so that a
    /// gateway kept from a scenario with the same path can serve this one.
    pub fn set_base_path(&mut self, path: &str) -> anyhow::Result<()> {
        self.before_launch("the base path")?;
        path.clone_into(&mut self.base_path);
        if let Some(upstream) = &self.upstream {
            upstream.set_base_path(path);
        }
        Ok(())
    }

    /// The transport this scenario speaks.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// Sets the OpenAPI document (JSON or YAML text). `{{base_url}}` in it
    /// becomes the mock upstream's base URL.
    pub async fn set_document(&mut self, text: &str) -> anyhow::Result<()> {
        self.before_launch("the document")?;
        self.document = Some(text.to_owned());
        self.take_kept().await;
        Ok(())
    }

    /// Puts the document in `folder` (a relative path) of the scenario's
    /// folder, so a file beside it can be outside the document's folder tree.
    pub fn set_document_folder(&mut self, folder: &str) -> anyhow::Result<()> {
        self.before_launch("the document's folder")?;
        self.document_folder = inside_scenario(Path::new(""), folder)?;
        Ok(())
    }

    /// Adds a file of a split document at `path`, relative to the document's
    /// folder (`../x.yaml` is allowed while it stays in the scenario's
    /// folder). `{{base_url}}` in it becomes the mock upstream's base URL.
    pub fn add_file(&mut self, path: &str, text: &str) -> anyhow::Result<()> {
        self.before_launch("the document's files")?;
        let path = inside_scenario(&self.document_folder, path)?;
        self.files.push((path, text.to_owned()));
        Ok(())
    }

    /// Sets the credential stored for the gateway.
    pub fn set_credential(&mut self, credential: &str) -> anyhow::Result<()> {
        self.before_launch("the credential")?;
        self.credential = credential.to_owned();
        Ok(())
    }

    /// The credential stored for the gateway.
    pub fn credential(&self) -> &str {
        &self.credential
    }

    /// Chooses the MCP lifecycle of the session opened at launch.
    pub fn set_era(&mut self, era: Era) -> anyhow::Result<()> {
        self.before_launch("the protocol era")?;
        self.era = era;
        Ok(())
    }

    fn before_launch(&self, what: &str) -> anyhow::Result<()> {
        if self.running().is_some() {
            bail!("{what} must be set before the gateway is launched");
        }
        Ok(())
    }

    /// Launches the gateway and opens the MCP session, if not done yet.
    pub async fn start(&mut self) -> anyhow::Result<()> {
        self.session().await.map(drop)
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
    /// of the same operation as [`naming::find`] tells it by what it is,
    /// with a note for the report. A gateway that names its tools otherwise
    /// and leaves that tool unknown leaves the scenario not judged: its names
    /// are the naming rule's matter.
    pub async fn tool_name(&mut self, name: &str) -> anyhow::Result<String> {
        if let Some(known) = self.renamed.get(name) {
            return Ok(known.clone());
        }
        let tools = self.list_tools().await?;
        let listed = |wanted: &str| tools.iter().any(|tool| tool["name"] == wanted);
        if listed(name) || !self.resolve_names {
            return Ok(name.to_owned());
        }
        let operations = naming::operations(self.document.as_deref().unwrap_or_default());
        let Some(operation) = operations.iter().find(|o| o.name == name) else {
            return Ok(name.to_owned());
        };
        let actual = match naming::find(name, &operations, &tools) {
            Ok(index) => tools[index]["name"].as_str().unwrap_or_default().to_owned(),
            Err(not_found) => {
                let named_otherwise = tools
                    .iter()
                    .any(|tool| !operations.iter().any(|o| tool["name"] == o.name.as_str()));
                if !named_otherwise {
                    return Ok(name.to_owned());
                }
                let why = format!(
                    "the gateway lists no tool {name:?}, and no listed tool could be told to \
                     be the one of {} {} (by its name, its stated method and path, its \
                     arguments, or as the one left); candidates: {:?}; the gateway lists {:?}",
                    operation.method.to_uppercase(),
                    operation.path,
                    not_found.candidates,
                    crate::json::tool_names(&tools)
                );
                return Err(self.unseen_error(operation.named_by, why));
            }
        };
        self.notes.push(format!(
            "the gateway calls the tool the rules name {name:?} {actual:?} (a naming rule's \
             matter); it was found as the tool of {} {}, by what it is",
            operation.method.to_uppercase(),
            operation.path
        ));
        self.renamed.insert(name.to_owned(), actual.clone());
        Ok(actual)
    }

    /// The gateway's name for a tool already found (see [`Self::tool_name`]).
    pub fn known_tool_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.renamed.get(name).map_or(name, String::as_str)
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
        let session = self.session().await?;
        let started = Instant::now();
        let called = session.call_tool(&name, arguments).await;
        self.last_call_took = Some(started.elapsed());
        let (outcome, broken) = self.record_call(request, called)?;
        self.note_transport(broken);
        Ok(self.keep_outcome(outcome))
    }

    /// `arguments` under the names the gateway gives them (see
    /// [`naming::as_the_gateway_names`]), with a note for the report. Not in
    /// the argument rules' own scenarios, whose matter the names are. A
    /// body the tool takes in no way leaves the scenario not judged.
    async fn as_the_gateway_names(
        &mut self,
        tool: &str,
        arguments: Value,
    ) -> anyhow::Result<Value> {
        self.last_moved.clear();
        self.last_taken.clear();
        let Value::Object(given) = arguments else {
            return Ok(arguments);
        };
        if !self.renames_arguments() {
            return Ok(Value::Object(given));
        }
        let tools = self.list_tools().await?;
        let Some(taken) = tools
            .iter()
            .find(|listed| listed["name"] == tool)
            .and_then(|listed| listed["inputSchema"]["properties"].as_object())
        else {
            return Ok(Value::Object(given));
        };
        let (out, moved) = naming::as_the_gateway_names(&given, taken);
        if out.contains_key("body") && !taken.contains_key("body") {
            let takes: Vec<&String> = taken.keys().collect();
            return Err(self.not_judged(
                "TC-ARG-003",
                format!(
                    "tool {tool:?} takes no body argument, and not the body's members either \
                     (it takes {takes:?}), so the call's request body cannot be given"
                ),
            ));
        }
        if !moved.is_empty() {
            let shown: Vec<String> = moved.iter().map(ToString::to_string).collect();
            let note = format!(
                "the gateway takes arguments otherwise (the argument rules' matter): {} sent {}",
                tool,
                shown.join(", ")
            );
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        self.last_moved = moved;
        self.last_taken = taken.clone();
        Ok(Value::Object(out))
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
        let url = self.mcp_url().await?;
        let headers = self
            .running()
            .context("no gateway")?
            .gateway
            .client_headers(headers);
        let client =
            McpClient::over_http(&url, &self.era, &headers, crate::client::CONNECT_TIMEOUT).await?;
        let called = client.call_tool(&name, arguments).await;
        client.close().await;
        let (outcome, broken) = self.record_call(request, called)?;
        self.note_transport(broken);
        Ok(self.keep_outcome(outcome))
    }

    /// Keeps a call and its answer (or why none came) for the report.
    fn record_call(
        &mut self,
        request: String,
        called: anyhow::Result<(CallOutcome, Option<String>)>,
    ) -> anyhow::Result<(CallOutcome, Option<String>)> {
        self.unanswered |= called.is_err();
        let answer = match &called {
            Ok((outcome, _)) => clip_chars(&outcome.to_string(), CALL_SHOWN),
            Err(error) => format!(
                "no answer: {}",
                clip_chars(&format!("{error:#}"), CALL_SHOWN)
            ),
        };
        self.calls.push(format!("{request}\n→ {answer}"));
        called
    }

    fn keep_outcome(&mut self, outcome: CallOutcome) -> &CallOutcome {
        self.codes_seen.extend(outcome.codes().map(str::to_owned));
        self.last_call.insert(outcome)
    }

    /// The error codes this scenario's calls carried, in order.
    pub fn codes_seen(&self) -> Vec<String> {
        self.codes_seen.iter().cloned().collect()
    }

    /// A transport rule broken on the way to a result is noted, once: it is
    /// TC-PROTO-008's to judge, and the result still counts here.
    fn note_transport(&mut self, broken: Option<String>) {
        if let Some(broken) = broken {
            let note = format!("{broken}; the result was taken from there");
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
    }

    /// Why the gateway did not come up in this scenario, if it did not.
    pub fn start_failure(&self) -> Option<&StartFailure> {
        match &self.life {
            Life::FailedToStart(failure) => Some(failure),
            _ => None,
        }
    }

    /// How the gateway ended at start-up, if it did: it never came up (as
    /// recorded at its launch), or, over stdio, it was launched and then
    /// exited before its handshake, which the failed session shows.
    pub async fn ended_at_start(&mut self) -> Option<&StartFailure> {
        if let Life::Running(running) = &mut self.life {
            let failure = running.gateway.exit_within(EXIT_SEEN_WITHIN).await?;
            self.life = Life::FailedToStart(failure);
        }
        self.start_failure()
    }

    /// The running gateway, if one is.
    fn running(&self) -> Option<&Running> {
        match &self.life {
            Life::Running(running) => Some(running),
            _ => None,
        }
    }

    /// How long the latest tool call took (calls over the scenario's session).
    pub fn last_call_took(&self) -> anyhow::Result<Duration> {
        self.last_call_took
            .context("no tool has been called in this scenario")
    }

    /// Whether calls give arguments under the gateway's names and places:
    /// not in the argument rules' own scenarios, whose matter those are.
    pub fn renames_arguments(&self) -> bool {
        self.resolve_names && !self.judges_rules_of(ARGUMENT_RULES)
    }

    /// The pointers a place named in the latest call's answer may take:
    /// `pointer` as the rules write it, and where the gateway took the
    /// argument it starts at, if the call put that elsewhere, or else where
    /// the tool takes that argument (one the call did not give).
    pub fn as_the_gateway_placed(&self, pointer: &str) -> Vec<String> {
        let mut forms = vec![pointer.to_owned()];
        forms.extend(
            self.last_moved
                .iter()
                .filter_map(|moved| moved.rebase(pointer)),
        );
        if forms.len() == 1 {
            forms.extend(naming::placed_pointer(pointer, &self.last_taken));
        }
        forms
    }

    /// The outcome of the latest tool call.
    pub fn last_call(&self) -> anyhow::Result<&CallOutcome> {
        self.last_call
            .as_ref()
            .context("no tool has been called in this scenario")
    }

    /// The scenario's hand-driven HTTP client of the gateway's MCP endpoint
    /// (one per scenario, so it keeps its session and last answer). HTTP only.
    pub async fn raw_http(&mut self) -> anyhow::Result<&mut RawHttp> {
        if self.raw.is_none() {
            let url = self.mcp_url().await?;
            let auth = self
                .running()
                .and_then(|r| r.gateway.client_auth())
                .cloned();
            self.raw = Some(RawHttp::new(url, auth));
        }
        self.raw.as_mut().context("no HTTP client")
    }

    /// The gateway's MCP endpoint, launching it if needed. HTTP only.
    pub async fn mcp_url(&mut self) -> anyhow::Result<String> {
        self.launched().await?;
        // Hand-driven HTTP has no handshake to wait for: accepting is starting.
        self.slot = None;
        let running = self.running().context("no gateway")?;
        running.gateway.mcp_url().with_context(|| {
            format!(
                "this needs the http transport, the scenario speaks {}",
                self.transport
            )
        })
    }

    /// Launches the gateway expecting it to refuse the document: it must exit
    /// on its own, with a failure status, within the start-up time.
    pub async fn start_refused(&mut self) -> anyhow::Result<StartFailure> {
        self.exit_expected = true;
        self.kept = None;
        let failure = match self.spawn().await? {
            Err(failure) if failure.status.is_some() => failure,
            Err(failure) => {
                bail!("the gateway should have refused its document; instead {failure}")
            }
            Ok(mut gateway) => match self.exits_at_start(&mut gateway).await {
                Some(failure) => failure,
                None => {
                    // Over stdio, alive is not up: a hang is alive too.
                    if self.transport == Transport::Http {
                        self.came_up();
                    }
                    self.slot = None;
                    self.life = Life::Running(Box::new(Running {
                        client: None,
                        gateway,
                    }));
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
    fn relaunch(&mut self, silence: &str) {
        let window = self.start_timeout();
        self.relaunched = true;
        if let Some(health) = &self.health {
            health.relaunched();
        }
        self.notes.push(format!(
            "the first launch {silence} within {} s although this gateway has started in this \
             run: it was launched once more, with {} s",
            window.as_secs_f64(),
            self.start_timeout().as_secs_f64()
        ));
    }

    async fn session(&mut self) -> anyhow::Result<&McpClient> {
        loop {
            self.launched().await?;
            let may_relaunch = self.may_relaunch();
            // The handshake ends the start-up: it gets the start-up window too.
            let within = self.start_timeout().max(crate::client::CONNECT_TIMEOUT);
            let Life::Running(running) = &mut self.life else {
                bail!("no gateway");
            };
            if running.client.is_some() {
                break;
            }
            let client = match (running.gateway.mcp_url(), running.gateway.take_stdio()) {
                (Some(url), _) => {
                    let headers = running.gateway.client_headers(&[]);
                    McpClient::over_http(&url, &self.era, &headers, within).await
                }
                (None, Some(pipes)) => McpClient::over_stdio(pipes, &self.era, within).await,
                (None, None) => Err(anyhow!("the gateway's stdio session was already used")),
            };
            let client = match client {
                Ok(client) => client,
                Err(error) if self.served_before > 0 => {
                    // A kept gateway that cannot open another session is not
                    // this scenario's verdict: it gets a launch of its own.
                    self.life = Life::NotLaunched;
                    self.served_before = 0;
                    self.notes.push(format!(
                        "the gateway kept from an earlier scenario could not open a new session \
                         ({error:#}); one was launched for this scenario"
                    ));
                    continue;
                }
                Err(error) if self.era != Era::Discover && error.is::<EndpointRefused>() => {
                    let status = error
                        .downcast_ref::<EndpointRefused>()
                        .map_or(0, |refused| refused.status);
                    return Err(self.refused_at_endpoint(status, &error).await);
                }
                Err(error) => {
                    // Launches that failed alike must read alike: one that
                    // is exiting is reported with its status and last words.
                    let exited = running.gateway.exit_within(EXIT_SEEN_WITHIN).await;
                    if exited.is_none() && may_relaunch && error.is::<HandshakeTimedOut>() {
                        self.life = Life::NotLaunched;
                        self.relaunch("did not answer the MCP handshake");
                        continue;
                    }
                    let failure = match exited {
                        Some(exited) => exited,
                        None => {
                            let reason = format!("its MCP handshake failed: {error:#}");
                            running.gateway.failure(reason, None).await
                        }
                    };
                    // The turn ends once the failure is known: the next
                    // launch is not made when it makes this one the last.
                    self.launch_failed(failure);
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
        let running = self.running().context("no gateway")?;
        running.client.as_ref().context("no session")
    }

    /// A plain `initialize` answered by hand-driven HTTP with a status that
    /// lets no client in (see [`EndpointRefused`]) leaves the scenario not
    /// judged, as the SDK's handshake does.
    pub async fn unless_refused_at_endpoint(&mut self) -> anyhow::Result<()> {
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
    async fn refused_at_endpoint(&mut self, status: u16, seen: &dyn fmt::Display) -> anyhow::Error {
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
        self.launch_failed(failure.clone());
        self.slot = None;
        self.life = Life::FailedToStart(failure.clone());
        failure.into()
    }

    async fn launched(&mut self) -> anyhow::Result<()> {
        if self.running().is_none() {
            if let Some(kept) = self.kept_that_fits() {
                self.use_kept(kept);
                return Ok(());
            }
            let gateway = match self.spawn().await? {
                Ok(gateway) => gateway,
                Err(failure) => {
                    self.launch_failed(failure.clone());
                    self.life = Life::FailedToStart(failure.clone());
                    return Err(failure.into());
                }
            };
            if self.transport == Transport::Http {
                self.came_up();
            }
            self.life = Life::Running(Box::new(Running {
                client: None,
                gateway,
            }));
        }
        Ok(())
    }

    /// Writes the document and starts the gateway; the outer error is the
    /// harness's, the inner one the gateway's.
    async fn spawn(&mut self) -> anyhow::Result<Result<Gateway, StartFailure>> {
        let document = self
            .document
            .as_deref()
            .context("the scenario gave no OpenAPI document")?
            .replace(BASE_URL_PLACEHOLDER, &self.base_url());
        let credential_in = self
            .hint_credential
            .then(|| placement::credential_in(&document));
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
        let extension = if document.trim_start().starts_with('{') {
            "json"
        } else {
            "yaml"
        };
        let base_url = self.base_url();
        for (path, text) in &self.files {
            let text = text.replace(BASE_URL_PLACEHOLDER, &base_url);
            dir.write(path, &text)?;
        }
        // Not "openapi.*": an error that names the file must not pass for
        // one that names the missing `openapi` field.
        let within = self.document_folder.join(format!("document.{extension}"));
        let openapi = dir.write(&within, &document)?;
        let credential = self.credential.clone();
        // The document as the preparation step tells documents apart.
        let written: Vec<(PathBuf, String)> = self
            .files
            .iter()
            .map(|(path, text)| (path.clone(), text.replace(BASE_URL_PLACEHOLDER, &base_url)))
            .chain([(within, document.clone())])
            .collect();
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
        self.launched_key = Some(self.launch_key());
        self.served_before = 0;
        self.count_launch();
        // A gateway built per document is built once, under this launch's turn.
        let prepared = match &self.preparation {
            Some(step) => {
                let document: Vec<(&Path, &str)> = written
                    .iter()
                    .map(|(path, text)| (path.as_path(), text.as_str()))
                    .collect();
                Some(step.prepared(&openapi, &document).await)
            }
            None => None,
        };
        let launch = Launch {
            openapi: &openapi,
            base_url: &base_url,
            credential: &credential,
            credential_in: credential_in.as_deref(),
            prepared: prepared
                .as_ref()
                .and_then(|p| p.as_ref().ok())
                .map(PathBuf::as_path),
        };
        let mut started = match &prepared {
            Some(Err(refused)) => Err(refused.clone()),
            _ => Gateway::start(template, self.transport, launch, self.start_timeout()).await,
        };
        if started.as_ref().is_err_and(|f| f.timed_out) && self.may_relaunch() {
            self.relaunch("did not accept TCP connections");
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
        self.dir = Some(dir);
        Ok(started)
    }
}

impl GatewayWorld {
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
        world.probe = true;
        world.set_document(PROBE_DOCUMENT).await?;
        let failure = match world.start().await {
            Ok(()) => None,
            Err(error) => Some(world.launch_failure.take().ok_or(error)?),
        };
        world.teardown();
        Ok(failure)
    }

    /// The upstream's base URL, as the gateway is given it.
    fn base_url(&self) -> String {
        self.upstream
            .as_ref()
            .map(Upstream::base_url)
            .unwrap_or_default()
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
    fn launch_failed(&mut self, failure: StartFailure) {
        if let Some(health) = &self.health {
            if !self.start_under_test && !self.exit_expected {
                health.launch_failed(self.transport, &failure);
            }
        }
        self.launch_failure = Some(failure);
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

/// The rule ID prefix of the argument rules, whose scenarios call tools with
/// the rules' argument names whatever the gateway's.
const ARGUMENT_RULES: &str = "TC-ARG-";

/// Characters of a call's arguments or answer shown in a report.
const CALL_SHOWN: usize = 2000;

/// A tool call as the report shows it: `tools/call NAME ARGUMENTS`.
fn call_request(name: &str, arguments: &Value) -> String {
    clip_chars(&format!("tools/call {name} {arguments}"), CALL_SHOWN)
}

/// The first `keep` characters of `text`, and how long it was when longer.
fn clip_chars(text: &str, keep: usize) -> String {
    match text.char_indices().nth(keep) {
        Some((at, _)) => format!("{}[… {} bytes in all]", &text[..at], text.len()),
        None => text.to_owned(),
    }
}

/// What a scenario does not stub is answered as a real API would, with a
/// 200 and a JSON body: a scenario about the request then sees no error it
/// did not ask for, and the error codes recorded per scenario are the ones
/// its rule is about. A gateway that sends a call it should have refused
/// then answers with a success, not with an error about the answer that
/// could pass for a refusal (@twilio-alpha/openapi-mcp-server failed on
/// a text body, and 89 checking scenarios could not be judged).
async fn answer_unstubbed(upstream: &Upstream) {
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(UNSTUBBED_ANSWER, "application/json"))
        .with_priority(u8::MAX)
        .mount(upstream.stubs())
        .await;
}

/// The fallback of [`GatewayWorld::answer_every_request_with`]: below any
/// other stub, above the world's own answer to what no step stubbed. JSON,
/// as [`UNSTUBBED_ANSWER`] is and for the same reason.
async fn answer_every_request(upstream: &Upstream, status: u16) {
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(status).set_body_raw(FALLBACK_ANSWER, "application/json"),
        )
        .with_priority(u8::MAX - 1)
        .mount(upstream.stubs())
        .await;
}

/// Every request `upstream` received, as a report shows it.
fn requests_seen(upstream: &Upstream) -> Vec<String> {
    upstream
        .requests()
        .iter()
        .map(ToString::to_string)
        .collect()
}
