//! The front door, tried from outside as an attacker would (issue 56): one
//! client holding thousands of connections it never finishes, a body
//! trickled a byte a second, idle keep-alives, one address hoarding
//! connections, and a runaway agent calling as fast as it can. Through
//! each, another agent's calls are answered, and the gateway's descriptors
//! stay under its cap.

#![cfg(target_os = "linux")]

use std::net::{IpAddr, SocketAddr};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{http_client, serve_http, start_listening_with_admin, Listening, GATEWAY};

/// What "promptly" means here: well inside the five seconds in which, before
/// this work, an agent got no answer at all under such an attack. Not a
/// speed target (those are in benches/): a bound on being served at all.
const PROMPTLY: Duration = Duration::from_secs(3);

async fn upstream(delay: Duration) -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(r#"{"id":1,"name":"Rex"}"#, "application/json")
                .set_delay(delay),
        )
        .mount(&upstream)
        .await;
    upstream
}

/// The gateway in front of `api`, under a descriptor limit of
/// `descriptors` when given (util-linux's `prlimit` execs it: same pid),
/// with `extra` options and an admin listener, where its metrics are read.
fn gateway(api: &MockServer, descriptors: Option<u32>, extra: &[&str]) -> Listening {
    start_listening_with_admin(|port, admin| {
        let mut serve = serve_http(&api.uri(), port);
        serve.args(["--admin-listen", &format!("127.0.0.1:{admin}")]);
        let mut command = match descriptors {
            Some(limit) => {
                let mut prlimit = Command::new("prlimit");
                prlimit
                    .arg(format!("--nofile={limit}:{limit}"))
                    .arg("--")
                    .arg(serve.get_program())
                    .args(serve.get_args());
                prlimit
            }
            None => serve,
        };
        command.args(extra).stdout(std::process::Stdio::null());
        command
    })
}

/// A connection to the gateway from the loopback address `from`.
async fn connect_from(from: &str, port: u16) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(
        from.parse::<IpAddr>().expect("an address"),
        0,
    ))?;
    socket.connect(([127, 0, 0, 1], port).into()).await
}

/// A 2026-07-28 `tools/call` of `showPetById` as raw HTTP/1.1.
fn call_request(port: u16, headers: &str) -> Vec<u8> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "showPetById", "arguments": {"petId": "7"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "front-door", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    })
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: showPetById\r\n{headers}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One call on a connection of its own from `from`: the status line and
/// the body, and how long it took.
async fn call_from(from: &str, port: u16, headers: &str) -> (String, String, Duration) {
    let started = Instant::now();
    let answered = async {
        let mut stream = connect_from(from, port).await?;
        stream.write_all(&call_request(port, headers)).await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&answer).into_owned())
    };
    let answer = tokio::time::timeout(Duration::from_secs(20), answered)
        .await
        .unwrap_or_else(|_| Ok("no answer in 20 s".to_owned()))
        .unwrap_or_else(|error| format!("failed: {error}"));
    let status = answer.lines().next().unwrap_or_default().to_owned();
    let body = answer
        .split_once("\r\n\r\n")
        .map_or("", |(_, body)| body)
        .to_owned();
    (status, body, started.elapsed())
}

/// Descriptors the process `pid` holds now.
fn descriptors_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |dir| dir.count())
}

