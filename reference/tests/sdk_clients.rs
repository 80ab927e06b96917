//! Real third-party MCP clients, the official Python SDK and TypeScript SDK
//! clients and the MCP Inspector's CLI, list the reference gateway's tools
//! over Streamable HTTP (both protocol eras) and over stdio, see exactly
//! what `hosted-mcp-gateway tools` prints, and read answers of any size.
//!
//! The SDKs are installed by these tests under the target directory: the
//! Python SDK into a virtual environment (pinned in
//! `tests/python/requirements.txt`), the TypeScript client and the
//! Inspector with `npm ci` (pinned in `tests/node/package-lock.json`), once
//! per pin; they need `python3`, Node 20 or newer with npm, and the package
//! registries the first time.

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{
    fixture, manifest_dir, node_22, node_client, python, run_checked, start_listening, KillOnDrop,
    GATEWAY,
};

/// The tools the gateway itself says it serves, from `hosted-mcp-gateway tools`.
fn expected_tools() -> Vec<Value> {
    let output = run_checked(
        Command::new(GATEWAY)
            .args(["tools", "--openapi"])
            .arg(fixture()),
    );
    let listed: Value = serde_json::from_slice(&output.stdout).expect("tools prints JSON");
    listed["tools"].as_array().expect("a tools array").clone()
}

fn list_with_sdk(args: &[&str]) -> Value {
    let script = manifest_dir().join("tests/python/list_tools.py");
    let output = run_checked(Command::new(python()).arg(script).args(args));
    // The SDK warns on stderr of what it took for a failure, such as a
    // session close answered with a status it does not expect.
    let warnings = String::from_utf8_lossy(&output.stderr);
    assert!(
        !warnings.contains("failed"),
        "the SDK saw a failure:\n{warnings}"
    );
    serde_json::from_slice(&output.stdout).expect("the script prints JSON")
}

fn assert_protocol(seen: &Value, allowed: &[&str]) {
    let protocol = seen["protocol"].as_str().unwrap_or_default();
    assert!(
        allowed.contains(&protocol),
        "negotiated {protocol}, wanted one of {allowed:?}"
    );
}

fn assert_same_tools(seen: &Value, expected: &[Value]) {
    let seen = seen["tools"].as_array().expect("a tools array");
    let names = |tools: &[Value]| -> Vec<String> {
        tools
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names(seen), names(expected));
    for (seen, expected) in seen.iter().zip(expected) {
        assert_eq!(
            seen["inputSchema"], expected["inputSchema"],
            "schema of {}",
            expected["name"]
        );
        assert_eq!(
            seen["annotations"], expected["annotations"],
            "hints of {}",
            expected["name"]
        );
    }
}

/// A gateway serving the fixture over HTTP, killed when dropped.
struct HttpGateway {
    /// Held for its drop, which ends the gateway.
    _process: KillOnDrop,
    url: String,
}

impl HttpGateway {
    /// The petstore fixture in front of nothing (the discard port).
    fn start() -> Self {
        Self::serving(&fixture(), "http://127.0.0.1:9")
    }

