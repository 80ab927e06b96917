//! The API's own OAuth 2.0 (issue 49): the stored credential is a client's
//! secret, exchanged for access tokens by the client-credentials grant at a
//! real token server (oidc-provider), kept until shortly before they expire,
//! masked like the secret, and a token endpoint that fails ends the call
//! with nothing sent.

#![cfg(unix)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::authorization::{AuthorizationServer, READ_WRITE_CLIENT};
use crate::support::{
    call_2026, http_client, log_caught_up, result_text, scratch, start_listening, wait_for_log,
    Listening, GATEWAY,
};

/// Echoes the Authorization header it got, and the client's secret: both
/// must reach the agent masked.
struct EchoAuthorization;

impl Respond for EchoAuthorization {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let authorization = request
            .headers
            .get("authorization")
            .map(|value| value.to_str().unwrap_or_default().to_owned())
            .unwrap_or_default();
        ResponseTemplate::new(200).set_body_json(json!({
            "authorization": authorization,
            "secret": READ_WRITE_CLIENT.1,
        }))
    }
}

async fn upstream() -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(any())
        .respond_with(EchoAuthorization)
        .mount(&upstream)
        .await;
    upstream
}

/// A document whose API takes tokens of the client-credentials flow at
/// `token_url`.
fn document(folder: &Path, token_url: &str) -> PathBuf {
    let path = folder.join("api.yaml");
    std::fs::write(
        &path,
        format!(
            "openapi: 3.0.3\ninfo: {{title: Pets, version: '1'}}\n\
             components:\n  securitySchemes:\n    oauth:\n      type: oauth2\n      flows:\n        \
             clientCredentials:\n          tokenUrl: {token_url}\n          scopes: {{mcp:read: read}}\n\
             security: [{{oauth: [mcp:read]}}]\n\
             paths:\n  /pets/{{id}}:\n    get:\n      operationId: showPet\n      parameters:\n        \
             - {{name: id, in: path, required: true, schema: {{type: string}}}}\n      \
             responses: {{'200': {{description: ok}}}}\n"
        ),
    )
    .expect("written");
    path
}

/// A gateway for `document`'s API, the client `agent-rw` with `secret`.
fn gateway(document: &Path, base_url: &str, secret: &str, extra: &[&str]) -> Listening {
    start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--openapi"])
            .arg(document)
            .args([
                "--base-url",
                base_url,
                "--listen",
                &format!("127.0.0.1:{port}"),
            ])
            .args([
                "--upstream-client-id",
                READ_WRITE_CLIENT.0,
                "--upstream-scope",
                "mcp:read",
            ])
            .args(extra)
            .env("HOSTED_MCP_CREDENTIAL", secret)
            .stdout(Stdio::null());
        command
    })
}

async fn show(gateway: &Listening, id: &str) -> (bool, String) {
    let client = http_client().build().expect("a client");
    let answer = call_2026(&client, gateway.port, "showPet", json!({"id": id})).await;
    (
        answer["result"]["isError"] == json!(true),
        result_text(&answer).to_owned(),
    )
}

