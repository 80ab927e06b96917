//! The authorization servers agents' tokens come from, as a theft, a
//! rotation or an outage leaves them (issue 56): a key withdrawn from the
//! key set stops letting in the tokens it signed, those already checked
//! included; keys rotated twice within the refresh interval make the
//! second token wait rather than be thrown away; a stalled server holds up
//! no token already checked; a server off loopback is spoken to over https
//! only; and what a server answers is read only so far. Against
//! oidc-provider, as the other authorization tests.

#![cfg(unix)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::authorization::{AuthorizationServer, READ_WRITE_CLIENT};
use crate::support::{
    post_2026, scratch, serve_http, start_listening, wait_for_log, Answer, Listening, GATEWAY,
};

/// How soon a withdrawn key must stop letting tokens in (the ruling of
/// 2026-12-07, recommended).
const WITHDRAWAL_TAKEN_WITHIN: Duration = Duration::from_secs(30);

async fn upstream() -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(r#"{"ok":true}"#, "application/json"))
        .mount(&upstream)
        .await;
    upstream
}

/// A gateway taking the tokens of `issuer`, fetching its keys for an
/// unknown key id at most every `refresh` seconds.
fn gateway(api: &MockServer, issuer: &str, refresh: u64) -> Listening {
    start_listening(|port| {
        let mut command = serve_http(&api.uri(), port);
        command
            .args(["--oauth-issuer", issuer])
            .args(["--oauth-key-refresh-interval", &refresh.to_string()]);
        command
    })
}

fn resource(gateway: &Listening) -> String {
    format!("http://127.0.0.1:{}/mcp", gateway.port)
}

async fn list(gateway: &Listening, token: &str) -> Answer {
    let bearer = vec![("Authorization", format!("Bearer {token}"))];
    post_2026(&resource(gateway), &bearer, "tools/list", json!({})).await
}

