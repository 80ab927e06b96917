//! Hosting many APIs: one gateway serving 200 APIs from a config file,
//! against 200 gateways of one API each, in the same run: start-up time,
//! resident memory, and a call on one API while the others are idle.
//!
//! The APIs are the shared corpus's documents (every one the gateway
//! loads), repeated under different names up to the count, and the
//! petstore fixture first, whose `listPets` is the call timed. Both forms
//! run the release gateway against one loopback upstream (this bench
//! started again with `--serve-upstream`, answering every request with a
//! small JSON object).
//!
//! - start-up: from the spawn to every endpoint answering (the one process
//!   serves all; the 200 are started at once, each until its port
//!   answers);
//! - memory: resident set (`VmRSS`) once all are up, summed over the 200;
//! - a call: raw 2026-07-28 `tools/call`s of `listPets`, one at a time over
//!   a kept connection, rounds taking turns: the first API of the one
//!   process, the same API's own process, and a gateway started with the
//!   flags alone (the baseline, one API, nothing else loaded); median and
//!   CPU per call of the process that served it.
//!
//! ```sh
//! nice cargo bench -p hosted-mcp-benches --bench hosting               # 200 APIs
//! nice cargo bench -p hosted-mcp-benches --bench hosting -- --apis 50
//! ```
//!
//! Linux only: it reads `/proc`.

mod process;

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use process::{cpu_ticks, gateway_binary, load_average, ticks_per_second, Status};
use tokio::process::{Child, Command};

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"listPets","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"hosting-bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|arg| arg == "--serve-upstream") {
        process::serve_upstream(|listener| {
            process::serve_connections(listener, |_| {
                hyper::service::service_fn(
                    |_request: hyper::Request<hyper::body::Incoming>| async {
                        Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from_static(
                            br#"{"pets":[]}"#,
                        ))))
                    },
                )
            })
        });
        return;
    }
    let apis = args
        .iter()
        .position(|arg| arg == "--apis")
        .and_then(|at| args.get(at + 1))
        .map_or(200, |count| count.parse().expect("--apis takes a number"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(apis));
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ sits in the workspace")
}

