//! Stopping loses no work: on SIGTERM the HTTP gateway refuses new
//! connections, answers the call in flight and exits 0; over stdio it exits
//! 0 when stdin closes, after answering what it read.

#![cfg(unix)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{fixture, start_listening, GATEWAY};
/// How long the upstream takes: the call is surely in flight when the
/// gateway is told to stop.
const UPSTREAM_DELAY: Duration = Duration::from_millis(1500);

async fn slow_upstream() -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pets"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("[\"slow-7f3a\"]", "application/json")
                .set_delay(UPSTREAM_DELAY),
        )
        .mount(&upstream)
        .await;
    upstream
}

/// Waits for the child's exit, at most `within`.
fn exit_within(child: &mut Child, within: Duration) -> ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().expect("the gateway can be waited for") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the gateway did not exit within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A 2026-07-28 `tools/call` of `listPets`, one POST with no session.
fn call_over_http(port: u16) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "listPets", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "shutdown-test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    })
    .to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: listPets\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

#[tokio::test(flavor = "multi_thread")]
async fn on_sigterm_the_call_in_flight_is_answered_and_the_exit_is_clean() {
    let upstream = slow_upstream().await;
    let gateway = start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--openapi"])
            .arg(fixture())
            .args(["--base-url", &upstream.uri(), "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .stdout(Stdio::null());
        command
    });
    let (port, mut child) = (gateway.port, gateway.child);

    let deadline = Instant::now() + Duration::from_secs(10);
    let call = std::thread::spawn(move || call_over_http(port));
    while upstream
        .received_requests()
        .await
        .unwrap_or_default()
        .is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "the call never reached the upstream"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(stopped.success());

    let answer = call.join().expect("the call thread ends");
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.contains("slow-7f3a"),
        "the call in flight was not answered: {answer}"
    );
    let status = exit_within(&mut child, Duration::from_secs(10));
    assert!(status.success(), "exit status {status}");
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "still accepting connections after stopping"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn over_stdio_what_was_read_is_answered_before_the_exit() {
    let upstream = slow_upstream().await;
    let mut child = Command::new(GATEWAY)
        .args(["serve", "--stdio", "--openapi"])
        .arg(fixture())
        .args(["--base-url", &upstream.uri()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the gateway starts");
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "shutdown-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "listPets", "arguments": {}}}),
    ];
    let mut stdin = child.stdin.take().unwrap();
    for message in messages {
        writeln!(stdin, "{message}").unwrap();
    }
    drop(stdin);

    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let answered = out
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .any(|message| message["id"] == 2 && message["result"].to_string().contains("slow-7f3a"));
    assert!(
        answered,
        "the call read before stdin closed was not answered:\n{out}"
    );
    let status = exit_within(&mut child, Duration::from_secs(10));
    assert!(status.success(), "exit status {status}");
}
