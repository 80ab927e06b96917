//! A soak: the release gateway under a steady mixed load for minutes, with
//! what it holds sampled through the run. Nothing it holds may keep growing.
//!
//! What runs:
//! - an upstream: hyper on one thread, in a process of its own (this bench
//!   started again with `--serve-upstream`), with one path per behaviour: a
//!   small JSON answer, a JSON answer of about 1 MB, a small answer after
//!   1.5 s, a 500, and a connection reset (closed with `SO_LINGER` 0 on the
//!   request);
//! - the gateway binary (`target/<profile>/hosted-mcp-gateway`, brought up
//!   to date first with `cargo build -p hosted-mcp-gateway`, or
//!   `$SOAK_GATEWAY`) in front of it, with one tool per behaviour, its idle
//!   sessions closed after 30 s (`--session-idle-timeout`, shorter than the
//!   run so that reaping shows) and its census logged every 2 s
//!   (`--census-interval`, `RUST_LOG=info,hosted_mcp_gateway::census=debug`,
//!   `--log-format json`);
//! - clients speaking JSON-RPC over reqwest, no MCP library: 4 agents at up
//!   to 25 calls a second each, and 2 that only make the slow call, back to
//!   back. Each takes turns at random (seeded, so every run sends the same
//!   sequence) between an `initialize` session of 1-20 calls, closed with
//!   DELETE or dropped without one (then on a client of its own, whose
//!   connections go with it, as when an agent dies), and as many 2026-07-28
//!   calls with no session. An agent's calls are 80% small, 8% failing
//!   (500), 6% reset and 6% of 1 MB.
//!
//! Every 10 s it samples the gateway: resident memory (`VmRSS`), its peak
//! (`VmHWM`) and threads from `/proc/<pid>/status`, open descriptors (the
//! entries of `/proc/<pid>/fd`), CPU (`/proc/<pid>/stat`), and the latest
//! census (sessions, connections, calls in flight, runtime tasks); and, on
//! the client side over the window, the calls by outcome and the latency
//! percentiles of the small calls. One table row per sample. When the load
//! stops it keeps sampling until every session is reaped.
//!
//! The verdict compares the last third of the loaded samples with the middle
//! third (the first is warm-up: the dropped sessions pile up for one idle
//! timeout, then level off). A figure keeps growing when the mean of its
//! last third is over the mean of its middle third by more than 10% plus a
//! few units (see `GROWTH`); the peak (`VmHWM`) when it rose by as much over
//! the last third. The run also fails when the sessions are not all gone
//! within one idle timeout (and 15 s) of the load stopping, when any call
//! had an outcome other than the one its upstream behaviour calls for, or
//! when the gateway does not exit 0 on SIGTERM. Latencies are for
//! information only.
//!
//! Run (the bench profile is the release one; Linux only, it reads `/proc`):
//!
//! ```sh
//! nice cargo bench -p hosted-mcp-benches --bench soak -- --minutes 10
//! nice cargo bench -p hosted-mcp-benches --bench soak   # 30 s smoke form
//! ```
//!
//! `--minutes N` may be a fraction. Without it the bench runs the smoke
//! form: 30 s, sampled every 3 s, idle sessions closed after 5 s, so that a
//! plain `cargo bench` stays short.

use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::time::MissedTickBehavior;

mod process;
use process::{
    cpu_ticks, gateway_binary, load_average, serve_connections, serve_upstream, start_upstream,
    ticks_per_second, Status,
};

/// The credential the gateway holds.
const CREDENTIAL: &str = "soak-bench-credential";

/// One tool per upstream behaviour.
const DOCUMENT: &str = r#"openapi: 3.0.3
info: {title: soak, version: "1"}
components:
  securitySchemes:
    token: {type: http, scheme: bearer}
security: [{token: []}]
paths:
  /small:
    get: {operationId: getSmall, responses: {"200": {description: a small answer}}}
  /big:
    get: {operationId: getBig, responses: {"200": {description: about 1 MB of JSON}}}
  /slow:
    get: {operationId: getSlow, responses: {"200": {description: a small answer, late}}}
  /failing:
    get: {operationId: getFailing, responses: {"200": {description: never; a 500}}}
  /reset:
    get: {operationId: getReset, responses: {"200": {description: never; a reset}}}
"#;

const SMALL_ANSWER: &[u8] = br#"{"id":1,"name":"Rexie","tag":"dog"}"#;
/// The size the large answer reaches, under the gateway's 1 MiB read limit.
const BIG_ANSWER_BYTES: usize = 1_000_000;
const SLOW_ANSWER_AFTER: Duration = Duration::from_millis(1500);

