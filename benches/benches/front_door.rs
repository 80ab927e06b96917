//! The front door under attack, through the release gateway: what one
//! client with thousands of unfinished connections, or a body trickled a
//! byte a second, does to another agent's calls, and what one runaway agent
//! does to another agent of the same API with and without per-agent
//! limits. Every figure is against the same agent's calls with nothing
//! else going on, in the same run.
//!
//! - slow clients: the gateway under a descriptor limit of 4,096 (as the
//!   attack of issue 56 found it), defaults otherwise. An agent's calls,
//!   each on a connection of its own, one at a time: alone; while one
//!   client holds 4,215 connections each with the start of a head; while
//!   500 connections trickle a body a byte a second. With each, the
//!   descriptors the gateway held at most, how many of the attacker's
//!   connections it still held after its head deadline, and its metrics'
//!   closed connections by reason.
//! - a runaway agent: two agents of one API by their keys, the API
//!   answering in 20 ms, the gateway taking 16 calls at once
//!   (`--max-calls 16`). The steady agent makes calls from 2 loops; the
//!   runaway from 64. The steady agent's calls a second and median, alone,
//!   beside the runaway with no per-agent limit, and beside it with
//!   `--agent-calls-in-flight 4`.
//!
//! ```sh
//! nice cargo bench -p hosted-mcp-benches --bench front_door
//! ```
//!
//! Linux only: it reads `/proc`, and needs util-linux's `prlimit`.

mod process;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use process::{cpu_ticks, gateway_binary, load_average, ticks_per_second, Status};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};
use tokio::process::{Child, Command};

/// The attack of issue 56: one client, this many connections, a descriptor
/// limit of this many.
const HALF_OPEN: usize = 4_215;
const DESCRIPTORS: u32 = 4_096;
const TRICKLING: usize = 500;
/// An agent's calls measured in each phase of the slow-client part.
const AGENT_CALLS: usize = 100;
/// How long each round of the runaway-agent part lasts.
const ROUND: Duration = Duration::from_secs(5);

const STEADY_KEY: &str = "key-steady-bench-0001";
const RUNAWAY_KEY: &str = "key-runaway-bench-0002";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--serve-upstream") {
        let delay =
            Duration::from_millis(args.get(at + 1).and_then(|ms| ms.parse().ok()).unwrap_or(0));
        process::serve_upstream(move |listener| {
            process::serve_connections(listener, move |_| {
                hyper::service::service_fn(
                    move |_request: hyper::Request<hyper::body::Incoming>| async move {
                        tokio::time::sleep(delay).await;
                        Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from_static(
                            br#"{"id":1,"name":"Rex"}"#,
                        ))))
                    },
                )
            })
        });
        return;
    }
    if args.iter().any(|arg| arg == "--list" || arg == "--test") {
        return;
    }
    let _ = rlimit::increase_nofile_limit(16_384);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        println!("front door, {} UTC, load {}", now(), load_average());
        slow_clients().await;
        runaway_agent().await;
        println!("load at the end: {}", load_average());
    });
}

fn now() -> String {
    let output = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    output.unwrap_or_default()
}

/// A gateway in front of `upstream`, with `extra` options, under a
/// descriptor limit when given: the process, its port and its admin port.
async fn gateway(
    upstream: SocketAddr,
    descriptors: Option<u32>,
    extra: &[&str],
) -> (Child, u16, u16) {
    let bin = gateway_binary("FRONT_DOOR_GATEWAY", &[]);
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/petstore.yaml");
    let port = free_port();
    let admin = free_port();
    let mut command = match descriptors {
        Some(limit) => {
            let mut command = Command::new("prlimit");
            command
                .arg(format!("--nofile={limit}:{limit}"))
                .arg("--")
                .arg(&bin);
            command
        }
        None => Command::new(&bin),
    };
    command
        .args(["serve", "--openapi"])
        .arg(&fixture)
        .args(["--base-url", &format!("http://{upstream}")])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--admin-listen", &format!("127.0.0.1:{admin}")])
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let child = command.spawn().expect("the gateway starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(Instant::now() < deadline, "the gateway never listened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    (child, port, admin)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

async fn connect_from(from: &str, port: u16) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(
        from.parse::<IpAddr>().expect("an address"),
        0,
    ))?;
    socket.connect(([127, 0, 0, 1], port).into()).await
}