/// The petstore fixture, then every corpus document the gateway loads.
fn documents(bin: &Path) -> Vec<PathBuf> {
    let mut documents = vec![workspace().join("fixtures/petstore.yaml")];
    let corpus = workspace().join("../shared/corpus");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.sort();
    for path in found {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        if !["json", "yaml", "yml"].contains(&extension) {
            continue;
        }
        let loads = std::process::Command::new(bin)
            .args(["tools", "--openapi"])
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if loads {
            documents.push(path);
        }
    }
    documents
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until `port` takes a connection.
async fn answering(port: u16) {
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn rss_mb(pid: u32) -> f64 {
    Status::read(pid).bytes("VmRSS:") as f64 / 1e6
}

async fn run(count: usize) {
    let bin = gateway_binary("HOSTING_GATEWAY", &[]);
    let (_upstream, address) = process::start_upstream().await;
    let base_url = format!("http://{address}");
    let documents = documents(&bin);
    let scratch = std::env::temp_dir().join(format!("hosting-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let apis: Vec<(String, &PathBuf)> = (0..count)
        .map(|n| (format!("api-{n}"), &documents[n % documents.len()]))
        .collect();
    eprintln!(
        "hosting: {count} APIs of {} documents; gateway {}; load average {}",
        documents.len(),
        bin.display(),
        load_average()
    );

    // One gateway, every API.
    let config = scratch.join("gateway.yaml");
    let mut text = String::from("apis:\n");
    for (name, document) in &apis {
        text.push_str(&format!(
            "  - name: {name}\n    openapi: {}\n    base_url: {base_url}\n",
            document.display()
        ));
    }
    std::fs::write(&config, text).expect("the config is written");
    let port = free_port();
    let started = Instant::now();
    let one = spawn(
        &bin,
        &["serve", "--config", &config.display().to_string()],
        port,
    );
    answering(port).await;
    let one_start = started.elapsed();
    let one_rss = rss_mb(one.id().expect("running"));

    // As many gateways, an API each.
    let started = Instant::now();
    let mut many = Vec::with_capacity(count);
    for (_, document) in &apis {
        let port = free_port();
        let args = [
            "serve",
            "--openapi",
            &document.display().to_string(),
            "--base-url",
            &base_url,
        ];
        many.push((spawn(&bin, &args, port), port));
    }
    for (_, port) in &many {
        answering(*port).await;
    }
    let many_start = started.elapsed();
    let many_rss: f64 = many
        .iter()
        .map(|(child, _)| rss_mb(child.id().expect("running")))
        .sum();

    // The baseline: the first API alone, from the flags.
    let alone_port = free_port();
    let petstore = documents[0].display().to_string();
    let alone = spawn(
        &bin,
        &["serve", "--openapi", &petstore, "--base-url", &base_url],
        alone_port,
    );
    answering(alone_port).await;

    let targets = [
        (
            "one gateway, api-0 of many",
            one.id().expect("running"),
            format!("http://127.0.0.1:{port}/mcp/api-0"),
        ),
        (
            "api-0's own gateway",
            many[0].0.id().expect("running"),
            format!("http://127.0.0.1:{}/mcp", many[0].1),
        ),
        (
            "one API alone (baseline)",
            alone.id().expect("running"),
            format!("http://127.0.0.1:{alone_port}/mcp"),
        ),
    ];
    hosted_mcp_gateway::deliver::install_crypto_provider();
    let client = reqwest::Client::new();
    let mut medians = vec![Vec::new(); targets.len()];
    let mut cpu = vec![0u64; targets.len()];
    const ROUNDS: usize = 7;
    const CALLS: usize = 500;
    for round in 0..=ROUNDS {
        for (at, (_, pid, url)) in targets.iter().enumerate() {
            let before = cpu_ticks(*pid);
            let mut latencies = Vec::with_capacity(CALLS);
            for _ in 0..CALLS {
                let started = Instant::now();
                let answer = client
                    .post(url)
                    .header("Accept", "application/json, text/event-stream")
                    .header("Content-Type", "application/json")
                    .header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", "tools/call")
                    .header("Mcp-Name", "listPets")
                    .body(CALL)
                    .send()
                    .await
                    .expect("answered")
                    .bytes()
                    .await
                    .expect("read");
                latencies.push(started.elapsed());
                assert!(
                    answer.windows(8).any(|w| w == br#"\"pets\""#),
                    "not the upstream's answer: {}",
                    String::from_utf8_lossy(&answer)
                );
            }
            // Round 0 warms connections and caches.
            if round > 0 {
                cpu[at] += cpu_ticks(*pid) - before;
                latencies.sort_unstable();
                medians[at].push(latencies[CALLS / 2]);
            }
        }
    }

    println!("| form | start-up | resident memory |");
    println!("| --- | ---: | ---: |");
    println!(
        "| one gateway, {count} APIs | {:.2} s | {one_rss:.0} MB |",
        one_start.as_secs_f64()
    );
    println!(
        "| {count} gateways, an API each | {:.2} s | {many_rss:.0} MB |",
        many_start.as_secs_f64()
    );
    println!(
        "| one / many | {:.2} | {:.3} |",
        one_start.as_secs_f64() / many_start.as_secs_f64(),
        one_rss / many_rss
    );
    println!();
    println!("| a call of listPets, one at a time | median µs | CPU µs/call | median / baseline | CPU / baseline |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let per_call = |ticks: u64| ticks as f64 / ticks_per_second() * 1e6 / (ROUNDS * CALLS) as f64;
    let median = |rounds: &Vec<Duration>| {
        let mut sorted = rounds.clone();
        sorted.sort_unstable();
        sorted[sorted.len() / 2].as_secs_f64() * 1e6
    };
    let baseline = (median(&medians[2]), per_call(cpu[2]));
    for (at, (label, _, _)) in targets.iter().enumerate() {
        let (latency, cpu) = (median(&medians[at]), per_call(cpu[at]));
        println!(
            "| {label} | {latency:.0} | {cpu:.0} | {:.2} | {:.2} |",
            latency / baseline.0,
            cpu / baseline.1
        );
    }
    eprintln!("hosting: load average at end {}", load_average());
    drop((one, many, alone));
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The gateway with `args`, listening on `port`, its output discarded;
/// killed when dropped.
fn spawn(bin: &Path, args: &[&str], port: u16) -> Child {
    Command::new(bin)
        .args(args)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the gateway starts")
}