/// Whether the gateway has closed `stream`: a read ends (0 bytes or an
/// error) rather than waiting.
async fn closed_by_gateway(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(Duration::from_millis(50), stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// The value of a counter of the gateway's metrics, by its line's start.
async fn metric(admin: u16, line_start: &str) -> f64 {
    let text = http_client()
        .build()
        .expect("a client")
        .get(format!("http://127.0.0.1:{admin}/metrics"))
        .send()
        .await
        .expect("the admin listener answers")
        .text()
        .await
        .expect("a body");
    text.lines()
        .filter(|line| line.starts_with(line_start))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread")]
async fn thousands_of_unfinished_connections_lock_no_agent_out() {
    // The attacker's own descriptors: more than the gateway may hold.
    rlimit::increase_nofile_limit(8192).expect("the test's descriptor limit");
    let api = upstream(Duration::ZERO).await;
    let gateway = gateway(&api, Some(1024), &["--request-head-timeout", "4"]);
    let admin = gateway.admin.expect("an admin listener");
    let port = gateway.port;
    let pid = gateway.child.id();
    // The start-up line says what it holds.
    crate::support::wait_for_log(&gateway, "holding connections", 1);
    let log = gateway.stderr_so_far();
    let cap: usize = log
        .split("max_connections=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cap in the start-up line: {log}"));
    assert!(cap < 1024, "the cap {cap} leaves no room below the limit");

    // One client opens far more connections than the cap, each with the
    // start of a head, then nothing.
    let attack = 1_500;
    let mut held = Vec::with_capacity(attack);
    for _ in 0..attack {
        if let Ok(mut stream) = connect_from("127.0.0.1", port).await {
            let _ = stream
                .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .await;
            held.push(stream);
        }
    }
    // Meanwhile another agent, from another address, is answered promptly,
    // call after call, and the admin listener's health check answers.
    for _ in 0..10 {
        let (status, body, took) = call_from("127.0.0.2", port, "").await;
        assert!(status.contains(" 200 "), "{status}: {body}");
        assert!(body.contains("Rex"), "{body}");
        assert!(took < PROMPTLY, "answered after {took:?}");
        let held_now = descriptors_of(pid);
        assert!(held_now < 1024, "{held_now} descriptors: out of them");
    }
    let health = http_client()
        .build()
        .expect("a client")
        .get(format!("http://127.0.0.1:{admin}/healthz"))
        .send()
        .await
        .expect("the admin listener answers at the cap");
    assert_eq!(health.status(), 200);
    // Connections past the cap made room by closing the attacker's own.
    assert!(
        metric(
            admin,
            "hosted_mcp_connections_closed_total{reason=\"evicted\"}"
        )
        .await
            > 0.0
    );

    // Past the head deadline, every one of the attacker's connections is
    // closed by the gateway.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let mut still_open = 0;
    for stream in &mut held {
        if !closed_by_gateway(stream).await {
            still_open += 1;
        }
    }
    assert_eq!(still_open, 0, "of {} held", held.len());
    assert!(
        metric(
            admin,
            "hosted_mcp_connections_closed_total{reason=\"head_timeout\"}"
        )
        .await
            > 0.0
    );
    drop(held);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_trickled_a_byte_a_second_is_cut_at_its_deadline() {
    let api = upstream(Duration::ZERO).await;
    let gateway = gateway(&api, None, &["--request-body-timeout", "3"]);
    let port = gateway.port;
    let slow = connect_from("127.0.0.1", port).await.expect("connects");
    let (mut reader, mut writer) = slow.into_split();
    let request = call_request(port, "");
    let (head, body) = request.split_at(request.len() - 40);
    writer.write_all(head).await.expect("the head");
    let started = Instant::now();
    // A byte a second for three seconds, then nothing: the body never ends.
    // (Nothing is left unread when the gateway closes, so it closes
    // cleanly and its 408 can be read.)
    for byte in &body[..3] {
        writer.write_all(&[*byte]).await.expect("a byte");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    // The slow client does not hold up another agent.
    let (status, _, took) = call_from("127.0.0.2", port, "").await;
    assert!(status.contains(" 200 "), "{status}");
    assert!(took < PROMPTLY, "{took:?}");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), reader.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("[REQUEST_TOO_SLOW]"), "{answer}");
    let cut_after = started.elapsed();
    assert!(
        cut_after >= Duration::from_secs(3),
        "cut early: {cut_after:?}"
    );
    let sent = api.received_requests().await.expect("recorded").len();
    assert_eq!(sent, 1, "only the other agent's call reached the API");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idle_keep_alive_is_closed_after_its_timeout() {
    let api = upstream(Duration::ZERO).await;
    let gateway = gateway(&api, None, &["--keep-alive-timeout", "2"]);
    let port = gateway.port;
    let mut stream = connect_from("127.0.0.1", port).await.expect("connects");
    let request = String::from_utf8(call_request(port, ""))
        .expect("text")
        .replace("Connection: close\r\n", "");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut buffer = vec![0u8; 64 * 1024];
    let read = stream.read(&mut buffer).await.expect("an answer");
    assert!(String::from_utf8_lossy(&buffer[..read]).starts_with("HTTP/1.1 200"));
    let answered = Instant::now();
    // Idle: nothing more is sent. The gateway closes it in about 2 s.
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "still open after 10 s");
    let idle = answered.elapsed();
    assert!(
        idle >= Duration::from_millis(1900),
        "closed early: {idle:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn one_address_holds_no_more_connections_than_its_share() {
    let api = upstream(Duration::ZERO).await;
    let gateway = gateway(&api, None, &["--max-connections-per-client", "5"]);
    let port = gateway.port;
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(connect_from("127.0.0.3", port).await.expect("connects"));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A sixth from that address is told why, and closed.
    let mut sixth = connect_from("127.0.0.3", port).await.expect("connects");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), sixth.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("[GATEWAY_FULL]"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 1"),
        "{answer}"
    );
    let (status, _, _) = call_from("127.0.0.4", port, "").await;
    assert!(status.contains(" 200 "), "another address: {status}");
    drop(held);
}

/// Two agents of one API, by their keys.
const RUNAWAY: &str = "key-runaway-51c2";
const STEADY: &str = "key-steady-9a0e";

fn keys_file() -> std::path::PathBuf {
    let file = crate::support::scratch("front-door-keys").join("agents.keys");
    let lines: Vec<String> = [(RUNAWAY, "runaway"), (STEADY, "steady")]
        .iter()
        .map(|(key, label)| {
            let output = Command::new(GATEWAY)
                .args(["agent-key", "--stdin", "--label", label])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write as _;
                    writeln!(child.stdin.take().expect("stdin"), "{key}")?;
                    child.wait_with_output()
                })
                .expect("agent-key runs");
            String::from_utf8_lossy(&output.stderr).trim().to_owned()
        })
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").expect("written");
    file
}

