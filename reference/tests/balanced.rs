//! Several copies behind a load balancer: three gateways behind nginx
//! (round-robin, no stickiness), and the official MCP Python SDK making 300
//! calls through it in each protocol era. With `--stateless` every call is
//! answered; with the default in-memory sessions the `initialize` era cannot
//! work there, which is why the option exists.
//!
//! Needs nginx (Debian's package `nginx`; `.ci/run` installs it) and, like
//! `sdk_clients.rs`, python3 with PyPI the first time.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::{
    manifest_dir, python, serve_http, start_listening, start_listening_with_admin, Listening,
};

const CALLS: u64 = 300;
const COPIES: usize = 3;

/// Answers `GET /pets/{id}` with the id asked for.
struct EchoId;

impl Respond for EchoId {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let id = request.url.path().rsplit('/').next().unwrap_or_default();
        ResponseTemplate::new(200).set_body_raw(format!("{{\"id\":\"{id}\"}}"), "application/json")
    }
}

/// Servers killed and reaped when the test ends, however it ends.
struct Processes(Vec<Listening>);

impl Drop for Processes {
    fn drop(&mut self) {
        for server in &mut self.0 {
            let _ = server.child.kill();
            let _ = server.child.wait();
        }
    }
}

fn nginx() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
        .expect("nginx is not installed: install Debian's package `nginx`, as .ci/run does")
}

/// nginx in the foreground on `port`, balancing round-robin over `backends`,
/// with every file it writes under `dir`. One process, no master and
/// workers: killing the master left its workers running after the tests.
fn nginx_on(dir: &Path, port: u16, backends: &[u16]) -> Command {
    let servers: String = backends
        .iter()
        .map(|backend| format!("        server 127.0.0.1:{backend};\n"))
        .collect();
    let dir_text = dir.display();
    let config = format!(
        "daemon off;\n\
         master_process off;\n\
         pid {dir_text}/nginx.pid;\n\
         error_log {dir_text}/error.log warn;\n\
         events {{ worker_connections 512; }}\n\
         http {{\n\
         \x20   access_log off;\n\
         \x20   client_body_temp_path {dir_text}/body;\n\
         \x20   proxy_temp_path {dir_text}/proxy;\n\
         \x20   fastcgi_temp_path {dir_text}/fastcgi;\n\
         \x20   uwsgi_temp_path {dir_text}/uwsgi;\n\
         \x20   scgi_temp_path {dir_text}/scgi;\n\
         \x20   upstream gateways {{\n{servers}    }}\n\
         \x20   server {{\n\
         \x20       listen 127.0.0.1:{port};\n\
         \x20       location / {{\n\
         \x20           proxy_pass http://gateways;\n\
         \x20           proxy_http_version 1.1;\n\
         \x20           proxy_set_header Connection \"\";\n\
         \x20           proxy_set_header Host $http_host;\n\
         \x20           proxy_buffering off;\n\
         \x20       }}\n\
         \x20   }}\n\
         }}\n"
    );
    let config_path = dir.join("nginx.conf");
    std::fs::write(&config_path, config).expect("the nginx config is writable");
    let mut command = Command::new(nginx());
    command
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&config_path)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdout(Stdio::null());
    command
}

async fn echoing_upstream() -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(EchoId)
        .mount(&upstream)
        .await;
    upstream
}

/// Three gateways in front of one upstream, nginx in front of them; the
/// balanced endpoint's URL.
async fn balanced(extra: &[&str], name: &str) -> (Processes, String, MockServer) {
    let upstream = echoing_upstream().await;
    let (processes, base) = copies_behind_nginx(name, || {
        start_listening(|port| {
            let mut command = serve_http(&upstream.uri(), port);
            command.args(extra).env("RUST_LOG", "warn");
            command
        })
    });
    (processes, format!("{base}/mcp"), upstream)
}