    fn serving(document: &std::path::Path, base_url: &str) -> Self {
        let gateway = start_listening(|port| {
            let mut command = Command::new(GATEWAY);
            command
                .args(["serve", "--openapi"])
                .arg(document)
                .args(["--base-url", base_url, "--listen"])
                .arg(format!("127.0.0.1:{port}"))
                .env("HOSTED_MCP_CREDENTIAL", "python-client-test")
                .stdout(Stdio::null());
            command
        });
        let (port, process) = (gateway.port, gateway.child);
        Self {
            _process: process,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

#[test]
fn python_sdk_lists_tools_over_streamable_http_with_initialize() {
    let gateway = HttpGateway::start();
    let seen = list_with_sdk(&["http", &gateway.url, "handshake"]);
    assert_protocol(&seen, &["2025-06-18", "2025-11-25"]);
    assert_same_tools(&seen, &expected_tools());
}

#[test]
fn python_sdk_lists_tools_over_streamable_http_with_discover() {
    let gateway = HttpGateway::start();
    let seen = list_with_sdk(&["http", &gateway.url, "discover"]);
    assert_protocol(&seen, &["2026-07-28"]);
    assert_same_tools(&seen, &expected_tools());
}

#[test]
fn python_sdk_lists_tools_over_stdio() {
    let fixture = fixture();
    let seen = list_with_sdk(&[
        "stdio",
        GATEWAY,
        "serve",
        "--openapi",
        fixture.to_str().expect("a UTF-8 path"),
        "--base-url",
        "http://127.0.0.1:9",
        "--stdio",
    ]);
    assert_protocol(&seen, &["2025-06-18", "2025-11-25"]);
    assert_same_tools(&seen, &expected_tools());
}

/// Both SDKs in every era and transport against a gateway serving
/// `document` in front of `base_url`: the tools listed and one call's answer,
/// per way (`"python http handshake"`, `"typescript stdio 2026-07-28"`, ...).
fn list_and_call_everywhere(
    document: &std::path::Path,
    base_url: &str,
    tool: &str,
    arguments: &Value,
) -> serde_json::Map<String, Value> {
    let gateway = HttpGateway::serving(document, base_url);
    let mut seen = serde_json::Map::new();
    let clients = [
        (
            "python",
            Command::new(python()),
            manifest_dir().join("tests/python/big_answers.py"),
        ),
        (
            "typescript",
            Command::new("node"),
            node_client().join("big_answers.mjs"),
        ),
    ];
    for (sdk, mut command, script) in clients {
        let output = command
            .arg(script)
            .arg(&gateway.url)
            .args([
                tool,
                &arguments.to_string(),
                "--",
                GATEWAY,
                "serve",
                "--openapi",
            ])
            .arg(document)
            .args(["--base-url", base_url, "--stdio"])
            .env("HOSTED_MCP_CREDENTIAL", "sdk-client-test")
            .output()
            .unwrap_or_else(|e| panic!("the {sdk} client cannot run: {e}"));
        assert!(
            output.status.success(),
            "the {sdk} SDK failed on {}:\n{}",
            document.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let ways: Value = serde_json::from_slice(&output.stdout).expect("the script prints JSON");
        for (way, answer) in ways.as_object().expect("an object") {
            seen.insert(format!("{sdk} {way}"), answer.clone());
        }
    }
    drop(gateway);
    // Python: both eras over HTTP, the handshake over stdio; TypeScript:
    // both eras over both.
    assert_eq!(seen.len(), 7, "every era and transport: {:?}", seen.keys());
    for (way, answer) in &seen {
        let modern = way.ends_with("discover") || way.ends_with("2026-07-28");
        let protocol = answer["protocol"].as_str().unwrap_or_default();
        assert_eq!(
            protocol == "2026-07-28",
            modern,
            "{way} agreed on {protocol}"
        );
    }
    seen
}

/// A tool result of about 1 MB, whose text JSON-escaped is twice that: one
/// SSE event over the 1 MiB the Python SDK reads, as rmcp streams answers in
/// the initialize era (issue 19); the gateway must answer so both SDKs read it.
#[test]
fn sdk_clients_read_a_tool_result_over_one_mebibyte_in_every_era_and_transport() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let upstream = runtime.block_on(wiremock::MockServer::start());
    let body = "\"".repeat(1_000_000);
    runtime.block_on(
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .respond_with(
                wiremock::ResponseTemplate::new(200).set_body_raw(body.clone(), "text/plain"),
            )
            .mount(&upstream),
    );
    let seen = list_and_call_everywhere(
        &fixture(),
        &upstream.uri(),
        "showPetById",
        &serde_json::json!({"petId": "7"}),
    );
    for (way, answer) in seen {
        let is_error = answer.get("is_error").or(answer.get("isError"));
        assert_eq!(is_error, Some(&Value::Bool(false)), "{way}");
        assert!(
            answer["text"] == body.as_str(),
            "{way}: the text is not the body"
        );
    }
}

/// Where the public documents for the loader live (`../shared/corpus`).
fn corpus_dir() -> std::path::PathBuf {
    manifest_dir().join("../../shared/corpus")
}

/// Every corpus document whose tools/list is over 1 MiB (Stripe's is
/// 1.25 MB), listed and called with both SDKs in every era and transport,
/// each seeing exactly the tools `hosted-mcp-gateway tools` gives.
#[test]
fn sdk_clients_list_and_call_every_corpus_document_with_a_tool_list_over_one_mebibyte() {
    let dir = corpus_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("corpus not found at {}: skipping", dir.display());
        return;
    };
    let mut documents: Vec<_> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ["json", "yaml", "yml"].iter().any(|known| ext == *known))
        })
        .collect();
    documents.sort();
    let mut big = 0;
    for document in documents {
        let output = Command::new(GATEWAY)
            .args(["tools", "--openapi"])
            .arg(&document)
            .output()
            .expect("the gateway runs");
        if !output.status.success() {
            continue; // not a usable document: the corpus test judges that
        }
        let listed: Value = serde_json::from_slice(&output.stdout).expect("tools prints JSON");
        let size = serde_json::to_vec(&listed).expect("serializes").len();
        if size <= 1 << 20 {
            continue;
        }
        big += 1;
        eprintln!("{}: {size} bytes of tools/list", document.display());
        let expected: Vec<&str> = listed["tools"]
            .as_array()
            .expect("a tools array")
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        // Nothing listens on the discard port: the call is answered with a
        // tool error (its arguments, or the upstream refused), not dropped.
        let seen = list_and_call_everywhere(
            &document,
            "http://127.0.0.1:9",
            expected[0],
            &serde_json::json!({}),
        );
        for (way, answer) in seen {
            let names: Vec<&str> = answer["tools"]
                .as_array()
                .expect("names")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(names, expected, "{} {way}", document.display());
            assert!(
                answer["text"]
                    .as_str()
                    .is_some_and(|text| text.starts_with('[')),
                "{} {way}: the call's answer {}",
                document.display(),
                answer["text"]
            );
        }
    }
    assert!(big > 0, "no corpus document has a tool list over 1 MiB");
}

