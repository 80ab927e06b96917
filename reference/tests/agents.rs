//! Letting only the agents in (issue 48): keys from a file of their hashes,
//! and MCP authorization with the gateway as an OAuth resource server,
//! against a real authorization server (oidc-provider) and the official
//! MCP SDK clients. Every refusal is checked for its status and challenge,
//! and for nothing having reached the API.

#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::authorization::{AuthorizationServer, READ_ONLY_CLIENT, READ_WRITE_CLIENT};
use crate::support::{
    call_at, call_in_session, fixture, http_client, log_caught_up, node_client, open_session,
    post_2026, python, run_checked, scratch, serve_http, start_listening, terminate, wait_for_log,
    Answer, Listening, GATEWAY,
};

/// The stored credential, which the API must get and the agents never see.
const STORED: &str = "stored-credential-7f3a91c2";

/// An upstream that answers every request with 200 and a small JSON body,
/// slowly when asked.
async fn upstream(delay: Duration) -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(r#"{"ok":true}"#, "application/json")
                .set_delay(delay),
        )
        .mount(&upstream)
        .await;
    upstream
}

fn bearer(token: &str) -> Vec<(&'static str, String)> {
    vec![("Authorization", format!("Bearer {token}"))]
}

/// The listed tools' names, from a tools/list answer.
fn names(answer: &Answer) -> Vec<String> {
    let message: Value = serde_json::from_str(&answer.body).expect("JSON");
    message["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {}", answer.body))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A keys file holding the lines `agent-key --stdin` makes for `keys`.
fn write_keys(file: &Path, keys: &[(&str, &str)]) {
    let lines: Vec<String> = keys
        .iter()
        .map(|(key, label)| {
            let mut child = Command::new(GATEWAY)
                .args(["agent-key", "--stdin", "--label", label])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("agent-key runs");
            use std::io::Write as _;
            writeln!(child.stdin.take().expect("stdin"), "{key}").expect("written");
            let output = child.wait_with_output().expect("agent-key ends");
            assert!(output.status.success());
            String::from_utf8(output.stderr)
                .expect("UTF-8")
                .trim()
                .to_owned()
        })
        .collect();
    std::fs::write(file, lines.join("\n") + "\n").expect("the keys file is written");
}

/// A gateway in front of `api` letting in the agents of the keys file
/// `keys`, with `more` arguments.
fn keyed_gateway(api: &MockServer, keys: &Path, more: &[&str]) -> Listening {
    start_listening(|port| {
        let mut command = serve_http(&api.uri(), port);
        command
            .arg("--agent-keys")
            .arg(keys)
            .args(more)
            .env("HOSTED_MCP_CREDENTIAL", STORED);
        command
    })
}