#[tokio::test(flavor = "multi_thread")]
async fn a_runaway_agent_gets_429s_while_another_is_served_as_if_alone() {
    let api = upstream(Duration::from_millis(100)).await;
    let keys = keys_file();
    let gateway = gateway(
        &api,
        None,
        &[
            "--agent-keys",
            keys.to_str().expect("UTF-8"),
            "--agent-calls-per-second",
            "5",
            "--agent-burst",
            "5",
            "--agent-calls-in-flight",
            "2",
        ],
    );
    let admin = gateway.admin.expect("an admin listener");
    let port = gateway.port;
    let runaway = format!("Authorization: Bearer {RUNAWAY}\r\n");
    let steady = format!("Authorization: Bearer {STEADY}\r\n");
    let hammer_for = Duration::from_secs(3);
    let hammering = (0..16).map(|_| {
        let runaway = runaway.clone();
        tokio::spawn(async move {
            let (mut served, mut limited) = (0, 0);
            let started = Instant::now();
            while started.elapsed() < hammer_for {
                let (status, body, _) = call_from("127.0.0.1", port, &runaway).await;
                if status.contains(" 200 ") {
                    served += 1;
                } else if status.contains(" 429 ") {
                    assert!(body.starts_with("[AGENT_RATE_LIMITED]"), "{body}");
                    limited += 1;
                } else {
                    panic!("the runaway agent got {status}: {body}");
                }
            }
            (served, limited)
        })
    });
    let hammering: Vec<_> = hammering.collect();
    // The steady agent calls three times a second, under its own limit.
    let mut steady_answers = Vec::new();
    let started = Instant::now();
    while started.elapsed() < hammer_for {
        steady_answers.push(call_from("127.0.0.1", port, &steady).await);
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let (mut served, mut limited) = (0, 0);
    for task in hammering {
        let (s, l) = task.await.expect("the runaway's task");
        served += s;
        limited += l;
    }
    for (status, body, took) in &steady_answers {
        assert!(
            status.contains(" 200 "),
            "the steady agent got {status}: {body}"
        );
        assert!(*took < PROMPTLY, "{took:?}");
    }
    assert!(limited > 0, "the runaway agent was never limited");
    // Five a second with a burst of five, for about three seconds.
    assert!(served <= 5 * 4 + 5, "the runaway agent made {served} calls");
    assert!(
        metric(
            admin,
            "hosted_mcp_agents_limited_total{api=\"default\",reason="
        )
        .await
            > 0.0
    );
    // Nothing of a refused call reached the API.
    let sent = api.received_requests().await.expect("recorded").len();
    assert_eq!(sent, served + steady_answers.len());
}