/// The MCP Inspector's CLI (pinned in `tests/node/package.json`), the tool
/// developers reach for first, in both of its protocol eras (`legacy`:
/// `initialize`; `modern`: `server/discover`), over Streamable HTTP and over
/// stdio: it lists exactly the tools `hosted-mcp-gateway tools` gives, and a
/// call comes back with the upstream's answer.
#[test]
fn the_inspector_lists_and_calls_in_both_eras_over_http_and_stdio() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let upstream = runtime.block_on(wiremock::MockServer::start());
    runtime.block_on(
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .and(wiremock::matchers::path("/pets/7"))
            .respond_with(
                wiremock::ResponseTemplate::new(200)
                    .set_body_raw(r#"{"id":7,"name":"Rex"}"#, "application/json"),
            )
            .mount(&upstream),
    );
    let gateway = HttpGateway::serving(&fixture(), &upstream.uri());
    // Its launcher, run by the Node it asks for (22.19 or newer).
    let inspector = node_client().join("node_modules/.bin/mcp-inspector");
    let stdio_gateway = |command: &mut Command| {
        command
            .args(["--", GATEWAY, "serve", "--openapi"])
            .arg(fixture())
            .args(["--base-url", &upstream.uri(), "--stdio"]);
    };
    let expected = expected_tools();
    for era in ["legacy", "modern"] {
        for transport in ["http", "stdio"] {
            let run = |method: &[&str]| -> Value {
                let mut command = Command::new(node_22());
                command
                    .arg(&inspector)
                    .args([
                        "--cli",
                        "--quiet",
                        "--format",
                        "json",
                        "--protocol-era",
                        era,
                    ])
                    .args(method)
                    .env("HOSTED_MCP_CREDENTIAL", "inspector-test");
                match transport {
                    "http" => command.arg(&gateway.url),
                    _ => {
                        stdio_gateway(&mut command);
                        &mut command
                    }
                };
                let output = run_checked(&mut command);
                let printed: Value =
                    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
                        panic!(
                            "the Inspector ({era}, {transport}) printed no JSON ({error}): {}",
                            String::from_utf8_lossy(&output.stdout)
                        )
                    });
                printed["result"].clone()
            };
            let listed = run(&["--method", "tools/list"]);
            assert_same_tools(&listed, &expected);
            let called = run(&[
                "--method",
                "tools/call",
                "--tool-name",
                "showPetById",
                "--tool-args-json",
                r#"{"petId":"7"}"#,
            ]);
            assert_eq!(called["isError"], false, "{era} {transport}: {called}");
            assert_eq!(
                called["content"][0]["text"], "{\n  \"id\": 7,\n  \"name\": \"Rex\"\n}",
                "{era} {transport}: {called}"
            );
        }
    }
}