/// Asserts that the upstream got nothing, or only requests without any of
/// `secrets` in them, and with the stored credential as its own.
async fn assert_upstream_saw(upstream: &MockServer, requests: usize, secrets: &[&str]) {
    let received = upstream.received_requests().await.expect("recorded");
    assert_eq!(received.len(), requests, "requests that reached the API");
    for request in &received {
        assert_eq!(request.headers["x-pet-key"], STORED);
        let seen = format!(
            "{} {:?} {}",
            request.url,
            request.headers,
            String::from_utf8_lossy(&request.body)
        );
        for secret in secrets {
            assert!(
                !seen.contains(secret),
                "the API saw an agent's credential: {seen}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_let_in_their_agents_alone_and_a_sighup_adds_and_revokes_them() {
    let folder = scratch("agents-keys");
    let keys = folder.join("agents.keys");
    write_keys(
        &keys,
        &[("key-alice-5d2e8a", "alice"), ("key-bob-91c0ff", "bob")],
    );
    let api = upstream(Duration::from_millis(1500)).await;
    let gateway = keyed_gateway(&api, &keys, &[]);
    let url = format!("http://127.0.0.1:{}/mcp", gateway.port);
    let show = json!({"petId": "p1"});

    let none = call_at(&url, &[], "showPetById", show.clone()).await;
    assert_eq!(none.status, 401, "{}", none.body);
    assert!(none.challenge.starts_with("Bearer "), "{}", none.challenge);
    assert!(
        none.body.starts_with("[AGENT_UNAUTHENTICATED]"),
        "{}",
        none.body
    );
    let wrong = call_at(
        &url,
        &bearer("key-mallory-000"),
        "showPetById",
        show.clone(),
    )
    .await;
    assert_eq!(wrong.status, 401);
    assert!(
        wrong.challenge.contains("error=\"invalid_token\""),
        "{}",
        wrong.challenge
    );
    assert!(wrong.body.starts_with("[AGENT_REFUSED]"), "{}", wrong.body);
    assert_upstream_saw(&api, 0, &[]).await;

    let alice = call_at(
        &url,
        &bearer("key-alice-5d2e8a"),
        "showPetById",
        show.clone(),
    )
    .await;
    assert_eq!(alice.status, 200, "{}", alice.body);
    assert!(alice.body.contains("\\\"ok\\\": true"), "{}", alice.body);
    assert_upstream_saw(&api, 1, &["key-alice-5d2e8a"]).await;

    // Bob's call is in flight when his key is revoked: it is answered.
    let in_flight = tokio::spawn({
        let url = url.clone();
        let show = show.clone();
        async move { call_at(&url, &bearer("key-bob-91c0ff"), "showPetById", show).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    write_keys(
        &keys,
        &[("key-alice-5d2e8a", "alice"), ("key-carol-7a7a7a", "carol")],
    );
    Command::new("kill")
        .args(["-HUP", &gateway.child.id().to_string()])
        .status()
        .expect("kill runs");
    wait_for_log(&gateway, "reloaded", 1);
    let bob = in_flight.await.expect("the call ends");
    assert_eq!(bob.status, 200, "{}", bob.body);
    assert!(bob.body.contains("\\\"ok\\\": true"), "{}", bob.body);

    assert_eq!(
        call_at(&url, &bearer("key-bob-91c0ff"), "showPetById", show.clone())
            .await
            .status,
        401
    );
    assert_eq!(
        call_at(
            &url,
            &bearer("key-carol-7a7a7a"),
            "showPetById",
            show.clone()
        )
        .await
        .status,
        200
    );
    assert_upstream_saw(
        &api,
        3,
        &["key-alice-5d2e8a", "key-bob-91c0ff", "key-carol-7a7a7a"],
    )
    .await;

    // A keys file broken on reload is refused, and the keys stay.
    std::fs::write(&keys, "my-plain-key carol\n").expect("written");
    Command::new("kill")
        .args(["-HUP", &gateway.child.id().to_string()])
        .status()
        .expect("kill runs");
    wait_for_log(&gateway, "reload refused", 1);
    assert!(
        gateway.stderr_so_far().contains("agents.keys:1:"),
        "names the line"
    );
    assert_eq!(
        call_at(&url, &bearer("key-carol-7a7a7a"), "showPetById", show)
            .await
            .status,
        200
    );

    wait_for_log(&gateway, "agents with one of the 2 keys of", 1);
    let log = gateway.stderr_so_far();
    for key in ["key-alice", "key-bob", "key-carol", "key-mallory"] {
        assert!(!log.contains(key), "the log shows a key: {log}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_in_a_header_of_the_operators_naming_is_taken_there_alone() {
    let folder = scratch("agents-header-keys");
    let keys = folder.join("agents.keys");
    write_keys(&keys, &[("key-dave-c0ffee", "dave")]);
    let api = upstream(Duration::ZERO).await;
    let gateway = keyed_gateway(&api, &keys, &["--agent-key-header", "X-Agent-Key"]);
    let url = format!("http://127.0.0.1:{}/mcp", gateway.port);
    let show = json!({"petId": "p1"});
    let in_bearer = call_at(
        &url,
        &bearer("key-dave-c0ffee"),
        "showPetById",
        show.clone(),
    )
    .await;
    assert_eq!(in_bearer.status, 401);
    assert!(
        in_bearer.challenge.starts_with("ApiKey "),
        "{}",
        in_bearer.challenge
    );
    assert!(in_bearer.challenge.contains("header=\"X-Agent-Key\""));
    let header = vec![("X-Agent-Key", "key-dave-c0ffee".to_owned())];
    assert_eq!(
        call_at(&url, &header, "showPetById", show).await.status,
        200
    );
    assert_upstream_saw(&api, 1, &["key-dave-c0ffee"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_its_agent_s_alone() {
    let folder = scratch("agents-sessions");
    let keys = folder.join("agents.keys");
    write_keys(
        &keys,
        &[("key-erin-0b1d", "erin"), ("key-finn-7e4a", "finn")],
    );
    let api = upstream(Duration::ZERO).await;
    let gateway = keyed_gateway(&api, &keys, &[]);
    let url = format!("http://127.0.0.1:{}/mcp", gateway.port);
    let (erin, finn) = (bearer("key-erin-0b1d"), bearer("key-finn-7e4a"));
    let show = json!({"petId": "p1"});
    let session = open_session(&url, &erin).await;
    let own = call_in_session(&url, &erin, &session, "showPetById", show.clone()).await;
    assert_eq!(own.status, 200, "{}", own.body);

    // Another agent, let in with its own key, holding erin's session ID:
    // answered as for a session that does not exist, and nothing is sent.
    let other = call_in_session(&url, &finn, &session, "showPetById", show.clone()).await;
    assert_eq!(
        (other.status, other.body.as_str()),
        (404, "Not Found: Session not found")
    );
    let unknown =
        call_in_session(&url, &finn, "no-such-session", "showPetById", show.clone()).await;
    assert_eq!(
        (unknown.status, unknown.body.as_str()),
        (404, other.body.as_str()),
        "the two answers tell nothing apart"
    );
    let closed = http_client()
        .build()
        .expect("a client")
        .delete(&url)
        .header("Authorization", &finn[0].1)
        .header("Mcp-Session-Id", &session)
        .send()
        .await
        .expect("answered");
    assert_eq!(closed.status(), 404, "finn cannot end erin's session");
    wait_for_log(&gateway, "another agent's session", 2);

    // Erin's session lives on, and finn's own works.
    let again = call_in_session(&url, &erin, &session, "showPetById", show.clone()).await;
    assert_eq!(again.status, 200, "{}", again.body);
    let finns = open_session(&url, &finn).await;
    let own = call_in_session(&url, &finn, &finns, "showPetById", show).await;
    assert_eq!(own.status, 200, "{}", own.body);
    assert_upstream_saw(&api, 3, &["key-erin-0b1d", "key-finn-7e4a"]).await;
}

/// A gateway taking the tokens of `server`, with scopes by the tools' hints.
fn oauth_gateway(api: &MockServer, issuer: &str, refresh: u64) -> Listening {
    start_listening(|port| {
        let mut command = serve_http(&api.uri(), port);
        command
            .args(["--oauth-issuer", issuer])
            .args([
                "--oauth-read-scope",
                "mcp:read",
                "--oauth-write-scope",
                "mcp:write",
            ])
            .args(["--oauth-key-refresh-interval", &refresh.to_string()])
            .env("HOSTED_MCP_CREDENTIAL", STORED);
        command
    })
}

/// The resources the authorization server issues tokens for: the
/// gateway's endpoint, and another resource of the same server.
fn resources(gateway: &Listening) -> (String, String) {
    (
        format!("http://127.0.0.1:{}/mcp", gateway.port),
        format!("http://127.0.0.1:{}/mcp/another-api", gateway.port),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_typescript_client_completes_mcp_authorization_against_oidc_provider() {
    let api = upstream(Duration::ZERO).await;
    let server = AuthorizationServer::start(&scratch("agents-ts-client"), &[]);
    let issuer = server.issuer.clone();
    let gateway = oauth_gateway(&api, &issuer, 10);
    let (resource, other) = resources(&gateway);
    server.serve(&[resource.clone(), other]).await;

    // The metadata names the resource, the server and the scopes.
    let metadata: Value = http_client()
        .build()
        .expect("a client")
        .get(format!(
            "http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp",
            gateway.port
        ))
        .send()
        .await
        .expect("answered")
        .json()
        .await
        .expect("JSON");
    assert_eq!(metadata["resource"], resource);
    assert_eq!(metadata["authorization_servers"], json!([issuer]));
    assert_eq!(
        metadata["scopes_supported"],
        json!(["mcp:read", "mcp:write"])
    );
    // The one API of the flags: its metadata at the root as well, and a
    // path that is no endpoint told where MCP is.
    let client = http_client().build().expect("a client");
    let at_root = client
        .get(format!(
            "http://127.0.0.1:{}/.well-known/oauth-protected-resource",
            gateway.port
        ))
        .send()
        .await
        .expect("answered");
    assert_eq!(at_root.json::<Value>().await.expect("JSON"), metadata);
    let nowhere = client
        .get(format!("http://127.0.0.1:{}/nowhere", gateway.port))
        .send()
        .await
        .expect("answered");
    assert_eq!(nowhere.status(), 404);
    assert_eq!(
        nowhere.text().await.expect("text"),
        "not found: MCP is served at /mcp\n"
    );

    let flow = |client: (&str, &str), tool: &str, arguments: &str| {
        Command::new("node")
            .arg(node_client().join("oauth_client.mjs"))
            .args([&resource, client.0, client.1, "", tool, arguments, &issuer])
            .output()
            .expect("node runs")
    };
    // 401, metadata, discovery, token, call: all the SDK's own doing.
    let full = flow(READ_WRITE_CLIENT, "createPet", r#"{"body":{"name":"Rex"}}"#);
    assert!(
        full.status.success(),
        "{}",
        String::from_utf8_lossy(&full.stderr)
    );
    let seen: Value = serde_json::from_slice(&full.stdout).expect("JSON");
    assert_eq!(
        seen["tools"],
        json!([
            "listPets",
            "createPet",
            "showPetById",
            "delete__pets__petId_"
        ])
    );
    assert_eq!(seen["result"]["isError"], json!(false), "{seen}");
    assert_upstream_saw(&api, 1, &["Bearer", "eyJ"]).await;

    // A client allowed the read scope alone sees the read-only tools, calls
    // them, and is refused another with 403; its step-up cannot get the
    // write scope, so nothing more reaches the API.
    let reader = flow(READ_ONLY_CLIENT, "showPetById", r#"{"petId":"p7"}"#);
    assert!(
        reader.status.success(),
        "{}",
        String::from_utf8_lossy(&reader.stderr)
    );
    let seen: Value = serde_json::from_slice(&reader.stdout).expect("JSON");
    assert_eq!(seen["tools"], json!(["listPets", "showPetById"]));
    assert_eq!(seen["result"]["isError"], json!(false), "{seen}");
    let writer = flow(
        READ_ONLY_CLIENT,
        "delete__pets__petId_",
        r#"{"petId":"p7"}"#,
    );
    assert!(!writer.status.success(), "a read-only client deleted a pet");
    assert!(
        String::from_utf8_lossy(&writer.stderr).contains("403"),
        "{}",
        String::from_utf8_lossy(&writer.stderr)
    );
    assert_upstream_saw(&api, 2, &["Bearer", "eyJ"]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_client_calls_with_a_token_it_was_given() {
    let api = upstream(Duration::ZERO).await;
    let server = AuthorizationServer::start(&scratch("agents-python"), &[]);
    let gateway = oauth_gateway(&api, &server.issuer, 10);
    let (resource, other) = resources(&gateway);
    server.serve(&[resource.clone(), other]).await;
    let token = server
        .token(READ_WRITE_CLIENT, "mcp:read mcp:write", &resource)
        .await;
    let output = run_checked(
        Command::new(python())
            .arg(crate::support::manifest_dir().join("tests/python/call_with_token.py"))
            .args([&resource, &token, "listPets", r#"{"limit": 3}"#]),
    );
    let seen: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(seen["tools"].as_array().map(Vec::len), Some(4), "{seen}");
    assert_eq!(seen["is_error"], json!(false), "{seen}");
    assert_upstream_saw(&api, 1, &[&token]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_bad_token_is_refused_with_its_status_and_nothing_is_sent() {
    let api = upstream(Duration::ZERO).await;
    let server = AuthorizationServer::start(&scratch("agents-bad"), &[]);
    let gateway = oauth_gateway(&api, &server.issuer, 1);
    let (resource, other) = resources(&gateway);
    server.serve(&[resource.clone(), other.clone()]).await;
    let list = |token: String| {
        let resource = resource.clone();
        async move { post_2026(&resource, &bearer(&token), "tools/list", json!({})).await }
    };

    // A good one first: the keys are fetched.
    let good = server
        .token(READ_WRITE_CLIENT, "mcp:read mcp:write", &resource)
        .await;
    assert_eq!(list(good.clone()).await.status, 200);

    let for_another = server
        .token(READ_WRITE_CLIENT, "mcp:read mcp:write", &other)
        .await;
    let mut bad = vec![("for another resource", for_another, "another resource")];
    for (kind, why) in [
        ("expired", "expired"),
        ("not_yet_valid", "not valid yet"),
        ("wrong_issuer", "issuer"),
        ("bad_signature", "signature"),
        ("alg_none", "not a JWT"),
        ("hs256_public_key", "HS256"),
        ("malformed_header", "not a JWT"),
        ("unknown_kid", "key id"),
    ] {
        bad.push((
            kind,
            server.mint(kind, &resource, "mcp:read mcp:write").await,
            why,
        ));
    }
    bad.push((
        "not a JWT at all",
        "opaque-token-0123".to_owned(),
        "not a JWT",
    ));
    for (kind, token, why) in &bad {
        let mut answer = list(token.clone()).await;
        // A key id not held while the keys were just fetched: come back.
        while answer.status == 503 && answer.body.starts_with("[AGENT_KEY_PENDING]") {
            let wait = answer.retry_after.as_deref().and_then(|s| s.parse().ok());
            tokio::time::sleep(Duration::from_secs(wait.unwrap_or(1))).await;
            answer = list(token.clone()).await;
        }
        assert_eq!(answer.status, 401, "{kind}: {}", answer.body);
        assert!(
            answer.challenge.contains("error=\"invalid_token\""),
            "{kind}: {}",
            answer.challenge
        );
        assert!(answer.challenge.contains("resource_metadata="), "{kind}");
        assert!(answer.body.contains(why), "{kind}: {}", answer.body);
        let called = call_at(
            &resource,
            &bearer(token),
            "showPetById",
            json!({"petId": "x"}),
        )
        .await;
        assert_eq!(called.status, 401, "{kind}");
    }

    // A token in the query is refused, whatever it is.
    let in_query = post_2026(
        &format!("{resource}?access_token={good}"),
        &[],
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(in_query.status, 400, "{}", in_query.body);
    assert!(in_query.body.starts_with("[AGENT_TOKEN_IN_QUERY]"));

    // A read-only token: read-only tools alone, and 403 naming the scope.
    let reader = server
        .token(READ_ONLY_CLIENT, "mcp:read mcp:write", &resource)
        .await;
    assert_eq!(
        names(&list(reader.clone()).await),
        ["listPets", "showPetById"]
    );
    let refused = call_at(
        &resource,
        &bearer(&reader),
        "createPet",
        json!({"body": {"name": "Rex"}}),
    )
    .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(
        refused.challenge.contains("error=\"insufficient_scope\""),
        "{}",
        refused.challenge
    );
    assert!(
        refused.challenge.contains("scope=\"mcp:write\""),
        "{}",
        refused.challenge
    );
    assert!(refused.body.starts_with("[AGENT_SCOPE_INSUFFICIENT]"));
    assert_upstream_saw(&api, 0, &[]).await;

    // A rotation: a token of the new key is taken once its keys are
    // fetched again; the withdrawn key signs nothing any more.
    server.rotate().await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let fresh = server.mint("valid", &resource, "mcp:read").await;
    assert_eq!(list(fresh).await.status, 200);
    let old = server.mint("old_kid", &resource, "mcp:read").await;
    assert_eq!(list(old).await.status, 401);

    // A flood of made-up key ids costs the server a fetch per interval at most.
    let before = server.counts().await["jwks_requests"]
        .as_u64()
        .unwrap_or_default();
    let started = Instant::now();
    for _ in 0..20 {
        let token = server.mint("unknown_kid", &resource, "mcp:read").await;
        let answer = list(token).await;
        // Refused, or told to come back once the keys may be fetched again.
        let pending = answer.status == 503 && answer.body.starts_with("[AGENT_KEY_PENDING]");
        assert!(answer.status == 401 || pending, "{}", answer.body);
    }
    let fetched = server.counts().await["jwks_requests"]
        .as_u64()
        .unwrap_or_default()
        - before;
    let allowed = started.elapsed().as_secs() + 1;
    assert!(
        fetched <= allowed,
        "{fetched} fetches in {:?}",
        started.elapsed()
    );

    let log = log_caught_up(&gateway);
    for (kind, token, _) in &bad {
        let signature = token.rsplit('.').next().unwrap_or_default();
        assert!(
            signature.is_empty() || !log.contains(signature),
            "{kind} is in the log"
        );
    }
    assert!(
        !log.contains(&good) && !log.contains(&reader),
        "a token is in the log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_authorization_server_fails_closed_and_is_taken_back() {
    let api = upstream(Duration::ZERO).await;
    let state = scratch("agents-outage");
    let mut server = AuthorizationServer::start(&state, &[]);
    let port = server.port();
    let gateway = oauth_gateway(&api, &server.issuer, 1);
    let (resource, other) = resources(&gateway);
    server.serve(&[resource.clone(), other.clone()]).await;
    let token = server
        .token(READ_WRITE_CLIENT, "mcp:read mcp:write", &resource)
        .await;
    server.stop();

    for _ in 0..3 {
        let answer = post_2026(&resource, &bearer(&token), "tools/list", json!({})).await;
        assert_eq!(answer.status, 503, "{}", answer.body);
        assert_eq!(answer.retry_after.as_deref(), Some("1"));
        assert!(answer.body.starts_with("[AGENT_CHECK_UNAVAILABLE]"));
    }
    wait_for_log(&gateway, "cannot fetch the authorization server's keys", 1);

    server = AuthorizationServer::start_on(port, &state, &[resource.clone(), other]);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let answer = post_2026(&resource, &bearer(&token), "tools/list", json!({})).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    wait_for_log(&gateway, "answers again", 1);
    // Lines are written in order: every line of the outage is in by now,
    // and there is one.
    assert_eq!(
        gateway
            .stderr_so_far()
            .matches("cannot fetch the authorization server's keys")
            .count(),
        1,
        "one line for the outage"
    );
    assert_upstream_saw(&api, 0, &[]).await;
    drop(server);
}

#[test]
fn start_up_says_who_is_let_in_and_warns_when_anyone_is() {
    let mut open = start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--openapi"])
            .arg(fixture())
            .args(["--base-url", "http://127.0.0.1:9", "--listen"])
            .arg(format!("0.0.0.0:{port}"))
            .stdout(Stdio::null());
        command
    });
    wait_for_log(&open, "letting in", 1);
    terminate(&open.child);
    let (_, log) = open.finish();
    assert!(log.contains("agents=anyone who reaches the port"), "{log}");
    assert_eq!(
        log.matches("--agent-keys FILE or --oauth-issuer URL")
            .count(),
        1,
        "{log}"
    );

    let mut loopback = start_listening(|port| serve_http("http://127.0.0.1:9", port));
    wait_for_log(&loopback, "letting in", 1);
    terminate(&loopback.child);
    let (_, log) = loopback.finish();
    assert!(
        !log.contains("--agent-keys FILE"),
        "no warning on loopback: {log}"
    );
}