/// A 2026-07-28 `tools/call` as raw HTTP/1.1, on a connection of its own.
fn call_request(port: u16, key: Option<&str>) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"showPetById","arguments":{"petId":"7"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"front-door-bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let authorization = key.map_or_else(String::new, |key| {
        format!("Authorization: Bearer {key}\r\n")
    });
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: showPetById\r\n{authorization}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// What one call got: its status, or `None` for no answer within 5 s.
async fn call(from: &str, port: u16, key: Option<&str>) -> (Option<u16>, Duration) {
    let started = Instant::now();
    let answered = tokio::time::timeout(Duration::from_secs(5), async {
        let mut stream = connect_from(from, port).await.ok()?;
        stream.write_all(&call_request(port, key)).await.ok()?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.ok()?;
        let line = String::from_utf8_lossy(&answer);
        line.split_whitespace().nth(1)?.parse::<u16>().ok()
    })
    .await
    .ok()
    .flatten();
    (answered, started.elapsed())
}

/// An agent's calls one after another: the median and p99 in µs, and how
/// many got no answer.
async fn agent_calls(port: u16) -> (f64, f64, usize) {
    let mut took = Vec::with_capacity(AGENT_CALLS);
    let mut unanswered = 0;
    for _ in 0..AGENT_CALLS {
        match call("127.0.0.2", port, None).await {
            (Some(200), time) => took.push(time.as_secs_f64() * 1e6),
            _ => unanswered += 1,
        }
    }
    took.sort_by(f64::total_cmp);
    (percentile(&took, 0.5), percentile(&took, 0.99), unanswered)
}

fn percentile(sorted: &[f64], at: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * at).round() as usize]
}

/// A process's CPU time, read phase by phase.
struct Cpu {
    pid: u32,
    ticks: u64,
}

impl Cpu {
    fn of(pid: u32) -> Cpu {
        Cpu {
            pid,
            ticks: cpu_ticks(pid),
        }
    }

    /// Seconds of CPU since the last reading.
    fn seconds_since(&mut self) -> f64 {
        let now = cpu_ticks(self.pid);
        let spent = now.saturating_sub(self.ticks) as f64 / ticks_per_second();
        self.ticks = now;
        spent
    }
}

fn rss_mb(pid: u32) -> f64 {
    Status::read(pid).bytes("VmRSS:") as f64 / 1e6
}

fn descriptors_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |dir| dir.count())
}

async fn metrics(admin: u16) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", admin))
        .await
        .expect("admin");
    let _ = stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await;
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text).await;
    text
}

/// The connections the gateway closed, by reason, from its metrics.
async fn closed_by_reason(admin: u16) -> String {
    let text = metrics(admin).await;
    let closed: Vec<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix("hosted_mcp_connections_closed_total{reason=\""))
        .filter_map(|rest| {
            let (reason, count) = rest.split_once("\"} ")?;
            Some(format!("{reason} {count}"))
        })
        .collect();
    closed.join(", ")
}