/// Agents making the mixed calls, and the fastest each calls.
const AGENTS: u64 = 4;
const AGENT_PACE: Duration = Duration::from_millis(40);
/// Clients making only the slow call, back to back.
const SLOW_CALLERS: u64 = 2;
/// The most calls one session or one run of stateless calls makes.
const CALLS_PER_VISIT: u64 = 20;

/// How long the sessions' reaping may take once the load stops, beyond the
/// idle timeout.
const REAPING_MARGIN: Duration = Duration::from_secs(15);

struct Options {
    run: Duration,
    sample_every: Duration,
    idle_timeout: Duration,
    census_every: Duration,
}

impl Options {
    /// The 30-second smoke form, so that a plain `cargo bench` stays short.
    const SMOKE: Options = Options {
        run: Duration::from_secs(30),
        sample_every: Duration::from_secs(3),
        idle_timeout: Duration::from_secs(5),
        census_every: Duration::from_secs(1),
    };

    /// The soak proper, for `minutes`.
    fn soak(minutes: f64) -> Options {
        Options {
            run: Duration::from_secs_f64(minutes * 60.0),
            sample_every: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            census_every: Duration::from_secs(2),
        }
    }

    fn parse() -> Result<Options, String> {
        let mut options = Options::SMOKE;
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                // What `cargo bench` and `cargo test` pass to every bench.
                "--bench" | "--nocapture" => {}
                "--minutes" => {
                    let text = args.next().ok_or("--minutes needs a value")?;
                    let minutes = text
                        .parse::<f64>()
                        .ok()
                        .filter(|minutes| minutes.is_finite() && *minutes > 0.0)
                        .ok_or(format!("--minutes {text:?} is not a positive number"))?;
                    options = Options::soak(minutes);
                }
                other => return Err(format!("unknown option {other}; see soak.rs")),
            }
        }
        Ok(options)
    }
}

fn main() -> ExitCode {
    if std::env::args().any(|arg| arg == "--serve-upstream") {
        serve_upstream(accept_upstream);
        return ExitCode::SUCCESS;
    }
    let options = match Options::parse() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("soak: {message}");
            return ExitCode::from(2);
        }
    };
    // reqwest needs the crypto provider the gateway installs for itself.
    hosted_mcp_gateway::deliver::install_crypto_provider();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(run(options))
}