fn hang_up(gateway: &Listening) {
    let sent = Command::new("kill")
        .args(["-HUP", &gateway.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

/// Lists with `token` every 200 ms until it is refused; how long that took.
async fn refused_within(gateway: &Listening, token: &str, limit: Duration) -> (Duration, Answer) {
    let started = Instant::now();
    loop {
        let answer = list(gateway, token).await;
        if answer.status != 200 || started.elapsed() > limit {
            return (started.elapsed(), answer);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_withdrawn_key_stops_letting_in_the_tokens_it_signed_checked_ones_too() {
    let api = upstream().await;
    let server = AuthorizationServer::start(&scratch("issuers-withdrawn"), &[]);
    let gateway = gateway(&api, &server.issuer, 1);
    server.serve(&[resource(&gateway)]).await;
    let token = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    assert_eq!(list(&gateway, &token).await.status, 200, "checked and kept");

    // The operator answers a stolen key by taking it out of the key set.
    server.rotate().await;
    let (took, refused) = refused_within(&gateway, &token, WITHDRAWAL_TAKEN_WITHIN).await;
    assert_eq!(refused.status, 401, "after {took:?}: {}", refused.body);
    assert!(refused.body.contains("withdrawn"), "{}", refused.body);
    assert!(
        refused.challenge.contains("error=\"invalid_token\""),
        "{}",
        refused.challenge
    );
    assert!(took <= WITHDRAWAL_TAKEN_WITHIN, "taken after {took:?}");

    // It stays refused, as invalid, however often it is shown.
    for _ in 0..3 {
        let again = list(&gateway, &token).await;
        assert_eq!(again.status, 401, "{}", again.body);
    }
    // A token of the new key is taken.
    let fresh = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    assert_eq!(list(&gateway, &fresh).await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reload_fetches_the_keys_again_at_once() {
    let api = upstream().await;
    let server = AuthorizationServer::start(&scratch("issuers-reload"), &[]);
    let gateway = gateway(&api, &server.issuer, 1);
    server.serve(&[resource(&gateway)]).await;
    let token = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    assert_eq!(list(&gateway, &token).await.status, 200);
    server.rotate().await;
    // The background fetch comes every 15 s from the first use: well after
    // these two seconds, so the reload's own fetch is what refuses it.
    hang_up(&gateway);
    let (took, refused) = refused_within(&gateway, &token, Duration::from_secs(2)).await;
    assert_eq!(refused.status, 401, "after {took:?}: {}", refused.body);
    assert!(refused.body.contains("withdrawn"), "{}", refused.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_rotations_within_the_refresh_interval_make_the_second_token_wait() {
    let api = upstream().await;
    let refresh = 3;
    let server = AuthorizationServer::start(&scratch("issuers-rotations"), &[]);
    let gateway = gateway(&api, &server.issuer, refresh);
    server.serve(&[resource(&gateway)]).await;
    let first = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    assert_eq!(list(&gateway, &first).await.status, 200);

    // A rotation after the interval: its token fetches the keys, and is taken.
    tokio::time::sleep(Duration::from_secs(refresh) + Duration::from_millis(300)).await;
    server.rotate().await;
    let second = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    assert_eq!(list(&gateway, &second).await.status, 200);

    // Another at once: nothing is wrong with its token, the keys were only
    // fetched too recently. Come back, not "throw it away".
    server.rotate().await;
    let third = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    let wait = list(&gateway, &third).await;
    assert_eq!(wait.status, 503, "{}", wait.body);
    assert!(
        wait.body.starts_with("[AGENT_KEY_PENDING]"),
        "{}",
        wait.body
    );
    assert!(
        wait.challenge.is_empty(),
        "no invalid_token: {}",
        wait.challenge
    );
    let seconds: u64 = wait
        .retry_after
        .as_deref()
        .and_then(|s| s.parse().ok())
        .expect("a Retry-After in seconds");
    assert!((1..=refresh).contains(&seconds), "Retry-After {seconds}");
    tokio::time::sleep(Duration::from_secs(seconds) + Duration::from_millis(300)).await;
    assert_eq!(
        list(&gateway, &third).await.status,
        200,
        "taken once fetched"
    );

    // The second key is gone with the second rotation: known as withdrawn,
    // its tokens are refused at once, without a wait.
    let gone = list(&gateway, &second).await;
    assert_eq!(gone.status, 401, "{}", gone.body);
    assert!(gone.body.contains("withdrawn"), "{}", gone.body);
    assert!(api.received_requests().await.expect("recorded").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_authorization_server_holds_up_no_token_already_checked() {
    let api = upstream().await;
    let server = AuthorizationServer::start(&scratch("issuers-stalled"), &[]);
    let gateway = gateway(&api, &server.issuer, 1);
    server.serve(&[resource(&gateway)]).await;
    let token = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    let other = server
        .token(READ_WRITE_CLIENT, "", &resource(&gateway))
        .await;
    assert_eq!(list(&gateway, &token).await.status, 200);

    // The server stalls, and a reload sets a fetch of its keys going, which
    // waits on it for its whole 5-second timeout.
    server.pause();
    hang_up(&gateway);
    tokio::time::sleep(Duration::from_millis(300)).await;
    for shown in [&token, &other, &token] {
        let started = Instant::now();
        let answer = list(&gateway, shown).await;
        let took = started.elapsed();
        assert_eq!(answer.status, 200, "{}", answer.body);
        // Well under the fetch's timeout: the check did not wait for it.
        assert!(took < Duration::from_millis(2500), "held up {took:?}");
    }
    server.resume();
}

#[test]
fn an_authorization_server_over_plain_http_off_loopback_is_refused_at_start() {
    let run = |extra: &[&str]| {
        Command::new(GATEWAY)
            .args(["serve", "--openapi"])
            .arg(crate::support::fixture())
            .args([
                "--base-url",
                "https://pets.example",
                "--listen",
                "127.0.0.1:0",
            ])
            .args(["--public-url", "https://mcp.example.com"])
            .args(["--oauth-issuer", "http://auth.example.com/realms/mcp"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the gateway runs")
    };
    let refused = run(&[]).wait_with_output().expect("it ends");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains("plain http://"), "{said}");
    assert!(said.contains("--oauth-allow-http"), "{said}");
    assert!(
        !said.contains("auth.example.com"),
        "the value is repeated: {said}"
    );

    // Allowed by the operator, it starts (and is stopped here).
    let mut allowed = run(&["--oauth-allow-http"]);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(allowed.try_wait().expect("polled").is_none(), "it serves");
    let _ = allowed.kill();
    let _ = allowed.wait();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_authorization_server_answering_without_end_is_read_no_further() {
    use base64::Engine as _;
    let api = upstream().await;
    let issuer = MockServer::start().await;
    let huge = format!(
        r#"{{"issuer": "{}", "padding": "{}"}}"#,
        issuer.uri(),
        "x".repeat(2 << 20)
    );
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(huge, "application/json"))
        .mount(&issuer)
        .await;
    let gateway = gateway(&api, &issuer.uri(), 1);
    let part = |json: serde_json::Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json.to_string())
    };
    let token = format!(
        "{}.{}.c2lnbmF0dXJl",
        part(json!({"alg": "RS256", "kid": "k1"})),
        part(json!({"iss": issuer.uri(), "aud": resource(&gateway), "exp": 4102444800u64}))
    );
    let answer = list(&gateway, &token).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(
        answer.body.starts_with("[AGENT_CHECK_UNAVAILABLE]"),
        "{}",
        answer.body
    );
    wait_for_log(&gateway, "over 1048576 bytes", 1);
    assert!(api.received_requests().await.expect("recorded").is_empty());
}
