//! Watching the gateway (issue 49): health and readiness, and metrics that
//! a real Prometheus (Debian's `prometheus`, which `.ci/run` installs)
//! scrapes from the admin address, showing the calls the test made.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{
    call_at, fixture, http_client, start_listening, start_listening_with_admin, terminate,
    Listening, GATEWAY,
};

const PROMETHEUS: &str = "/usr/bin/prometheus";

async fn get(url: &str) -> (u16, String, String) {
    let response = http_client()
        .build()
        .expect("a client")
        .get(url)
        .send()
        .await
        .expect("answered");
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    (status, kind, response.text().await.expect("a body"))
}

/// One 2026-07-28 tools/call at `url`, with `headers`: the HTTP status.
async fn call(url: &str, tool: &str, arguments: Value, headers: &[(&str, &str)]) -> u16 {
    let headers: Vec<(&str, String)> = headers.iter().map(|(n, v)| (*n, (*v).to_owned())).collect();
    call_at(url, &headers, tool, arguments).await.status
}

/// Prometheus scraping `target` every second, its data in `folder`.
fn prometheus(folder: &Path, target: &str) -> Listening {
    assert!(
        Path::new(PROMETHEUS).exists(),
        "Prometheus is not installed: install Debian's package `prometheus`, as .ci/run does"
    );
    let config = folder.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n\
             scrape_configs:\n  - job_name: gateway\n    static_configs:\n      \
             - targets: ['{target}']\n"
        ),
    )
    .expect("written");
    start_listening(|port| {
        let mut command = Command::new(PROMETHEUS);
        command
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                folder.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null());
        command
    })
}

/// What Prometheus's query API gives for `query`, once it is `wanted`:
/// waits for the scrapes that bring it, and fails with what it last saw.
async fn query_until(port: u16, query: &str, wanted: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let url = format!(
        "http://127.0.0.1:{port}/api/v1/query?query={}",
        url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
    );
    let mut seen = String::new();
    while Instant::now() < deadline {
        if let Ok(response) = http_client()
            .build()
            .expect("a client")
            .get(&url)
            .send()
            .await
        {
            let answer: Value = response.json().await.unwrap_or_default();
            let value = &answer["data"]["result"][0]["value"][1];
            if value == wanted {
                return;
            }
            seen = answer.to_string();
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("Prometheus never gave {wanted} for {query}; last: {seen}");
}

#[tokio::test(flavor = "multi_thread")]
async fn prometheus_scrapes_the_calls_refusals_and_reloads_the_test_made() {
    let folder =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("watching-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a folder");
    let upstream = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/pets"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("[]", "application/json"))
        .mount(&upstream)
        .await;
    Mock::given(method("GET"))
        .and(path("/pets/sick"))
        .respond_with(ResponseTemplate::new(503).set_body_string("down"))
        .mount(&upstream)
        .await;
    let keys = folder.join("agents.keys");
    let line = Command::new(GATEWAY)
        .args(["agent-key", "--stdin", "--label", "watcher"])
        .stdin(std::fs::File::open(write(&folder, "key", "watched-key-77c1")).expect("opened"))
        .output()
        .expect("agent-key runs");
    std::fs::write(&keys, &line.stderr).expect("written");
    let config = write(
        &folder,
        "gateway.yaml",
        &format!(
            "apis:\n  - name: pets\n    openapi: {doc}\n    base_url: {up}\n\
             \x20 - name: guarded\n    openapi: {doc}\n    base_url: {up}\n    \
             agents: {{ keys: {{ file: agents.keys }} }}\n",
            doc = fixture().display(),
            up = upstream.uri()
        ),
    );
    let gateway: Listening = start_listening_with_admin(|port, admin| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--config"])
            .arg(&config)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(["--admin-listen", &format!("127.0.0.1:{admin}")])
            .stdout(Stdio::null());
        command
    });
    let admin = gateway.admin.expect("an admin listener");
    let base = format!("http://127.0.0.1:{}", gateway.port);

    // Health and readiness, on the admin address and never the MCP port.
    assert_eq!(
        get(&format!("http://127.0.0.1:{admin}/healthz")).await.0,
        200
    );
    assert_eq!(
        get(&format!("http://127.0.0.1:{admin}/readyz")).await.0,
        200
    );
    let (status, kind, _) = get(&format!("http://127.0.0.1:{admin}/metrics")).await;
    assert_eq!(status, 200);
    assert!(kind.starts_with("application/openmetrics-text"), "{kind}");
    assert_eq!(get(&format!("{base}/metrics")).await.0, 404);

    let pets = format!("{base}/mcp/pets");
    let guarded = format!("{base}/mcp/guarded");
    for _ in 0..3 {
        assert_eq!(call(&pets, "listPets", json!({}), &[]).await, 200);
    }
    for _ in 0..2 {
        assert_eq!(
            call(&pets, "showPetById", json!({"petId": "sick"}), &[]).await,
            200
        );
    }
    assert_eq!(call(&guarded, "listPets", json!({}), &[]).await, 401);
    let key = [("Authorization", "Bearer watched-key-77c1")];
    assert_eq!(call(&guarded, "listPets", json!({}), &key).await, 200);

    let prometheus = prometheus(&folder, &format!("127.0.0.1:{admin}"));
    let port = prometheus.port;
    let wanted = [
        (
            r#"hosted_mcp_calls_total{api="pets",tool="listPets",outcome="ok"}"#,
            "3",
        ),
        (
            r#"hosted_mcp_calls_total{api="pets",tool="showPetById",outcome="UPSTREAM_STATUS"}"#,
            "2",
        ),
        (r#"hosted_mcp_calls_total{api="guarded",outcome="ok"}"#, "1"),
        (
            r#"hosted_mcp_upstream_responses_total{api="pets",class="5xx"}"#,
            "2",
        ),
        (
            r#"hosted_mcp_upstream_responses_total{api="pets",class="2xx"}"#,
            "3",
        ),
        (r#"hosted_mcp_call_duration_seconds_count{api="pets"}"#, "5"),
        (
            r#"hosted_mcp_agents_refused_total{api="guarded",reason="no_credential"}"#,
            "1",
        ),
        (r#"hosted_mcp_calls_in_flight{api="pets"}"#, "0"),
        ("hosted_mcp_apis", "2"),
        ("hosted_mcp_config_version", "1"),
    ];
    for (query, value) in wanted {
        query_until(port, query, value).await;
    }

    // A reload shows, and so does its version.
    let sent = Command::new("kill")
        .args(["-HUP", &gateway.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    query_until(port, r#"hosted_mcp_reloads_total{outcome="applied"}"#, "1").await;
    query_until(port, "hosted_mcp_config_version", "2").await;

    let mut gateway = gateway;
    terminate(&gateway.child);
    let (status, _) = gateway.finish();
    assert!(status.success());
}

fn write(folder: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, text).expect("written");
    path
}