/// Three copies started by `gateway()` and nginx in front of them: the
/// processes, and nginx's base URL.
fn copies_behind_nginx(name: &str, gateway: impl Fn() -> Listening) -> (Processes, String) {
    let mut processes = Processes(Vec::new());
    let mut backends = Vec::new();
    for _ in 0..COPIES {
        let copy = gateway();
        backends.push(copy.port);
        processes.0.push(copy);
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("nginx-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("nginx's directory");
    let nginx = start_listening(|port| nginx_on(&dir, port, &backends));
    let base = format!("http://127.0.0.1:{}", nginx.port);
    processes.0.push(nginx);
    (processes, base)
}

fn calls_through_sdk(url: &str, era: &str) -> Output {
    let script = manifest_dir().join("tests/python/call_tools.py");
    Command::new(python())
        .arg(script)
        .args([url, era, &CALLS.to_string()])
        .output()
        .expect("python runs")
}

fn answered(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "the SDK's calls failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the script prints JSON")
}

/// Each call of both eras reached the API once: none lost, none repeated.
async fn assert_one_upstream_request_per_call(upstream: &MockServer) {
    let requests = upstream.received_requests().await.unwrap_or_default();
    assert_eq!(
        requests.len(),
        2 * CALLS as usize,
        "one upstream request per call"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn stateless_copies_answer_every_call_in_both_eras() {
    let (_processes, url, upstream) = balanced(&["--stateless"], "stateless").await;

    for (era, protocols) in [
        ("handshake", &["2025-06-18", "2025-11-25"][..]),
        ("discover", &["2026-07-28"][..]),
    ] {
        let seen = answered(&calls_through_sdk(&url, era));
        assert!(
            protocols.contains(&seen["protocol"].as_str().unwrap_or_default()),
            "{era}: negotiated {}",
            seen["protocol"]
        );
        assert_eq!(
            seen["answered"], CALLS,
            "{era}: calls not answered with their own result: {}",
            seen["wrong"]
        );
    }
    assert_one_upstream_request_per_call(&upstream).await;
}

/// Copies of one config of two APIs, stateless behind nginx: every copy
/// serves every API, and each API's calls reach its own host alone.
#[tokio::test(flavor = "multi_thread")]
async fn stateless_copies_of_one_config_serve_every_api() {
    let (alpha, beta) = (echoing_upstream().await, echoing_upstream().await);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("balanced-config");
    std::fs::create_dir_all(&dir).expect("a folder");
    let config = dir.join("gateway.yaml");
    let fixture = crate::support::fixture();
    std::fs::write(
        &config,
        format!(
            "apis:\n  - name: alpha\n    openapi: {doc}\n    base_url: {alpha}\n\
             \x20 - name: beta\n    openapi: {doc}\n    base_url: {beta}\n",
            doc = fixture.display(),
            alpha = alpha.uri(),
            beta = beta.uri()
        ),
    )
    .expect("written");
    let (_processes, base) = copies_behind_nginx("config", || {
        start_listening(|port| {
            let mut command = Command::new(crate::support::GATEWAY);
            command
                .args(["serve", "--stateless", "--config"])
                .arg(&config)
                .args(["--listen", &format!("127.0.0.1:{port}")])
                .env("RUST_LOG", "warn")
                .stdout(Stdio::null());
            command
        })
    });
    for (name, upstream) in [("alpha", &alpha), ("beta", &beta)] {
        for era in ["handshake", "discover"] {
            let seen = answered(&calls_through_sdk(&format!("{base}/mcp/{name}"), era));
            assert_eq!(seen["answered"], CALLS, "{name} {era}: {}", seen["wrong"]);
        }
        assert_one_upstream_request_per_call(upstream).await;
    }
}

/// The reason for `--stateless`: with sessions in one process's memory, a
/// client of the `initialize` era whose requests land on another copy fails.
#[tokio::test(flavor = "multi_thread")]
async fn sessions_in_memory_do_not_survive_round_robin() {
    let (_processes, url, _upstream) = balanced(&[], "sessions").await;

    let output = calls_through_sdk(&url, "handshake");
    let all_answered = output.status.success()
        && serde_json::from_slice::<Value>(&output.stdout)
            .is_ok_and(|seen| seen["answered"] == CALLS);
    assert!(
        !all_answered,
        "every call was answered through round-robin with in-memory sessions"
    );
    // It fails because another copy does not know the session.
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("404") || said.to_lowercase().contains("session"),
        "the calls failed for another reason than the session: {said}"
    );
}

/// Redis in the foreground on a port of its own, keeping nothing on disk.
fn redis_on(port: u16) -> Command {
    let redis = ["/usr/bin/redis-server", "/usr/sbin/redis-server"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
        .expect("redis-server is not installed: install Debian's package `redis-server`, as .ci/run does");
    let mut command = Command::new(redis);
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .stdout(Stdio::null());
    command
}

/// How many of `calls` 2026-07-28 calls made one after another at `url`
/// were answered (200) and refused (429); anything else fails the test.
async fn count_answers(url: &str, calls: usize) -> (usize, usize) {
    let client = crate::support::http_client().build().expect("a client");
    let (mut answered, mut limited) = (0, 0);
    for n in 0..calls {
        let message = serde_json::json!({
            "jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "showPetById", "arguments": {"petId": format!("p{n}")}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "shared-limits", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }},
        });
        let response = client
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "showPetById")
            .json(&message)
            .send()
            .await
            .expect("nginx answers");
        match response.status().as_u16() {
            200 => answered += 1,
            429 => limited += 1,
            other => panic!(
                "call {n}: {other}: {}",
                response.text().await.unwrap_or_default()
            ),
        }
    }
    (answered, limited)
}

/// Three copies behind nginx share one agent's limit through Redis: the
/// agent over it is refused whichever copy it reaches. With Redis gone,
/// each copy limits on its own, says so once, and calls go on.
#[tokio::test(flavor = "multi_thread")]
async fn copies_share_an_agents_limit_through_redis_and_go_on_without_it() {
    let upstream = echoing_upstream().await;
    let mut redis = start_listening(redis_on);
    let store = format!("redis://127.0.0.1:{}/0", redis.port);
    let (processes, base) = copies_behind_nginx("shared-limits", || {
        start_listening_with_admin(|port, admin| {
            let mut command = serve_http(&upstream.uri(), port);
            command
                .args([
                    "--stateless",
                    "--agent-calls-per-second",
                    "1",
                    "--agent-burst",
                    "3",
                ])
                .args(["--agent-limits-redis", &store])
                .args(["--admin-listen", &format!("127.0.0.1:{admin}")]);
            command
        })
    });
    let url = format!("{base}/mcp");
    // Behind nginx every call comes from its address: one agent, whose
    // three-call burst is the same on every copy.
    let (answered, limited) = count_answers(&url, 12).await;
    assert!(
        (3..=4).contains(&answered),
        "{answered} answered: each copy let its own burst through"
    );
    assert_eq!(answered + limited, 12);

    // Redis is gone: each copy limits on its own (a burst of three each),
    // and nothing else fails.
    let _ = redis.child.kill();
    let _ = redis.child.wait();
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let (answered, limited) = count_answers(&url, 12).await;
    assert!(
        (6..=12).contains(&answered) && limited <= 6,
        "{answered} answered, {limited} limited without the store"
    );
    for copy in &processes.0[..COPIES] {
        crate::support::wait_for_log(copy, "limits store cannot be reached", 1);
        let log = copy.stderr_so_far();
        assert_eq!(
            log.matches("limits store cannot be reached").count(),
            1,
            "{log}"
        );
    }
    let client = crate::support::http_client().build().expect("a client");
    for admin in processes.0[..COPIES].iter().filter_map(|copy| copy.admin) {
        let metrics = client
            .get(format!("http://127.0.0.1:{admin}/metrics"))
            .send()
            .await
            .expect("the admin listener answers")
            .text()
            .await
            .expect("a body");
        assert!(
            metrics.contains("hosted_mcp_agent_limits_shared{api=\"default\"} 0"),
            "{metrics}"
        );
    }
}
