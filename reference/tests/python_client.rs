//! A real third-party MCP client, the official Python SDK, lists the
//! reference gateway's tools over Streamable HTTP (both protocol eras) and
//! over stdio, and sees exactly what `hosted-mcp-gateway tools` prints.
//!
//! The SDK is installed by this test into a virtual environment under the
//! target directory (pinned in `tests/python/requirements.txt`), once per
//! requirements file; it needs `python3` and access to PyPI the first time.

mod support;

use std::process::{Child, Command, Stdio};

use serde_json::Value;

use support::{fixture, free_port, manifest_dir, python, run_checked, wait_listening, GATEWAY};

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
    child: Child,
    url: String,
}

impl HttpGateway {
    fn start() -> Self {
        let port = free_port();
        let child = Command::new(GATEWAY)
            .args(["serve", "--openapi"])
            .arg(fixture())
            .args(["--base-url", "http://127.0.0.1:9", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .env("HOSTED_MCP_CREDENTIAL", "python-client-test")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the gateway starts");
        wait_listening(port);
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpGateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