async fn token_requests(server: &AuthorizationServer) -> u64 {
    server.counts().await["token_requests"]
        .as_u64()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn one_token_serves_every_call_until_shortly_before_it_expires() {
    let folder = scratch("exchange-kept");
    let server = AuthorizationServer::start_with(
        0,
        &folder.join("as"),
        &["https://pets.example/api".to_owned()],
        3,
    );
    let api = upstream().await;
    let doc = document(&folder, "https://pets.example/token");
    let token_url = format!("{}/token", server.issuer);
    let gateway = gateway(
        &doc,
        &api.uri(),
        READ_WRITE_CLIENT.1,
        &["--upstream-token-url", &token_url],
    );

    // Twenty calls at once: one token request.
    let calls: Vec<_> = (0..20)
        .map(|n| {
            let port = gateway.port;
            tokio::spawn(async move {
                let client = http_client().build().expect("a client");
                call_2026(&client, port, "showPet", json!({"id": format!("p{n}")})).await
            })
        })
        .collect();
    for call in calls {
        let answer = call.await.expect("answered");
        assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
        let text = result_text(&answer);
        // The token and the secret both come back masked.
        assert!(
            text.contains("\"authorization\": \"Bearer [credential]\""),
            "{text}"
        );
        assert!(text.contains("\"secret\": \"[credential]\""), "{text}");
    }
    assert_eq!(token_requests(&server).await, 1);
    let sent = api.received_requests().await.expect("recorded");
    assert_eq!(sent.len(), 20);
    let first = sent[0].headers["authorization"]
        .to_str()
        .expect("ASCII")
        .to_owned();
    assert!(
        first.starts_with("Bearer ey"),
        "a JWT from the token server: {first}"
    );
    assert!(sent
        .iter()
        .all(|r| r.headers["authorization"] == first.as_str()));

    // Three seconds' tokens are asked for again after 2.7 s, once.
    tokio::time::sleep(Duration::from_millis(2800)).await;
    assert!(!show(&gateway, "later").await.0);
    assert!(!show(&gateway, "later-still").await.0);
    assert_eq!(token_requests(&server).await, 2);
    let last = api.received_requests().await.expect("recorded");
    assert_ne!(
        last.last().expect("sent").headers["authorization"],
        first.as_str()
    );
    wait_for_log(&gateway, "tokens from http://127.0.0.1", 1);
    let log = log_caught_up(&gateway);
    assert!(
        !log.contains(READ_WRITE_CLIENT.1),
        "the secret is in the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_endpoint_that_refuses_ends_the_call_with_nothing_sent() {
    let folder = scratch("exchange-refused");
    let server =
        AuthorizationServer::start(&folder.join("as"), &["https://pets.example/api".to_owned()]);
    let api = upstream().await;
    let doc = document(&folder, "https://pets.example/token");
    let token_url = format!("{}/token", server.issuer);
    let gateway = gateway(
        &doc,
        &api.uri(),
        "not-the-secret-4411",
        &["--upstream-token-url", &token_url],
    );
    let (is_error, text) = show(&gateway, "p1").await;
    assert!(is_error, "{text}");
    assert!(text.starts_with("[UPSTREAM_TOKEN_FAILED]"), "{text}");
    assert!(text.contains("invalid_client"), "{text}");
    assert!(!text.contains("not-the-secret-4411"), "{text}");
    assert!(api.received_requests().await.expect("recorded").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_endpoint_that_never_answers_ends_the_call_at_its_deadline() {
    let folder = scratch("exchange-silent");
    // Connections are taken by the kernel, and never answered.
    let silent = TcpListener::bind("127.0.0.1:0").expect("bound");
    let token_url = format!("http://{}/token", silent.local_addr().expect("an address"));
    let api = upstream().await;
    let doc = document(&folder, "https://nowhere.invalid/token");
    let gateway = gateway(
        &doc,
        &api.uri(),
        READ_WRITE_CLIENT.1,
        &["--upstream-token-url", &token_url],
    );
    let (is_error, text) = show(&gateway, "p1").await;
    assert!(is_error, "{text}");
    assert!(text.starts_with("[UPSTREAM_TOKEN_FAILED]"), "{text}");
    assert!(text.contains("did not answer within 5 seconds"), "{text}");
    assert!(api.received_requests().await.expect("recorded").is_empty());
}

/// A token endpoint of the test's own, answering `body` to every request.
async fn token_endpoint(body: serde_json::Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_endpoint_lying_about_lifetimes_costs_one_request_not_one_a_call() {
    let folder = scratch("exchange-lifetimes");
    let api = upstream().await;
    let doc = document(&folder, "https://pets.example/token");
    for expires_in in [
        json!(u64::MAX),
        json!(1e300),
        json!(0),
        json!(-60),
        json!("soon"),
    ] {
        let endpoint =
            token_endpoint(json!({"access_token": "tok-7c1e9d", "expires_in": expires_in})).await;
        let token_url = format!("{}/token", endpoint.uri());
        let gateway = gateway(
            &doc,
            &api.uri(),
            READ_WRITE_CLIENT.1,
            &["--upstream-token-url", &token_url],
        );
        for n in 0..5 {
            let (is_error, text) = show(&gateway, &format!("p{n}")).await;
            assert!(!is_error, "expires_in {expires_in}: {text}");
        }
        let asked = endpoint.received_requests().await.expect("recorded").len();
        // A token said to live no time is kept a second: the five calls
        // may straddle one renewal, never one request each.
        let most = if expires_in.as_f64().is_some_and(|s| s <= 0.0) {
            2
        } else {
            1
        };
        assert!(
            (1..=most).contains(&asked),
            "expires_in {expires_in}: {asked} token requests"
        );
        let log = gateway.stderr_so_far();
        assert!(!log.contains("panicked"), "{log}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_endpoint_answering_without_end_is_read_no_further_than_a_token() {
    let folder = scratch("exchange-long");
    let api = upstream().await;
    let doc = document(&folder, "https://pets.example/token");
    let padding = "x".repeat(256 * 1024);
    let endpoint =
        token_endpoint(json!({"access_token": "tok-1", "padding": padding, "expires_in": 60}))
            .await;
    let token_url = format!("{}/token", endpoint.uri());
    let gateway = gateway(
        &doc,
        &api.uri(),
        READ_WRITE_CLIENT.1,
        &["--upstream-token-url", &token_url],
    );
    let (is_error, text) = show(&gateway, "p1").await;
    assert!(is_error, "{text}");
    assert!(text.starts_with("[UPSTREAM_TOKEN_FAILED]"), "{text}");
    assert!(text.contains("over 64 KiB"), "{text}");
    assert!(api.received_requests().await.expect("recorded").is_empty());
}

#[test]
fn a_token_url_the_secret_could_be_read_on_is_refused_at_start() {
    let folder = scratch("exchange-cleartext");
    let run = |doc: &Path, extra: &[&str]| {
        Command::new(GATEWAY)
            .args(["serve", "--openapi"])
            .arg(doc)
            .args([
                "--base-url",
                "https://pets.example",
                "--listen",
                "127.0.0.1:0",
            ])
            .args(["--upstream-client-id", "agent-rw"])
            .args(extra)
            .env("HOSTED_MCP_CREDENTIAL", READ_WRITE_CLIENT.1)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
            .expect("the gateway runs")
    };
    // The document's token URL is taken over https only, loopback or not.
    let plain = document(&folder, "http://127.0.0.1:9/token");
    let refused = run(&plain, &[]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("tokenUrl is not https://"), "{said}");
    // One the operator gives: https, or http to a loopback host.
    let https = document(&folder, "https://pets.example/token");
    let refused = run(
        &https,
        &["--upstream-token-url", "http://auth.example.com/token"],
    );
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--upstream-token-url: the token URL is plain http://"),
        "{said}"
    );
    assert!(
        !said.contains("auth.example.com"),
        "the value is repeated: {said}"
    );
}