async fn run(options: Options) -> ExitCode {
    let upstream = Upstream::start().await;
    let bin = gateway_binary("SOAK_GATEWAY", &[]);
    let scratch = std::env::temp_dir().join(format!("soak-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let document = scratch.join("soak.yaml");
    std::fs::write(&document, DOCUMENT).expect("the document is written");
    let mut gateway = Gateway::start(&bin, &document, &upstream.base_url(), &options).await;
    eprintln!(
        "soak: gateway {} (pid {}), upstream {}, {:.1} min, a sample every {} s, sessions idle for {} s closed",
        bin.display(),
        gateway.pid,
        upstream.base_url(),
        options.run.as_secs_f64() / 60.0,
        options.sample_every.as_secs(),
        options.idle_timeout.as_secs()
    );
    let load_at_start = load_average();

    let load = Arc::new(Load::new(gateway.url.clone()));
    gateway.first_census(options.census_every * 5).await;
    let mut sampler = Sampler::new(&gateway);
    print_header();
    let mut samples = vec![sampler.sample(Phase::Before, &load)];
    samples[0].print();

    let mut workers = Vec::new();
    for seed in 0..AGENTS {
        workers.push(tokio::spawn(worker(load.clone(), Mix::Agent, seed)));
    }
    for seed in 0..SLOW_CALLERS {
        workers.push(tokio::spawn(worker(
            load.clone(),
            Mix::SlowOnly,
            100 + seed,
        )));
    }
    let started = Instant::now();
    let mut ticks = tokio::time::interval_at(
        tokio::time::Instant::now() + options.sample_every,
        options.sample_every,
    );
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    while started.elapsed() < options.run {
        ticks.tick().await;
        let sample = sampler.sample(Phase::Load, &load);
        sample.print();
        samples.push(sample);
    }
    load.stop.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.await.expect("a worker ends");
    }

    // Until every session, dropped or not, is gone.
    let reaping_deadline = Instant::now() + options.idle_timeout + REAPING_MARGIN;
    let reaped = loop {
        ticks.tick().await;
        let sample = sampler.sample(Phase::After, &load);
        sample.print();
        let sessions = sample.census.map(|census| census.sessions);
        samples.push(sample);
        if sessions == Some(0) {
            break true;
        }
        if Instant::now() > reaping_deadline {
            break false;
        }
    };
    let load_at_end = load_average();
    let stopped_cleanly = gateway.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);

    println!();
    println!("load average (1, 5, 15 min): {load_at_start} at the start, {load_at_end} at the end");
    sampler.print_totals(&gateway.said);
    print_before_and_after(&samples);
    let growth = judge(&samples);
    let failed = print_verdict(&growth, reaped, &options, &sampler, stopped_cleanly);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

// ---------------------------------------------------------------- the load

/// What the workers share with the sampler.
struct Load {
    url: String,
    stop: AtomicBool,
    window: Mutex<Window>,
}

impl Load {
    fn new(url: String) -> Load {
        Load {
            url,
            stop: AtomicBool::new(false),
            window: Mutex::default(),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn record(&self, update: impl FnOnce(&mut Window)) {
        update(&mut self.window.lock().unwrap_or_else(PoisonError::into_inner));
    }

    fn unexpected(&self, what: String) {
        self.record(|window| {
            window.unexpected += 1;
            if window.unexpected_examples.len() < 5 {
                window.unexpected_examples.push(what);
            }
        });
    }
}

/// What the clients saw since the last sample.
#[derive(Default)]
struct Window {
    /// Calls answered as their behaviour calls for: a result, or the
    /// failing call's UPSTREAM_STATUS, or the reset call's UPSTREAM_RESET.
    results: u64,
    upstream_status: u64,
    upstream_reset: u64,
    /// Anything else (a refused request, a JSON-RPC error, a wrong result,
    /// a session lost while in use), with the first few said.
    unexpected: u64,
    unexpected_examples: Vec<String>,
    small_latencies: Vec<Duration>,
    sessions_opened: u64,
    sessions_deleted: u64,
    sessions_dropped: u64,
}

impl Window {
    fn calls(&self) -> u64 {
        self.results + self.upstream_status + self.upstream_reset
    }

    fn add(&mut self, other: &Window) {
        self.results += other.results;
        self.upstream_status += other.upstream_status;
        self.upstream_reset += other.upstream_reset;
        self.unexpected += other.unexpected;
        let room = 5usize.saturating_sub(self.unexpected_examples.len());
        self.unexpected_examples
            .extend(other.unexpected_examples.iter().take(room).cloned());
        self.small_latencies.extend(&other.small_latencies);
        self.sessions_opened += other.sessions_opened;
        self.sessions_deleted += other.sessions_deleted;
        self.sessions_dropped += other.sessions_dropped;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Behaviour {
    Small,
    Big,
    Slow,
    Failing,
    Reset,
}

impl Behaviour {
    fn tool(self) -> &'static str {
        match self {
            Behaviour::Small => "getSmall",
            Behaviour::Big => "getBig",
            Behaviour::Slow => "getSlow",
            Behaviour::Failing => "getFailing",
            Behaviour::Reset => "getReset",
        }
    }
}

#[derive(Clone, Copy)]
enum Mix {
    Agent,
    SlowOnly,
}

impl Mix {
    fn pick(self, random: &mut Random) -> Behaviour {
        match self {
            Mix::SlowOnly => Behaviour::Slow,
            Mix::Agent => match random.below(100) {
                0..80 => Behaviour::Small,
                80..88 => Behaviour::Failing,
                88..94 => Behaviour::Reset,
                _ => Behaviour::Big,
            },
        }
    }

    fn pace(self) -> Option<Duration> {
        match self {
            Mix::Agent => Some(AGENT_PACE),
            Mix::SlowOnly => None,
        }
    }
}

/// One client, until the load stops: visits as a session or stateless, at
/// random (seeded).
async fn worker(load: Arc<Load>, mix: Mix, seed: u64) {
    let mut random = Random::new(seed);
    let pooled = plain_client();
    let mut pace = mix.pace().map(|pace| {
        let mut ticks = tokio::time::interval(pace);
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        ticks
    });
    let mut next_id = 1u64;
    while !load.stopped() {
        let calls = 1 + random.below(CALLS_PER_VISIT);
        let with_session = random.below(2) == 0;
        let leaves_without_delete = with_session && random.below(2) == 0;
        // An agent that leaves without closing its session also takes its
        // connections with it.
        let client = if leaves_without_delete {
            plain_client()
        } else {
            pooled.clone()
        };
        let session = if with_session {
            match open_session(&client, &load.url).await {
                Ok(session) => {
                    load.record(|window| window.sessions_opened += 1);
                    Some(session)
                }
                Err(what) => {
                    load.unexpected(format!("opening a session: {what}"));
                    continue;
                }
            }
        } else {
            None
        };
        for _ in 0..calls {
            if load.stopped() {
                break;
            }
            if let Some(pace) = &mut pace {
                pace.tick().await;
            }
            let behaviour = mix.pick(&mut random);
            next_id += 1;
            let started = Instant::now();
            match call(&client, &load.url, session.as_deref(), behaviour, next_id).await {
                Ok(outcome) => load.record(|window| match outcome {
                    Outcome::Result => {
                        window.results += 1;
                        if behaviour == Behaviour::Small {
                            window.small_latencies.push(started.elapsed());
                        }
                    }
                    Outcome::UpstreamStatus => window.upstream_status += 1,
                    Outcome::UpstreamReset => window.upstream_reset += 1,
                }),
                Err(what) => load.unexpected(format!("{}: {what}", behaviour.tool())),
            }
        }
        let Some(session) = session else { continue };
        if leaves_without_delete {
            load.record(|window| window.sessions_dropped += 1);
            continue;
        }
        match close_session(&client, &load.url, &session).await {
            Ok(()) => load.record(|window| window.sessions_deleted += 1),
            Err(what) => load.unexpected(format!("closing a session: {what}")),
        }
    }
}

/// How a call ended, when it ended as its behaviour calls for.
enum Outcome {
    Result,
    UpstreamStatus,
    UpstreamReset,
}

const PROTOCOL_2025: &str = "2025-11-25";
const PROTOCOL_2026: &str = "2026-07-28";

/// `initialize` and the initialized notification; the session's id.
async fn open_session(client: &reqwest::Client, url: &str) -> Result<String, String> {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_2025, "capabilities": {},
        "clientInfo": {"name": "soak-bench", "version": "1"}}});
    let answer = send(client.post(url).json(&initialize)).await?;
    let session = answer
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .ok_or("initialize opened no session")?
        .to_owned();
    read_message(answer).await?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    send(
        client
            .post(url)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", PROTOCOL_2025)
            .json(&initialized),
    )
    .await?;
    Ok(session)
}

async fn close_session(client: &reqwest::Client, url: &str, session: &str) -> Result<(), String> {
    send(
        client
            .delete(url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", PROTOCOL_2025),
    )
    .await
    .map(drop)
}

/// One tools/call, on `session` (the `initialize` era) or with none (2026-07-28).
async fn call(
    client: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    behaviour: Behaviour,
    id: u64,
) -> Result<Outcome, String> {
    let tool = behaviour.tool();
    let request = match session {
        Some(session) => client
            .post(url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", PROTOCOL_2025)
            .json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": {}}})),
        None => client
            .post(url)
            .header("mcp-protocol-version", PROTOCOL_2026)
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool)
            .json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": PROTOCOL_2026,
                "io.modelcontextprotocol/clientInfo": {"name": "soak-bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }}})),
    };
    let message = read_message(send(request).await?).await?;
    let result = &message["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let is_error = result["isError"].as_bool();
    match (behaviour, is_error) {
        // Pretty-printed by the gateway, so longer than the upstream's body.
        (Behaviour::Big, Some(false)) if text.len() >= BIG_ANSWER_BYTES => Ok(Outcome::Result),
        (Behaviour::Small | Behaviour::Slow, Some(false)) => Ok(Outcome::Result),
        (Behaviour::Failing, Some(true)) if text.contains("UPSTREAM_STATUS") => {
            Ok(Outcome::UpstreamStatus)
        }
        (Behaviour::Reset, Some(true)) if text.contains("UPSTREAM_RESET") => {
            Ok(Outcome::UpstreamReset)
        }
        _ => {
            let shown: String = message.to_string().chars().take(200).collect();
            Err(format!("not the expected answer: {shown}"))
        }
    }
}

/// Sends a request to the gateway; a response with a success status.
async fn send(request: reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
    let response = request
        .header("accept", "application/json, text/event-stream")
        .send()
        .await
        .map_err(|error| format!("no answer: {error}"))?;
    if !response.status().is_success() {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        return Err(format!("HTTP {status}: {body}"));
    }
    Ok(response)
}

/// The one JSON-RPC message of a response; a JSON-RPC error is an error.
async fn read_message(response: reqwest::Response) -> Result<Value, String> {
    let body = response
        .bytes()
        .await
        .map_err(|error| format!("the answer broke off: {error}"))?;
    let message: Value = serde_json::from_slice(&body)
        .map_err(|_| format!("not one JSON message: {}", String::from_utf8_lossy(&body)))?;
    match message.get("error") {
        Some(error) => Err(format!("JSON-RPC error {error}")),
        None => Ok(message),
    }
}

fn plain_client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("a reqwest client")
}

/// xorshift64*: the same sequence from the same seed, with no dependency.
struct Random(u64);

impl Random {
    fn new(seed: u64) -> Random {
        Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `bound`.
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) % bound
    }
}

// ---------------------------------------------------------------- samples

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The gateway up, no load yet.
    Before,
    Load,
    /// The load stopped; sessions left are being reaped.
    After,
}

/// The gateway's latest census, from its log.
#[derive(Clone, Copy, Default)]
struct Census {
    sessions: u64,
    connections: u64,
    calls_in_flight: u64,
    tasks: u64,
}

struct Sample {
    at: Duration,
    phase: Phase,
    /// What the clients saw over `span`, since the sample before.
    window: Window,
    span: Duration,
    /// Of one core, over the window.
    cpu_percent: f64,
    rss: u64,
    peak_rss: u64,
    fds: u64,
    threads: u64,
    census: Option<Census>,
}

struct Sampler {
    pid: u32,
    census: Arc<Mutex<Option<Census>>>,
    started: Instant,
    last: Instant,
    cpu_ticks: u64,
    totals: Window,
}

impl Sampler {
    fn new(gateway: &Gateway) -> Sampler {
        Sampler {
            pid: gateway.pid,
            census: gateway.census.clone(),
            started: Instant::now(),
            last: Instant::now(),
            cpu_ticks: cpu_ticks(gateway.pid),
            totals: Window::default(),
        }
    }

    fn sample(&mut self, phase: Phase, load: &Load) -> Sample {
        let window =
            std::mem::take(&mut *load.window.lock().unwrap_or_else(PoisonError::into_inner));
        let ticks = cpu_ticks(self.pid);
        let span = self.last.elapsed();
        let cpu_percent = ticks.saturating_sub(self.cpu_ticks) as f64
            / ticks_per_second()
            / span.as_secs_f64().max(1e-3)
            * 100.0;
        self.cpu_ticks = ticks;
        self.last = Instant::now();
        self.totals.add(&window);
        let status = Status::read(self.pid);
        Sample {
            at: self.started.elapsed(),
            phase,
            span,
            cpu_percent,
            rss: status.bytes("VmRSS:"),
            peak_rss: status.bytes("VmHWM:"),
            threads: status.number("Threads:"),
            fds: std::fs::read_dir(format!("/proc/{}/fd", self.pid))
                .map_or(0, |entries| entries.count() as u64),
            census: *self.census.lock().unwrap_or_else(PoisonError::into_inner),
            window,
        }
    }

    fn print_totals(&self, said: &Mutex<Said>) {
        let totals = &self.totals;
        let elapsed = self.started.elapsed().as_secs_f64();
        println!(
            "calls: {} ({:.0}/s over the whole run): {} results, {} UPSTREAM_STATUS (500), {} UPSTREAM_RESET; {} unexpected",
            totals.calls(),
            totals.calls() as f64 / elapsed,
            totals.results,
            totals.upstream_status,
            totals.upstream_reset,
            totals.unexpected,
        );
        for example in &totals.unexpected_examples {
            println!("  unexpected: {example}");
        }
        println!(
            "sessions: {} opened, {} closed with DELETE, {} dropped without",
            totals.sessions_opened, totals.sessions_deleted, totals.sessions_dropped
        );
        let mut small = totals.small_latencies.clone();
        if let Some([p50, p90, p99]) = percentiles(&mut small) {
            println!(
                "small calls over the whole run: p50 {} ms, p90 {} ms, p99 {} ms",
                millis(p50),
                millis(p90),
                millis(p99)
            );
        }
        let said = said.lock().unwrap_or_else(PoisonError::into_inner);
        println!(
            "gateway log: {} warnings and errors besides the calls'",
            said.warnings
        );
        for line in &said.first_warnings {
            println!("  {line}");
        }
    }
}

fn print_header() {
    println!(
        "| t s | phase | calls/s | results | 500 | reset | unexpected | small p50 ms | p90 ms | p99 ms | CPU % | RSS MB | HWM MB | fds | threads | sessions | connections | in flight | tasks |"
    );
    println!(
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
}

impl Sample {
    fn print(&self) {
        let mut small = self.window.small_latencies.clone();
        let [p50, p90, p99] = percentiles(&mut small)
            .map_or_else(|| ["".into(), "".into(), "".into()], |p| p.map(millis));
        let census = |figure: fn(&Census) -> u64| {
            self.census
                .as_ref()
                .map_or("?".into(), |census| figure(census).to_string())
        };
        let phase = match self.phase {
            Phase::Before => "before",
            Phase::Load => "load",
            Phase::After => "after",
        };
        println!(
            "| {:.0} | {phase} | {:.0} | {} | {} | {} | {} | {p50} | {p90} | {p99} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.at.as_secs_f64(),
            self.window.calls() as f64 / self.span.as_secs_f64().max(1e-3),
            self.window.results,
            self.window.upstream_status,
            self.window.upstream_reset,
            self.window.unexpected,
            self.cpu_percent,
            megabytes(self.rss),
            megabytes(self.peak_rss),
            self.fds,
            self.threads,
            census(|c| c.sessions),
            census(|c| c.connections),
            census(|c| c.calls_in_flight),
            census(|c| c.tasks),
        );
    }
}

/// p50, p90 and p99 of `latencies` (sorted in place), if there are any.
fn percentiles(latencies: &mut [Duration]) -> Option<[Duration; 3]> {
    if latencies.is_empty() {
        return None;
    }
    latencies.sort_unstable();
    let at = |fraction: f64| {
        let index = ((latencies.len() as f64 * fraction).ceil() as usize).clamp(1, latencies.len());
        latencies[index - 1]
    };
    Some([at(0.5), at(0.9), at(0.99)])
}

fn millis(duration: Duration) -> String {
    format!("{:.2}", duration.as_secs_f64() * 1e3)
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1_048_576.0)
}

// ---------------------------------------------------------------- verdict

/// The gateway before the load and once its sessions are gone: what it
/// holds should be back where it started, memory aside (allocators keep
/// what they took).
fn print_before_and_after(samples: &[Sample]) {
    let (Some(before), Some(after)) = (samples.first(), samples.last()) else {
        return;
    };
    let census = |sample: &Sample| {
        sample.census.map_or("no census".into(), |census| {
            format!(
                "{} sessions, {} connections, {} tasks",
                census.sessions, census.connections, census.tasks
            )
        })
    };
    for (when, sample) in [("before the load", before), ("after it", after)] {
        println!(
            "{when}: RSS {} MB, {} descriptors, {} threads, {}",
            megabytes(sample.rss),
            sample.fds,
            sample.threads,
            census(sample)
        );
    }
}

/// One figure judged for growth: how far it may rise from the middle third
/// of the loaded run to the last before it counts as growing. A share of
/// its level, plus a few units for figures that move in whole units (a
/// session, a descriptor) or by an answer's buffers (memory).
struct Growth {
    name: &'static str,
    share: f64,
    slack: f64,
    figure: fn(&Sample) -> Option<f64>,
}

const GROWTH: [Growth; 6] = [
    Growth {
        name: "RSS MB",
        share: 0.10,
        slack: 4.0,
        figure: |sample| Some(sample.rss as f64 / 1_048_576.0),
    },
    Growth {
        name: "open descriptors",
        share: 0.10,
        slack: 8.0,
        figure: |sample| Some(sample.fds as f64),
    },
    Growth {
        name: "threads",
        share: 0.10,
        slack: 4.0,
        figure: |sample| Some(sample.threads as f64),
    },
    Growth {
        name: "sessions",
        share: 0.10,
        slack: 10.0,
        figure: |sample| sample.census.map(|census| census.sessions as f64),
    },
    Growth {
        name: "connections",
        share: 0.10,
        slack: 8.0,
        figure: |sample| sample.census.map(|census| census.connections as f64),
    },
    Growth {
        name: "tasks",
        share: 0.10,
        slack: 40.0,
        figure: |sample| sample.census.map(|census| census.tasks as f64),
    },
];

/// The peak (`VmHWM`) only rises: it counts as growing when it rose by
/// more than this over the last third.
const PEAK_GROWTH: Growth = Growth {
    name: "peak RSS MB (VmHWM)",
    share: 0.10,
    slack: 4.0,
    figure: |sample| Some(sample.peak_rss as f64 / 1_048_576.0),
};

struct Judgement {
    name: &'static str,
    middle: f64,
    last: f64,
    limit: f64,
}

impl Judgement {
    fn grows(&self) -> bool {
        self.last > self.limit
    }
}

/// Each figure's middle and last thirds of the loaded run, or `None` when
/// the run is too short to have thirds.
fn judge(samples: &[Sample]) -> Option<Vec<Judgement>> {
    let loaded: Vec<&Sample> = samples
        .iter()
        .filter(|sample| sample.phase == Phase::Load)
        .collect();
    if loaded.len() < 3 {
        return None;
    }
    let (middle, last) = (
        &loaded[loaded.len() / 3..loaded.len() * 2 / 3],
        &loaded[loaded.len() * 2 / 3..],
    );
    let mean = |samples: &[&Sample], figure: fn(&Sample) -> Option<f64>| {
        let values: Vec<f64> = samples.iter().filter_map(|sample| figure(sample)).collect();
        values.iter().sum::<f64>() / values.len().max(1) as f64
    };
    let limit = |growth: &Growth, level: f64| level * (1.0 + growth.share) + growth.slack;
    let mut judged: Vec<Judgement> = GROWTH
        .iter()
        .map(|growth| {
            let middle = mean(middle, growth.figure);
            Judgement {
                name: growth.name,
                middle,
                last: mean(last, growth.figure),
                limit: limit(growth, middle),
            }
        })
        .collect();
    let peak = |sample: &Sample| (PEAK_GROWTH.figure)(sample).unwrap_or_default();
    let peak_before_last = peak(middle[middle.len() - 1]);
    judged.push(Judgement {
        name: PEAK_GROWTH.name,
        middle: peak_before_last,
        last: peak(last[last.len() - 1]),
        limit: limit(&PEAK_GROWTH, peak_before_last),
    });
    Some(judged)
}

/// Prints the verdict; whether the soak failed.
fn print_verdict(
    judged: &Option<Vec<Judgement>>,
    reaped: bool,
    options: &Options,
    sampler: &Sampler,
    stopped_cleanly: bool,
) -> bool {
    println!();
    let mut failed = false;
    match judged {
        None => {
            println!("soak: FAILED: too few samples under load to judge; run longer");
            failed = true;
        }
        Some(judged) => {
            println!("| figure | middle third | last third | limit | verdict |");
            println!("| --- | ---: | ---: | ---: | --- |");
            for judgement in judged {
                println!(
                    "| {} | {:.1} | {:.1} | {:.1} | {} |",
                    judgement.name,
                    judgement.middle,
                    judgement.last,
                    judgement.limit,
                    if judgement.grows() { "GROWS" } else { "flat" }
                );
                failed |= judgement.grows();
            }
            println!("(means of the samples; the peak at the end of each third)");
        }
    }
    if reaped {
        println!(
            "soak: every session was gone within {} s of the load stopping",
            (options.idle_timeout + REAPING_MARGIN).as_secs()
        );
    } else {
        println!(
            "soak: FAILED: sessions were still alive {} s after the load stopped",
            (options.idle_timeout + REAPING_MARGIN).as_secs()
        );
        failed = true;
    }
    if sampler.totals.unexpected > 0 {
        println!(
            "soak: FAILED: {} calls or sessions ended otherwise than their upstream behaviour calls for",
            sampler.totals.unexpected
        );
        failed = true;
    }
    if !stopped_cleanly {
        println!("soak: FAILED: the gateway did not exit 0 on SIGTERM within 30 s");
        failed = true;
    }
    println!(
        "soak: {}",
        if failed {
            "FAILED"
        } else {
            "ok: nothing grew without bound"
        }
    );
    failed
}

// ---------------------------------------------------------------- upstream

/// The upstream, in a process of its own.
struct Upstream {
    address: SocketAddr,
    _process: Child,
}

impl Upstream {
    async fn start() -> Upstream {
        let (process, address) = start_upstream().await;
        Upstream {
            address,
            _process: process,
        }
    }

    fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }
}

