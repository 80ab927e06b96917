//! Under load: every call answered with its own answer, memory bounded by
//! the limit on calls in flight, and a call that finds no turn told so.
//!
//! Each test starts the gateway over HTTP, as it is hosted, and records its
//! peak resident memory (VmHWM) in the test's output.

#![cfg(target_os = "linux")]

use std::process::Child;
use std::time::Duration;

use futures::future::join_all;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::{
    call_2026, http_client, result_text, serve_http, start_listening, terminate, KillOnDrop,
};

/// Answers `GET /pets/{id}` with the id it was asked for, after `delay`
/// when the id says `slow`.
struct EchoId {
    delay: Duration,
}

impl Respond for EchoId {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let id = request.url.path().rsplit('/').next().unwrap_or_default();
        let answer = ResponseTemplate::new(200)
            .set_body_raw(format!("{{\"answering\":\"{id}\"}}"), "application/json");
        if id.starts_with("slow") {
            answer.set_delay(self.delay)
        } else {
            answer
        }
    }
}

/// A gateway process, killed if a test ends without stopping it.
struct Running {
    child: KillOnDrop,
    port: u16,
}

/// The gateway over HTTP in front of `upstream`, with `extra` options.
fn start_gateway(upstream: &MockServer, extra: &[&str]) -> Running {
    let server = start_listening(|port| {
        let mut command = serve_http(&upstream.uri(), port);
        command.args(extra).env("RUST_LOG", "warn");
        command
    });
    Running {
        child: server.child,
        port: server.port,
    }
}

/// The process's peak resident set, in MB.
fn peak_rss_mb(child: &Child) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .expect("the gateway's /proc status reads");
    let kb: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM is in /proc status");
    kb / 1024.0
}

fn stop(mut gateway: Running) {
    terminate(&gateway.child);
    let status = gateway.child.wait().expect("the gateway exits");
    assert!(status.success(), "exit status {status}");
}

/// This test opens a thousand connections at once, and the gateway as
/// many again plus its upstream's: the soft limit on descriptors must allow it.
fn assert_descriptors_for(connections: u64) {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft: Option<u64> = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .and_then(|line| line.split_whitespace().nth(3))
        .and_then(|soft| soft.parse().ok());
    if let Some(soft) = soft {
        assert!(
            soft >= connections,
            "this test needs {connections} file descriptors, the soft limit is {soft}: \
             raise it with `ulimit -n {connections}`"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_calls_at_once_each_get_their_own_answer() {
    const CALLS: usize = 1000;
    assert_descriptors_for(2 * CALLS as u64 + 500);
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(EchoId {
            delay: Duration::from_secs(2),
        })
        .mount(&upstream)
        .await;
    // The default limit of calls in flight, as operators run it.
    let gateway = start_gateway(&upstream, &[]);
    let port = gateway.port;

    let client = http_client()
        .pool_max_idle_per_host(0)
        .build()
        .expect("a client");
    let ids: Vec<String> = (0..CALLS)
        .map(|call| {
            let pace = if call % 2 == 0 { "slow" } else { "fast" };
            format!("{pace}-{call}-9f2c")
        })
        .collect();
    let answers = join_all(ids.iter().map(|id| {
        let client = client.clone();
        async move { call_2026(&client, port, "showPetById", json!({"petId": id})).await }
    }))
    .await;

    for (id, answer) in ids.iter().zip(&answers) {
        assert_eq!(
            answer["result"]["isError"], false,
            "call {id} failed: {answer}"
        );
        assert!(
            result_text(answer).contains(&format!("\"answering\": \"{id}\"")),
            "call {id} got another call's answer: {answer}"
        );
    }
    let requests = upstream.received_requests().await.unwrap_or_default();
    assert_eq!(requests.len(), CALLS, "each call is one upstream request");
    let peak = peak_rss_mb(&gateway.child);
    eprintln!("peak RSS of the gateway (debug build), {CALLS} calls at once: {peak:.1} MB");
    stop(gateway);
}

/// Two hundred calls whose answers are 1 MB each arrive together; with at
/// most 16 in flight the gateway holds 16 answers at a time, not 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_is_bounded_by_the_calls_in_flight() {
    const CALLS: usize = 200;
    const LIMIT: &str = "16";
    let upstream = MockServer::start().await;
    let megabyte = "x".repeat(1_000_000);
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(megabyte, "text/plain")
                .set_delay(Duration::from_millis(300)),
        )
        .mount(&upstream)
        .await;
    let gateway = start_gateway(&upstream, &["--max-calls", LIMIT]);
    let port = gateway.port;
    let before = peak_rss_mb(&gateway.child);

    let client = http_client().build().expect("a client");
    let answers = join_all((0..CALLS).map(|call| {
        let client = client.clone();
        async move {
            let id = format!("big-{call}");
            call_2026(&client, port, "showPetById", json!({"petId": id})).await
        }
    }))
    .await;

    for answer in &answers {
        assert_eq!(result_text(answer).len(), 1_000_000, "a whole answer");
    }
    let peak = peak_rss_mb(&gateway.child);
    eprintln!(
        "peak RSS of the gateway (debug build), {CALLS} answers of 1 MB, {LIMIT} in flight: \
         {peak:.1} MB (at start {before:.1} MB)"
    );
    // 16 answers of a few MB each (body, text, the JSON-RPC message) and
    // the runtime (about 40 MB here): far below the 200 x 1-3 MB that 200
    // at once take (about 245 MB here).
    assert!(
        peak - before < 120.0,
        "the gateway grew by {:.1} MB with {LIMIT} calls in flight",
        peak - before
    );
    stop(gateway);
}

/// With one call allowed in flight: the first call hangs until the deadline
/// cuts it off at 15 s; the second, a second later, gets the turn then and
/// hangs in its turn; the third, a second after that, waits its 15 s for a
/// turn in vain and is told the gateway is busy. Nothing of it is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_finds_no_turn_within_the_deadline_is_told_so() {
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("[]", "application/json")
                .set_delay(Duration::from_secs(60)),
        )
        .mount(&upstream)
        .await;
    let gateway = start_gateway(&upstream, &["--max-calls", "1"]);
    let port = gateway.port;
    let client = http_client().build().expect("a client");

    let mut hanging = Vec::new();
    for id in ["first", "second"] {
        let client = client.clone();
        hanging.push(tokio::spawn(async move {
            call_2026(&client, port, "showPetById", json!({"petId": id})).await
        }));
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let third = call_2026(&client, port, "showPetById", json!({"petId": "third"})).await;

    assert!(
        result_text(&third).starts_with("[GATEWAY_BUSY] "),
        "{third}"
    );
    assert_eq!(third["result"]["isError"], true);
    let sent: Vec<String> = upstream
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|request| request.url.path().to_owned())
        .collect();
    assert_eq!(
        sent,
        ["/pets/first", "/pets/second"],
        "the call that found no turn sent nothing"
    );
    hanging.iter().for_each(|call| call.abort());
}
