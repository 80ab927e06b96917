//! The operator's log: one event per call with its facts, and never an
//! argument value, an upstream body or the credential, in either format and
//! whatever the upstream echoes.

#![cfg(unix)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use rstest::rstest;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{
    call_2026, http_client, result_text, serve_http, start_listening, terminate, Listening,
};

/// Has characters that percent-encode in the query, so encoded forms are
/// looked for too.
const CREDENTIAL: &str = "sk-live/Q7+x=9Zr";
const CREDENTIAL_IN_QUERY: &str = "sk-live%2FQ7%2Bx%3D9Zr";
/// In every argument value the agent sends.
const ARGUMENT_MARK: &str = "argmark-5c1e";
/// In every body the upstream answers.
const BODY_MARK: &str = "bodymark-93ad";

/// An upstream that echoes the credential in every answer.
async fn echoing_upstream() -> MockServer {
    let upstream = MockServer::start().await;
    let echo = format!("{{\"key\":\"{CREDENTIAL}\",\"note\":\"{BODY_MARK}\"}}");
    Mock::given(method("GET"))
        .and(path("/pets"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(echo.clone(), "application/json"))
        .mount(&upstream)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/pets/{ARGUMENT_MARK}")))
        .respond_with(ResponseTemplate::new(500).set_body_raw(echo.clone(), "text/plain"))
        .mount(&upstream)
        .await;
    Mock::given(method("POST"))
        .and(path("/pets"))
        .respond_with(ResponseTemplate::new(201).set_body_raw(echo, "application/json"))
        .mount(&upstream)
        .await;
    upstream
}

/// Runs six calls (a success, an upstream error, a created resource,
/// refused arguments, arguments that are not an object, an unknown tool
/// named with the credential), stops the gateway, and returns its stderr.
async fn log_of_calls(log_format: &str, rust_log: Option<&str>) -> String {
    let upstream = echoing_upstream().await;
    let mut gateway = start_listening(|port| {
        let mut command = serve_http(&upstream.uri(), port);
        command
            .args([
                "--log-format",
                log_format,
                "--credential-in",
                "query:api_key",
            ])
            .env("HOSTED_MCP_CREDENTIAL", CREDENTIAL)
            .env_remove("RUST_LOG");
        if let Some(levels) = rust_log {
            command.env("RUST_LOG", levels);
        }
        command
    });
    let port = gateway.port;

    let client = http_client().build().expect("a client");
    let calls = [
        ("listPets", json!({"tags": [ARGUMENT_MARK]})),
        ("showPetById", json!({"petId": ARGUMENT_MARK})),
        ("createPet", json!({"body": {"name": ARGUMENT_MARK}})),
        (
            "createPet",
            json!({"body": {"name": 7, "tag": ARGUMENT_MARK}}),
        ),
        ("listPets", json!(ARGUMENT_MARK)),
        (&*format!("get-{CREDENTIAL}"), json!({"q": ARGUMENT_MARK})),
    ];
    for (tool, arguments) in calls {
        let answer = call_2026(&client, port, tool, arguments).await;
        // The calls did what the test means them to, so their log is real.
        if !tool.starts_with("get-") {
            assert!(
                result_text(&answer).contains("[credential]")
                    || result_text(&answer).contains("ARGUMENTS_INVALID"),
                "unexpected answer: {answer}"
            );
        }
    }
    assert_eq!(
        upstream.received_requests().await.unwrap_or_default().len(),
        3,
        "three calls reach the upstream"
    );

    terminate(&gateway.child);
    let started = Instant::now();
    let (status, stderr) = gateway.finish();
    assert!(status.success(), "exit status {status}:\n{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
    stderr
}

fn assert_nothing_secret(stderr: &str) {
    for (what, secret) in [
        ("the credential", CREDENTIAL),
        ("the credential as sent in the query", CREDENTIAL_IN_QUERY),
        ("an argument value", ARGUMENT_MARK),
        ("an upstream body", BODY_MARK),
    ] {
        assert!(!stderr.contains(secret), "{what} is in the log:\n{stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn text_lines_give_each_call_and_hold_nothing_secret() {
    let stderr = log_of_calls("text", None).await;
    assert_nothing_secret(&stderr);

    let calls: Vec<&str> = stderr.lines().filter(|l| l.contains(" call ")).collect();
    assert_eq!(calls.len(), 5, "one line per answered call:\n{stderr}");
    for (line, expected) in calls.iter().zip([
        ["INFO", "tool=\"listPets\"", "status=200"],
        ["INFO", "tool=\"showPetById\"", "status=500"],
        ["INFO", "tool=\"createPet\"", "status=201"],
        ["INFO", "tool=\"createPet\"", "code=ARGUMENTS_INVALID"],
        ["INFO", "tool=\"listPets\"", "code=ARGUMENTS_INVALID"],
    ]) {
        for part in expected {
            assert!(line.contains(part), "{part} missing from {line}");
        }
        assert!(line.contains(" ms="), "no duration in {line}");
    }
    assert!(calls[1].contains("code=UPSTREAM_STATUS"), "{}", calls[1]);
    assert!(calls[0].contains(" bytes="), "{}", calls[0]);
    assert!(
        stderr.contains("unknown tool") && stderr.contains("get-[credential]"),
        "the unknown tool is logged, masked:\n{stderr}"
    );
    assert!(stderr.contains("serving over HTTP"), "{stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn json_lines_parse_and_hold_nothing_secret() {
    let stderr = log_of_calls("json", None).await;
    assert_nothing_secret(&stderr);

    let events: Vec<Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let calls: Vec<&Value> = events.iter().filter(|e| e["message"] == "call").collect();
    assert_eq!(calls.len(), 5, "{stderr}");
    assert_eq!(calls[0]["tool"], "listPets");
    assert_eq!(calls[0]["status"], 200);
    assert!(calls[0]["bytes"].as_u64().is_some_and(|b| b > 0));
    assert!(calls[0]["ms"].as_f64().is_some());
    assert_eq!(calls[1]["code"], "UPSTREAM_STATUS");
    assert_eq!(calls[3]["code"], "ARGUMENTS_INVALID");
    assert!(calls[3].get("status").is_none(), "nothing was sent");
    let start = events
        .iter()
        .find(|e| e["message"] == "serving over HTTP")
        .expect("a start-up event");
    assert_eq!(start["tools"], 4);
    assert_eq!(start["level"], "INFO");
}

/// An operator who turns every log up to find a fault must not get the
/// credential or an agent's data in the bargain.
#[rstest]
#[case::everything_at_debug("debug")]
#[case::everything_at_trace("trace")]
#[tokio::test(flavor = "multi_thread")]
async fn turned_up_logs_hold_nothing_secret(#[case] levels: &str) {
    let stderr = log_of_calls("text", Some(levels)).await;
    assert_nothing_secret(&stderr);
}

/// A request for a Host, or from an Origin, that the gateway does not accept
/// is refused with a message and one log line that name the value and the
/// option accepting it, where rmcp said only "Host header is not allowed"
/// and logged a Rust debug struct (issue 19).
#[rstest]
#[case::host(
    &[("host", "mcp.example.com:8443")],
    "--allowed-host mcp.example.com"
)]
#[case::origin(
    &[("origin", "https://app.example.com")],
    "--allowed-origin https://app.example.com"
)]
#[tokio::test]
async fn a_refused_host_or_origin_names_the_option_that_accepts_it(
    #[case] headers: &[(&str, &str)],
    #[case] option: &str,
) {
    let mut gateway = start_listening(|port| {
        let mut command = serve_http("http://127.0.0.1:9", port);
        command.env_remove("RUST_LOG");
        command
    });
    let port = gateway.port;
    let mut request = http_client()
        .build()
        .expect("a client")
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let answer = request.send().await.expect("answered");
    assert_eq!(answer.status(), 403);
    let text = answer.text().await.expect("a body");
    assert!(
        text.contains(option),
        "the answer {text:?} names no {option}"
    );
    let stderr = stop_and_read_stderr(&mut gateway);
    let refusals: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("refused"))
        .collect();
    assert_eq!(refusals.len(), 1, "one refusal logged: {stderr}");
    assert!(refusals[0].contains(option), "{stderr}");
    assert!(!stderr.contains("NormalizedAuthority"), "{stderr}");
}