async fn accept_upstream(listener: tokio::net::TcpListener) {
    serve_connections(listener, |stream| {
        let socket = stream.as_raw_fd();
        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            upstream_answer(request.uri().path().to_owned(), socket)
        })
    })
    .await
}

/// The answer for `path`; for `/reset`, an error, on which hyper drops the
/// connection, reset rather than closed.
async fn upstream_answer(
    path: String,
    socket: RawFd,
) -> Result<hyper::Response<Full<Bytes>>, std::io::Error> {
    let answer = |status: u16, body: Bytes| {
        hyper::Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .body(Full::new(body))
            .expect("a response")
    };
    match path.as_str() {
        "/small" => Ok(answer(200, Bytes::from_static(SMALL_ANSWER))),
        "/big" => Ok(answer(200, big_answer())),
        "/slow" => {
            tokio::time::sleep(SLOW_ANSWER_AFTER).await;
            Ok(answer(200, Bytes::from_static(SMALL_ANSWER)))
        }
        "/failing" => Ok(answer(
            500,
            Bytes::from_static(br#"{"error":"the soak's failing path"}"#),
        )),
        "/reset" => {
            reset_on_close(socket);
            Err(std::io::Error::other("reset, as the path asks"))
        }
        _ => Ok(answer(404, Bytes::new())),
    }
}

/// About 1 MB of JSON, an array of small objects as an API lists them;
/// built once and shared.
fn big_answer() -> Bytes {
    static BIG: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
    BIG.get_or_init(|| {
        let mut text = String::from("[");
        for id in 0.. {
            let item = format!(r#"{{"id":{id},"name":"pet-{id}","tag":"soak"}}"#);
            if text.len() + item.len() + 2 > BIG_ANSWER_BYTES {
                break;
            }
            if id > 0 {
                text.push(',');
            }
            text.push_str(&item);
        }
        text.push(']');
        Bytes::from(text)
    })
    .clone()
}

/// Makes the socket's close send a reset (RST) instead of a FIN.
fn reset_on_close(socket: RawFd) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: `socket` is the connection whose request is being answered, so
    // it is open; setsockopt only reads the `linger` it is given.
    unsafe {
        libc::setsockopt(
            socket,
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

// ---------------------------------------------------------------- gateway

/// The gateway's warnings and errors other than its per-call lines.
#[derive(Default)]
struct Said {
    warnings: u64,
    first_warnings: Vec<String>,
}

/// A gateway process, started as a user starts it, its log read as it goes.
struct Gateway {
    child: Child,
    pid: u32,
    /// `http://127.0.0.1:PORT/mcp`
    url: String,
    census: Arc<Mutex<Option<Census>>>,
    said: Arc<Mutex<Said>>,
}

impl Gateway {
    async fn start(bin: &Path, document: &Path, base_url: &str, options: &Options) -> Gateway {
        let mut child = Command::new(bin)
            .arg("serve")
            .arg("--openapi")
            .arg(document)
            .args(["--base-url", base_url, "--listen", "127.0.0.1:0"])
            .arg("--session-idle-timeout")
            .arg(options.idle_timeout.as_secs().to_string())
            .arg("--census-interval")
            .arg(options.census_every.as_secs().to_string())
            .args(["--log-format", "json"])
            .env("HOSTED_MCP_CREDENTIAL", CREDENTIAL)
            .env("RUST_LOG", "info,hosted_mcp_gateway::census=debug")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the gateway starts");
        let pid = child.id().expect("the gateway runs");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr is piped")).lines();
        let url = loop {
            let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
                .await
                .expect("the gateway says it is up within 60 s")
                .expect("its stderr reads")
                .expect("the gateway exits before it is up");
            let event: Value = serde_json::from_str(&line).unwrap_or_default();
            if event["message"] == "serving over HTTP" {
                break event["url"].as_str().expect("the URL served").to_owned();
            }
        };
        let census = Arc::new(Mutex::new(None));
        let said = Arc::new(Mutex::new(Said::default()));
        let (latest, heard) = (census.clone(), said.clone());
        // Read to the end, so the gateway never blocks writing its log.
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let event: Value = serde_json::from_str(&line).unwrap_or_default();
                if event["message"] == "census" {
                    let count = |name: &str| event[name].as_u64().unwrap_or_default();
                    *latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(Census {
                        sessions: count("sessions"),
                        connections: count("connections"),
                        calls_in_flight: count("calls_in_flight"),
                        tasks: count("tasks"),
                    });
                } else if event["message"] != "call"
                    && (event["level"] == "WARN" || event["level"] == "ERROR")
                {
                    let mut said = heard.lock().unwrap_or_else(PoisonError::into_inner);
                    said.warnings += 1;
                    if said.first_warnings.len() < 5 {
                        said.first_warnings.push(line);
                    }
                }
            }
        });
        Gateway {
            child,
            pid,
            url,
            census,
            said,
        }
    }

    /// Waits, at most `patience`, for the census the gateway logs as it
    /// starts, so that the first sample has one.
    async fn first_census(&self, patience: Duration) {
        let deadline = Instant::now() + patience;
        while self
            .census
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// SIGTERM, as a service manager stops it; whether it exited 0 within
    /// 30 s (then SIGKILL).
    async fn stop(&mut self) -> bool {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.pid as libc::pid_t, libc::SIGTERM) };
        match tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await {
            Ok(Ok(status)) => status.success(),
            _ => {
                let _ = self.child.kill().await;
                false
            }
        }
    }
}