/// Whether the gateway closed `stream`: a read ends rather than waits.
async fn closed(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(Duration::from_millis(20), stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

async fn slow_clients() {
    let (_upstream, upstream_at) = process::start_upstream().await;
    let (gateway, port, admin) = gateway(upstream_at, Some(DESCRIPTORS), &[]).await;
    let pid = gateway.id().expect("a pid");
    println!("\n## slow clients (descriptor limit {DESCRIPTORS}, defaults)\n");
    println!(
        "| phase | agent median µs | agent p99 µs | unanswered of {AGENT_CALLS} | median / alone \
         | gateway descriptors at most | gateway CPU s | gateway RSS MB |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut cpu = Cpu::of(pid);
    let (alone, alone_p99, missed) = agent_calls(port).await;
    println!(
        "| alone | {alone:.0} | {alone_p99:.0} | {missed} | 1.00 | {} | {:.2} | {:.0} |",
        descriptors_of(pid),
        cpu.seconds_since(),
        rss_mb(pid)
    );

    // One client, thousands of heads begun and never finished.
    let mut held = Vec::with_capacity(HALF_OPEN);
    let opened = Instant::now();
    for _ in 0..HALF_OPEN {
        if let Ok(mut stream) = connect_from("127.0.0.1", port).await {
            let _ = stream
                .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .await;
            held.push(stream);
        }
    }
    let opening = opened.elapsed();
    let most = descriptors_of(pid);
    let (median, p99, missed) = agent_calls(port).await;
    let most = most.max(descriptors_of(pid));
    println!(
        "| {HALF_OPEN} half-open connections from one client (opened, then the agent's calls) | {median:.0} | {p99:.0} | {missed} | {:.2} | {most} | {:.2} | {:.0} |",
        median / alone,
        cpu.seconds_since(),
        rss_mb(pid)
    );
    // Past the head deadline (10 s from each connection's first byte) of
    // the last one opened.
    let since = opened.elapsed();
    tokio::time::sleep((opening + Duration::from_secs(11)).saturating_sub(since)).await;
    let mut open = 0;
    for stream in &mut held {
        if !closed(stream).await {
            open += 1;
        }
    }
    println!(
        "\n{} of the {HALF_OPEN} connections were taken in {:.1} s; 11 s after the last, the gateway \
         held {open} of them; closed by reason: {}\n",
        held.len(),
        opening.as_secs_f64(),
        closed_by_reason(admin).await
    );
    drop(held);
    tokio::time::sleep(Duration::from_secs(1)).await;
    cpu.seconds_since();

    // Bodies trickled a byte a second.
    let mut trickling = Vec::with_capacity(TRICKLING);
    for _ in 0..TRICKLING {
        if let Ok(mut stream) = connect_from("127.0.0.1", port).await {
            // A call's head, as the endpoint takes it, and a body that
            // never ends.
            let call = String::from_utf8(call_request(port, None)).expect("text");
            let head = call.split("Content-Length:").next().unwrap_or_default();
            let head = format!("{head}Content-Length: 100000\r\n\r\n{{");
            let _ = stream.write_all(head.as_bytes()).await;
            trickling.push(stream);
        }
    }
    let trickle = tokio::spawn(async move {
        for _ in 0..60 {
            for stream in &mut trickling {
                let _ = stream.try_write(b" ");
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        trickling
    });
    let (median, p99, missed) = agent_calls(port).await;
    println!(
        "| {TRICKLING} bodies trickled a byte a second | {median:.0} | {p99:.0} | {missed} | {:.2} | {} | {:.2} | {:.0} |",
        median / alone,
        descriptors_of(pid),
        cpu.seconds_since(),
        rss_mb(pid)
    );
    trickle.abort();
    drop(gateway);
}

async fn runaway_agent() {
    let (_upstream, upstream_at) = process::start_serving(&["--serve-upstream", "20"]).await;
    let keys = keys_file();
    let keys = keys.to_str().expect("UTF-8");
    println!("\n## a runaway agent (the API answers in 20 ms, --max-calls 16)\n");
    println!("| round | steady calls/s | steady median ms | runaway calls/s | runaway refused (429) | steady / alone |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let base = ["--agent-keys", keys, "--max-calls", "16"];
    let alone = round(upstream_at, &base, false).await;
    let beside = round(upstream_at, &base, true).await;
    let limited: Vec<&str> = base
        .iter()
        .copied()
        .chain(["--agent-calls-in-flight", "4"])
        .collect();
    let limits = round(upstream_at, &limited, true).await;
    for (name, figures) in [
        ("steady alone", &alone),
        ("beside a runaway, no per-agent limit", &beside),
        ("beside a runaway, --agent-calls-in-flight 4", &limits),
    ] {
        println!(
            "| {name} | {:.0} | {:.1} | {:.0} | {} | {:.2} |",
            figures.steady_rate,
            figures.steady_median_ms,
            figures.runaway_rate,
            figures.runaway_refused,
            figures.steady_rate / alone.steady_rate
        );
    }
}

#[derive(Clone, Copy, Default)]
struct Figures {
    steady_rate: f64,
    steady_median_ms: f64,
    runaway_rate: f64,
    runaway_refused: usize,
}

/// One round of the steady agent's two loops, beside the runaway's 64 or
/// alone.
async fn round(upstream: SocketAddr, args: &[&str], with_runaway: bool) -> Figures {
    let (gateway, port, _) = gateway(upstream, None, args).await;
    let started = Instant::now();
    let loops = |key: &'static str, count: usize| {
        (0..count)
            .map(|_| {
                tokio::spawn(async move {
                    let (mut served, mut refused, mut took) = (0usize, 0usize, Vec::new());
                    // An agent's MCP client keeps its connection.
                    let mut client = KeptConnection { port, stream: None };
                    while started.elapsed() < ROUND {
                        let began = Instant::now();
                        match client.call(key).await {
                            Some(200) => {
                                served += 1;
                                took.push(began.elapsed().as_secs_f64() * 1e3);
                            }
                            Some(429) => refused += 1,
                            _ => {}
                        }
                    }
                    (served, refused, took)
                })
            })
            .collect::<Vec<_>>()
    };
    let steady = loops(STEADY_KEY, 2);
    let runaway = if with_runaway {
        loops(RUNAWAY_KEY, 64)
    } else {
        Vec::new()
    };
    let mut figures = Figures::default();
    let mut took = Vec::new();
    for task in steady {
        let (served, _, times) = task.await.expect("a loop");
        figures.steady_rate += served as f64 / ROUND.as_secs_f64();
        took.extend(times);
    }
    for task in runaway {
        let (served, refused, _) = task.await.expect("a loop");
        figures.runaway_rate += served as f64 / ROUND.as_secs_f64();
        figures.runaway_refused += refused;
    }
    took.sort_by(f64::total_cmp);
    figures.steady_median_ms = percentile(&took, 0.5);
    drop(gateway);
    figures
}

/// A client that keeps its connection between calls, as MCP clients do,
/// and opens another when the gateway closes it.
struct KeptConnection {
    port: u16,
    stream: Option<tokio::io::BufReader<TcpStream>>,
}

impl KeptConnection {
    /// One call's status, or `None` when the connection broke.
    async fn call(&mut self, key: &str) -> Option<u16> {
        use tokio::io::AsyncBufReadExt as _;
        if self.stream.is_none() {
            let stream = TcpStream::connect(("127.0.0.1", self.port)).await.ok()?;
            self.stream = Some(tokio::io::BufReader::new(stream));
        }
        let stream = self.stream.as_mut()?;
        let request = String::from_utf8(call_request(self.port, Some(key)))
            .ok()?
            .replace("Connection: close\r\n", "");
        let status = async {
            stream.get_mut().write_all(request.as_bytes()).await.ok()?;
            let mut line = String::new();
            stream.read_line(&mut line).await.ok()?;
            let status = line.split_whitespace().nth(1)?.parse::<u16>().ok()?;
            let (mut length, mut closes) = (0usize, false);
            loop {
                line.clear();
                stream.read_line(&mut line).await.ok()?;
                let header = line.trim_end().to_ascii_lowercase();
                if header.is_empty() {
                    break;
                }
                if let Some(value) = header.strip_prefix("content-length:") {
                    length = value.trim().parse().ok()?;
                }
                closes |= header == "connection: close";
            }
            let mut body = vec![0u8; length];
            stream.read_exact(&mut body).await.ok()?;
            Some((status, closes))
        }
        .await;
        match status {
            Some((status, closes)) => {
                if closes {
                    self.stream = None;
                }
                Some(status)
            }
            None => {
                self.stream = None;
                None
            }
        }
    }
}

/// The keys file of the two agents, as `agent-key --stdin` writes it.
fn keys_file() -> PathBuf {
    let bin = gateway_binary("FRONT_DOOR_GATEWAY", &[]);
    let file = std::env::temp_dir().join(format!("front-door-bench-{}.keys", std::process::id()));
    let lines: Vec<String> = [(STEADY_KEY, "steady"), (RUNAWAY_KEY, "runaway")]
        .iter()
        .map(|(key, label)| {
            use std::io::Write as _;
            let mut child = std::process::Command::new(&bin)
                .args(["agent-key", "--stdin", "--label", label])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("agent-key runs");
            writeln!(child.stdin.take().expect("stdin"), "{key}").expect("the key is written");
            let output = child.wait_with_output().expect("agent-key ends");
            String::from_utf8_lossy(&output.stderr).trim().to_owned()
        })
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").expect("the keys file is written");
    file
}