/// The start-up lines of a gateway serving `document` with `credential`
/// (none when `None`), stopped once it listens.
fn start_up_log(name: &str, document: &str, credential: Option<&str>) -> String {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, document).expect("the document is written");
    let mut gateway = start_listening(|port| {
        let mut command = std::process::Command::new(crate::support::GATEWAY);
        command
            .args(["serve", "--openapi"])
            .arg(&path)
            .args(["--base-url", "https://api.example.com/v1", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .env_remove("RUST_LOG")
            .env_remove("HOSTED_MCP_CREDENTIAL")
            .stdout(Stdio::null());
        if let Some(credential) = credential {
            command.env("HOSTED_MCP_CREDENTIAL", credential);
        }
        command
    });
    stop_and_read_stderr(&mut gateway)
}

fn lines_with<'a>(log: &'a str, words: &str) -> Vec<&'a str> {
    log.lines().filter(|line| line.contains(words)).collect()
}

/// The operator reads at start-up where calls go, where the credential goes
/// and why, what was left out, and a warning for each thing to act on: a
/// credential so short that masking garbles answers, and bodies that only
/// take a media type the gateway does not send (issue 19).
#[test]
fn the_start_up_line_tells_where_calls_and_the_credential_go() {
    let log = start_up_log(
        "start-up.yaml",
        r#"openapi: 3.0.3
info: {title: Files, version: "1"}
components:
  securitySchemes:
    secretKey: {type: http, scheme: basic}
security: [{secretKey: []}]
paths:
  /files:
    get: {operationId: listFiles, responses: {"200": {description: ok}}}
    put: {operationId: oldUpload, deprecated: true, responses: {"200": {description: ok}}}
    post:
      operationId: upload
      requestBody:
        content: {multipart/form-data: {schema: {type: object}}}
      responses: {"200": {description: ok}}
"#,
        Some("e"),
    );
    let serving = lines_with(&log, "serving over HTTP");
    assert_eq!(serving.len(), 1, "{log}");
    for fact in [
        "tools=2",
        "deprecated_left_out=1",
        "base_url=https://api.example.com/v1",
        "credential=Authorization: Basic, from the document's security scheme secretKey",
    ] {
        assert!(serving[0].contains(fact), "{fact} not in {}", serving[0]);
    }
    // Each fact once: a field written twice reads as two different facts.
    let mut fields: Vec<&str> = serving[0]
        .split_whitespace()
        .filter_map(|word| Some(word.split_once('=')?.0))
        .filter(|name| name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    let all = fields.len();
    fields.sort_unstable();
    fields.dedup();
    assert_eq!(fields.len(), all, "a field repeats in {}", serving[0]);
    assert_eq!(lines_with(&log, "only 1 characters long").len(), 1, "{log}");
    let not_json = lines_with(&log, "not JSON");
    assert_eq!(not_json.len(), 1, "{log}");
    assert!(not_json[0].contains("first=upload"), "{log}");
    assert!(lines_with(&log, "no credential").is_empty(), "{log}");
}

#[test]
fn a_gateway_without_credential_or_tools_says_so() {
    let log = start_up_log(
        "no-tools.yaml",
        "openapi: 3.1.0\ninfo: {title: Empty, version: \"1\"}\npaths: {}\n",
        None,
    );
    assert_eq!(lines_with(&log, "no tool").len(), 1, "{log}");
    assert_eq!(lines_with(&log, "no credential is set").len(), 1, "{log}");
    assert!(
        lines_with(&log, "serving over HTTP")[0].contains("credential=none"),
        "{log}"
    );
}

/// An operator previews a choice of tools with `tools`, as `serve` takes it:
/// the tools kept, a warning for a selector that names nothing, and a name
/// limit a client needs (issue 19).
#[test]
fn the_operator_chooses_the_tools_and_hears_of_a_selector_that_names_nothing() {
    let output = std::process::Command::new(crate::support::GATEWAY)
        .args(["tools", "--openapi"])
        .arg(crate::support::fixture())
        .args(["--include-tools", "*Pet*", "--exclude-tools", "createPet"])
        .args(["--include-tags", "no-such-tag", "--max-name-length", "16"])
        .env_remove("RUST_LOG")
        .output()
        .expect("the gateway runs");
    assert!(output.status.success(), "{output:?}");
    let listed: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["listPets", "showPetById"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        lines_with(&stderr, "--include-tags no-such-tag names no operation").len(),
        1,
        "{stderr}"
    );

    let refused = std::process::Command::new(crate::support::GATEWAY)
        .args(["tools", "--openapi"])
        .arg(crate::support::fixture())
        .args(["--max-name-length", "8"])
        .output()
        .expect("the gateway runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("must be from 16 to 128"));
}

/// SIGTERM to a gateway, and all it wrote on stderr.
fn stop_and_read_stderr(gateway: &mut Listening) -> String {
    terminate(&gateway.child);
    gateway.finish().1
}

/// The operator who reads a code in an agent's transcript can ask the
/// binary what it means and what to do, as `rustc --explain` answers.
#[test]
fn explain_prints_a_code_and_refuses_an_unknown_one() {
    let known = std::process::Command::new(crate::support::GATEWAY)
        .args(["explain", "[UPSTREAM_UNTRUSTED]"])
        .output()
        .expect("the gateway runs");
    let text = String::from_utf8_lossy(&known.stdout);
    assert!(known.status.success(), "{text}");
    assert!(text.starts_with("UPSTREAM_UNTRUSTED"), "{text}");
    assert!(text.contains("the operator: "), "{text}");
    assert!(text.contains("--ca-file"), "{text}");

    let unknown = std::process::Command::new(crate::support::GATEWAY)
        .args(["explain", "UNTRUSTED"])
        .output()
        .expect("the gateway runs");
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert_eq!(unknown.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("UPSTREAM_UNTRUSTED"), "{stderr}");
}
