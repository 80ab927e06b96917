//! Sessions of the `initialize` era do not pile up: one whose client leaves
//! without a DELETE is closed once idle for `--session-idle-timeout`, and the
//! census in the log counts the sessions alive (issue 39).

#![cfg(unix)]

use std::ops::RangeInclusive;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{http_client, serve_http, start_listening, terminate, Listening, GATEWAY};

/// Nothing is called upstream: only sessions are opened and closed.
const NO_UPSTREAM: &str = "http://127.0.0.1:9";

/// How long a test waits for what the census should show: far beyond the
/// 1-second census and idle timeout, for a loaded machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// A gateway logging its census every second as JSON lines, with `options`.
fn gateway_with_census(options: &[&str]) -> Listening {
    start_listening(|port| {
        let mut command = serve_http(NO_UPSTREAM, port);
        command
            .args(["--census-interval", "1", "--log-format", "json"])
            .args(options)
            .env("RUST_LOG", "info,hosted_mcp_gateway::census=debug");
        command
    })
}

/// One JSON-RPC message posted in the `initialize` era, on `session` if any.
async fn post(
    client: &reqwest::Client,
    port: u16,
    session: Option<&str>,
    message: Value,
) -> reqwest::Response {
    let mut request = client
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&message);
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    request.send().await.expect("the gateway answers the POST")
}

/// `initialize` and the initialized notification: a session ready for
/// requests, by its id.
async fn open_session(client: &reqwest::Client, port: u16) -> String {
    let answer = post(
        client,
        port,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "sessions-test", "version": "1"}}}),
    )
    .await;
    assert_eq!(answer.status(), 200, "initialize is answered");
    let session = answer
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .expect("initialize opens a session")
        .to_owned();
    let initialized = post(
        client,
        port,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert!(initialized.status().is_success(), "{initialized:?}");
    session
}

/// The HTTP status of a `ping` on `session`.
async fn ping(client: &reqwest::Client, port: u16, session: &str) -> u16 {
    post(
        client,
        port,
        Some(session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    )
    .await
    .status()
    .as_u16()
}

/// The census events logged so far, in order.
fn censuses(gateway: &Listening) -> Vec<Value> {
    gateway
        .stderr_so_far()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["message"] == "census")
        .collect()
}

/// Waits until the censuses show, in order, sessions counts in each of
/// `counts` (a census of a later count comes after one of the earlier), and
/// returns those censuses; fails with every census seen after `PATIENCE`.
/// Sessions only come and go one way in these tests, so a count seen after
/// another is what happened since, whenever the log was read.
async fn censuses_showing(gateway: &Listening, counts: &[RangeInclusive<u64>]) -> Vec<Value> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let seen = censuses(gateway);
        let mut found = Vec::new();
        for event in &seen {
            let wanted = counts.get(found.len());
            if wanted.is_some_and(|wanted| {
                event["sessions"]
                    .as_u64()
                    .is_some_and(|n| wanted.contains(&n))
            }) {
                found.push(event.clone());
            }
        }
        if found.len() == counts.len() {
            return found;
        }
        let shown: Vec<&Value> = seen.iter().map(|event| &event["sessions"]).collect();
        assert!(
            Instant::now() < deadline,
            "the censuses never showed sessions {counts:?} in turn within {PATIENCE:?}; they \
             showed {shown:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_dropped_without_delete_are_closed_once_idle() {
    let mut gateway = gateway_with_census(&["--session-idle-timeout", "1"]);
    let port = gateway.port;
    let client = http_client().build().expect("a client");

    let mut dropped = Vec::new();
    for _ in 0..3 {
        let session = open_session(&client, port).await;
        assert_eq!(
            ping(&client, port, &session).await,
            200,
            "the session is alive"
        );
        dropped.push(session);
    }
    // Nothing more is sent on these sessions (a request would count as
    // activity) until the census shows them gone.
    censuses_showing(&gateway, &[1..=3, 0..=0]).await;
    for session in &dropped {
        assert_eq!(
            ping(&client, port, session).await,
            404,
            "a reaped session is unknown"
        );
    }

    terminate(&gateway.child);
    let (status, stderr) = gateway.finish();
    assert!(status.success(), "exit status {status}:\n{stderr}");
    // So short a timeout would close a session under a call waiting on the
    // API: the operator is told at start-up.
    assert!(
        stderr.contains("--session-idle-timeout 1s is not above the 15s call deadline"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_census_counts_live_sessions_until_their_delete() {
    let mut gateway = gateway_with_census(&[]);
    let port = gateway.port;
    let client = http_client().build().expect("a client");

    let first = open_session(&client, port).await;
    let _second = open_session(&client, port).await;
    let two = censuses_showing(&gateway, &[2..=2]).await.remove(0);
    assert_eq!(two["level"], "DEBUG", "{two}");
    assert_eq!(two["calls_in_flight"], 0, "{two}");
    for count in ["connections", "tasks"] {
        assert!(
            two[count].as_u64().is_some_and(|n| n > 0),
            "{count} is counted: {two}"
        );
    }

    let closed = client
        .delete(format!("http://127.0.0.1:{port}/mcp"))
        .header("Mcp-Session-Id", &first)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .expect("the DELETE is answered");
    assert_eq!(closed.status(), 204, "the session is closed");
    censuses_showing(&gateway, &[2..=2, 1..=1]).await;

    terminate(&gateway.child);
    let (status, stderr) = gateway.finish();
    assert!(status.success(), "exit status {status}:\n{stderr}");
    assert!(!stderr.contains("call deadline"), "{stderr}");
}

/// An idle timeout of 0 would close every session at once, and one given
/// with `--stateless` would do nothing: both are refused at start.
#[test]
fn a_zero_or_needless_idle_timeout_is_refused() {
    for (options, says) in [
        (
            &["--session-idle-timeout", "0"][..],
            "--session-idle-timeout",
        ),
        (
            &["--session-idle-timeout", "60", "--stateless"][..],
            "--stateless",
        ),
        (&["--census-interval", "0"][..], "--census-interval"),
    ] {
        let output = Command::new(GATEWAY)
            .args(["serve", "--openapi"])
            .arg(crate::support::fixture())
            .args(["--base-url", NO_UPSTREAM, "--listen", "127.0.0.1:0"])
            .args(options)
            .output()
            .expect("the gateway runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{options:?}: {stderr}");
        assert!(stderr.contains(says), "{options:?}: {stderr}");
    }
}
