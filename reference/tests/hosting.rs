//! Many APIs in one gateway from a config file (issue 49): each API its own
//! gateway in every rule, isolated from the others, and the whole changed
//! on SIGHUP without losing a call.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::{
    self, call_2026, fixture, http_client, result_text, run_checked, scratch, start_listening,
    terminate, wait_for_log, Listening, GATEWAY,
};

/// Answers every request with its version and the path it was asked for,
/// and, when set, a text beside them (an echoed secret, say).
struct Echo {
    version: &'static str,
    also: &'static str,
}

impl Respond for Echo {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_json(json!({
            "version": self.version,
            "path": request.url.path(),
            "also": self.also,
        }))
    }
}

async fn echoing(version: &'static str, also: &'static str) -> MockServer {
    let upstream = MockServer::start().await;
    Mock::given(any())
        .respond_with(Echo { version, also })
        .mount(&upstream)
        .await;
    upstream
}

/// An API entry of a config file, serving the petstore fixture.
fn api(name: &str, base_url: &str, extra: &str) -> String {
    format!(
        "  - name: {name}\n    openapi: {}\n    base_url: {base_url}\n{extra}",
        fixture().display()
    )
}

/// A gateway serving `config`, with `env` set.
fn serve_config(config: &Path, env: &[(&str, &str)]) -> Listening {
    start_listening(|port| {
        let mut command = Command::new(GATEWAY);
        command
            .args(["serve", "--config"])
            .arg(config)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        command
    })
}

fn endpoint(gateway: &Listening, name: &str) -> String {
    format!("http://127.0.0.1:{}/mcp/{name}", gateway.port)
}

/// One 2026-07-28 call to `url`: its HTTP status and its message.
async fn call_at(url: &str, tool: &str, arguments: Value) -> (u16, String) {
    let answer = support::call_at(url, &[], tool, arguments).await;
    (answer.status, answer.body)
}

/// Opens an `initialize`-era session at `url`: its id.
async fn open_session(url: &str) -> String {
    support::open_session(url, &[]).await
}

/// A tools/call in the session `session` at `url`: the HTTP status, and
/// the body.
async fn call_in_session(url: &str, session: &str, pet: &str) -> (u16, String) {
    let answer =
        support::call_in_session(url, &[], session, "showPetById", json!({"petId": pet})).await;
    (answer.status, answer.body)
}

fn hang_up(gateway: &Listening) {
    let sent = Command::new("kill")
        .args(["-HUP", &gateway.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

const ALPHA_KEY: &str = "alpha-credential-41d9e07b";
const BETA_KEY: &str = "beta-credential-8c2f6a15";

#[tokio::test(flavor = "multi_thread")]
async fn each_api_reaches_its_own_host_with_its_own_credential_and_masks_them_all() {
    // Alpha's API echoes beta's credential: every stored credential is
    // masked in every API's answers.
    let alpha = echoing("alpha", BETA_KEY).await;
    let beta = echoing("beta", ALPHA_KEY).await;
    let folder = scratch("hosting-isolation");
    let config = folder.join("gateway.yaml");
    std::fs::write(
        &config,
        format!(
            "apis:\n{}{}",
            api(
                "alpha",
                &alpha.uri(),
                "    credential: { env: ALPHA_KEY }\n"
            ),
            api(
                "beta",
                &beta.uri(),
                "    credential: { env: BETA_KEY }\n    credential_in: query:key\n"
            ),
        ),
    )
    .expect("written");
    let gateway = serve_config(&config, &[("ALPHA_KEY", ALPHA_KEY), ("BETA_KEY", BETA_KEY)]);

    let (status, answer) = call_at(
        &endpoint(&gateway, "alpha"),
        "showPetById",
        json!({"petId": "a1"}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        answer.contains("\\\"version\\\": \\\"alpha\\\""),
        "{answer}"
    );
    assert!(
        answer.contains("[credential]") && !answer.contains(BETA_KEY),
        "{answer}"
    );
    let (_, answer) = call_at(
        &endpoint(&gateway, "beta"),
        "showPetById",
        json!({"petId": "b1"}),
    )
    .await;
    assert!(answer.contains("\\\"version\\\": \\\"beta\\\""), "{answer}");
    assert!(
        answer.contains("[credential]") && !answer.contains(ALPHA_KEY),
        "{answer}"
    );

    let to_alpha = alpha.received_requests().await.expect("recorded");
    assert_eq!(to_alpha.len(), 1);
    assert_eq!(to_alpha[0].url.path(), "/pets/a1");
    assert_eq!(to_alpha[0].headers["x-pet-key"], ALPHA_KEY);
    assert!(!format!("{:?}", to_alpha[0]).contains(BETA_KEY));
    let to_beta = beta.received_requests().await.expect("recorded");
    assert_eq!(to_beta.len(), 1);
    assert_eq!(to_beta[0].url.query(), Some(&*format!("key={BETA_KEY}")));
    assert!(to_beta[0].headers.get("x-pet-key").is_none());
    assert!(!format!("{:?}", to_beta[0]).contains(ALPHA_KEY));

    // A session of one API is unknown to another.
    let session = open_session(&endpoint(&gateway, "alpha")).await;
    assert_eq!(
        call_in_session(&endpoint(&gateway, "alpha"), &session, "a2")
            .await
            .0,
        200
    );
    assert_eq!(
        call_in_session(&endpoint(&gateway, "beta"), &session, "b2")
            .await
            .0,
        404
    );
    assert_eq!(beta.received_requests().await.expect("recorded").len(), 1);

    let (status, text) = call_at(
        &format!("http://127.0.0.1:{}/mcp", gateway.port),
        "showPetById",
        json!({"petId": "x"}),
    )
    .await;
    assert_eq!(status, 404);
    assert!(text.contains("/mcp/{name}"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_key_of_one_api_is_refused_by_another() {
    let alpha = echoing("alpha", "").await;
    let beta = echoing("beta", "").await;
    let folder = scratch("hosting-keys");
    let keys = |name: &str, key: &str| {
        let output = run_checked(
            Command::new(GATEWAY)
                .args(["agent-key", "--stdin", "--label", name])
                .stdin(
                    std::fs::File::open(write(&folder, &format!("{name}.key"), key))
                        .expect("opened"),
                ),
        );
        write(
            &folder,
            &format!("{name}.keys"),
            &String::from_utf8_lossy(&output.stderr),
        )
    };
    keys("alpha", "key-of-alpha-0001");
    keys("beta", "key-of-beta-0002");
    let config = write(
        &folder,
        "gateway.yaml",
        &format!(
            "apis:\n{}{}",
            api(
                "alpha",
                &alpha.uri(),
                "    agents: { keys: { file: alpha.keys } }\n"
            ),
            api(
                "beta",
                &beta.uri(),
                "    agents: { keys: { file: beta.keys } }\n"
            ),
        ),
    );
    let gateway = serve_config(&config, &[]);
    let with_key = |url: String, key: &'static str| async move {
        http_client()
            .build()
            .expect("a client")
            .post(url)
            .header("Authorization", format!("Bearer {key}"))
            .header("Accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            )
            .send()
            .await
            .expect("answered")
            .status()
            .as_u16()
    };
    assert_eq!(
        with_key(endpoint(&gateway, "alpha"), "key-of-alpha-0001").await,
        200
    );
    assert_eq!(
        with_key(endpoint(&gateway, "beta"), "key-of-alpha-0001").await,
        401
    );
    assert_eq!(
        with_key(endpoint(&gateway, "beta"), "key-of-beta-0002").await,
        200
    );
}

fn write(folder: &Path, name: &str, text: &str) -> PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, text).expect("written");
    path
}

#[test]
fn an_api_whose_document_cannot_be_loaded_stops_the_whole_gateway_naming_both() {
    let folder = scratch("hosting-broken");
    let config = write(
        &folder,
        "gateway.yaml",
        &format!(
            "apis:\n{}  - name: broken\n    openapi: missing.yaml\n    base_url: http://127.0.0.1:9\n",
            api("fine", "http://127.0.0.1:9", "")
        ),
    );
    let output = Command::new(GATEWAY)
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("API `broken`"), "{stderr}");
    assert!(
        stderr.contains("gateway.yaml:6: apis[1].openapi"),
        "{stderr}"
    );
    assert!(!stderr.contains("serving over HTTP"), "{stderr}");

    let wrong = write(
        &folder,
        "wrong.yaml",
        "apis:\n  - name: x\n    openapi: a.yaml\n    colour: blue\n",
    );
    let output = Command::new(GATEWAY)
        .args(["serve", "--config"])
        .arg(&wrong)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains(&format!("{}:4:", wrong.display())),
        "{stderr}"
    );
    assert!(stderr.contains("unknown field `colour`"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_one_api_config_and_the_flags_give_the_same_tools_and_calls() {
    let folder = scratch("hosting-same");
    let upstream = echoing("same", "").await;
    let config = write(
        &folder,
        "gateway.yaml",
        &format!(
            "apis:\n{}",
            api(
                "pets",
                &upstream.uri(),
                "    credential: { env: PETS_KEY }\n    tools: { exclude_tools: ['delete*'] }\n"
            )
        ),
    );
    let by_config = run_checked(
        Command::new(GATEWAY)
            .args(["tools", "--config"])
            .arg(&config)
            .args(["--api", "pets"]),
    );
    let by_flags = run_checked(
        Command::new(GATEWAY)
            .args(["tools", "--openapi"])
            .arg(fixture())
            .args(["--exclude-tools", "delete*"]),
    );
    assert_eq!(by_config.stdout, by_flags.stdout);

    let configured = serve_config(&config, &[("PETS_KEY", ALPHA_KEY)]);
    let flagged = start_listening(|port| {
        let mut command = crate::support::serve_http(&upstream.uri(), port);
        command
            .args(["--exclude-tools", "delete*"])
            .env("HOSTED_MCP_CREDENTIAL", ALPHA_KEY);
        command
    });
    let arguments = json!({"limit": 7, "tags": ["a", "b"]});
    let (_, one) = call_at(
        &endpoint(&configured, "pets"),
        "listPets",
        arguments.clone(),
    )
    .await;
    let two = call_2026(
        &http_client().build().expect("a client"),
        flagged.port,
        "listPets",
        arguments,
    )
    .await;
    assert_eq!(serde_json::from_str::<Value>(&one).expect("JSON"), two);
    let requests = upstream.received_requests().await.expect("recorded");
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].url, requests[1].url);
    assert_eq!(requests[0].headers, requests[1].headers);
    assert!(result_text(&two).contains("\"version\": \"same\""));

    // The config's one API is at /mcp/pets: /mcp is no endpoint, and the
    // 404 says where they are.
    let elsewhere = http_client()
        .build()
        .expect("a client")
        .post(format!("http://127.0.0.1:{}/mcp", configured.port))
        .send()
        .await
        .expect("answered");
    assert_eq!(elsewhere.status(), 404);
    let said = elsewhere.text().await.expect("text");
    assert!(
        said.contains("/mcp/{name}, one endpoint for each API"),
        "{said}"
    );
}

#[test]
fn over_stdio_a_config_serves_the_api_it_names() {
    let folder = scratch("hosting-stdio");
    let config = write(
        &folder,
        "gateway.yaml",
        &format!(
            "apis:\n{}{}",
            api("pets", "http://127.0.0.1:9", ""),
            api("more", "http://127.0.0.1:9", "")
        ),
    );
    let unnamed = Command::new(GATEWAY)
        .args(["serve", "--stdio", "--config"])
        .arg(&config)
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(unnamed.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unnamed.stderr).contains("--api (one of: pets, more)"));

    let mut child = Command::new(GATEWAY)
        .args(["serve", "--stdio", "--api", "more", "--config"])
        .arg(&config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
        )
        .expect("written");
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .expect("written");
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).expect("written");
        std::thread::sleep(Duration::from_millis(500));
    }
    let output = child.wait_with_output().expect("ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("\"showPetById\""), "{stdout}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("api=\"more\""));
}

/// One call of the load: when it started, the pet it asked for, and what
/// answered it.
struct Observed {
    started: Instant,
    pet: String,
    status: u16,
    answer: String,
}

/// How many calls the load makes before, between and after the reloads.
const CALLS_EACH_WAY: usize = 40;

/// Waits until `count` calls that started after `since` (or at all) have
/// been answered.
async fn calls_started(observed: &Mutex<Vec<Observed>>, count: usize, since: Option<Instant>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let made = observed
            .lock()
            .expect("not poisoned")
            .iter()
            .filter(|call| since.is_none_or(|since| call.started > since))
            .count();
        if made >= count {
            return;
        }
        assert!(Instant::now() < deadline, "only {made} calls in 60 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reload_under_load_loses_no_call_and_answers_none_from_the_wrong_config() {
    let before = echoing("one", "").await;
    let after = echoing("two", "").await;
    let folder = scratch("hosting-reload");
    let config = folder.join("gateway.yaml");
    let first = format!(
        "apis:\n{}{}",
        api("pets", &before.uri(), ""),
        api("gone", &before.uri(), "")
    );
    std::fs::write(&config, &first).expect("written");
    let gateway = serve_config(&config, &[]);
    let pets = endpoint(&gateway, "pets");
    let session = open_session(&pets).await;
    assert_eq!(call_in_session(&pets, &session, "s0").await.0, 200);

    let observed = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut workers = Vec::new();
    for worker in 0..8 {
        let (observed, stop, pets) = (Arc::clone(&observed), Arc::clone(&stop), pets.clone());
        workers.push(tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let pet = format!("w{worker}-{n}");
                let started = Instant::now();
                let (status, answer) = call_at(&pets, "showPetById", json!({"petId": pet})).await;
                observed.lock().expect("not poisoned").push(Observed {
                    started,
                    pet,
                    status,
                    answer,
                });
                n += 1;
            }
        }));
    }
    // Counted in calls, not in time: a busy machine makes fewer a second.
    calls_started(&observed, CALLS_EACH_WAY, None).await;

    // A config that cannot be used is refused; the running one serves on.
    std::fs::write(&config, "apis:\n  - name: pets\n").expect("written");
    hang_up(&gateway);
    wait_for_log(&gateway, "reload refused", 1);
    calls_started(&observed, CALLS_EACH_WAY, Some(Instant::now())).await;

    // The new config: pets' host changes (its tools do not), gone goes,
    // added comes, and pets2's tools differ.
    std::fs::write(
        &config,
        format!(
            "apis:\n{}{}",
            api("pets", &after.uri(), ""),
            api(
                "added",
                &after.uri(),
                "    tools: { include_tools: ['show*'] }\n"
            )
        ),
    )
    .expect("written");
    hang_up(&gateway);
    wait_for_log(&gateway, "reloaded", 1);
    let reloaded = Instant::now();
    calls_started(&observed, CALLS_EACH_WAY, Some(reloaded)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for worker in workers {
        worker.await.expect("the worker ends");
    }

    let observed = std::mem::take(&mut *observed.lock().expect("not poisoned"));
    let mut answered_after = 0;
    for call in observed.iter() {
        assert_eq!(call.status, 200, "{}: {}", call.pet, call.answer);
        let message: Value = serde_json::from_str(&call.answer).expect("JSON");
        assert_eq!(
            message["result"]["isError"],
            json!(false),
            "{}",
            call.answer
        );
        let text = result_text(&message);
        assert!(text.contains(&format!("/pets/{}", call.pet)), "{text}");
        if call.started > reloaded {
            answered_after += 1;
            assert!(
                text.contains("\"version\": \"two\""),
                "a call after the reload met the old config: {text}"
            );
        }
    }
    assert!(
        answered_after >= CALLS_EACH_WAY,
        "{answered_after} calls after the reload"
    );
    let to_before = before.received_requests().await.expect("recorded").len();
    let to_after = after.received_requests().await.expect("recorded").len();
    assert_eq!(
        to_before + to_after,
        observed.len() + 1,
        "every call sent once"
    );

    // Pets' session lives on, now calling the new host; gone is gone;
    // added serves at once.
    let (status, answer) = call_in_session(&pets, &session, "s1").await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("two"), "{answer}");
    assert_eq!(
        call_at(
            &endpoint(&gateway, "gone"),
            "showPetById",
            json!({"petId": "g"})
        )
        .await
        .0,
        404
    );
    let (status, answer) = call_at(
        &endpoint(&gateway, "added"),
        "showPetById",
        json!({"petId": "n"}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    wait_for_log(&gateway, "added=added", 1);
    let log = gateway.stderr_so_far();
    assert!(
        log.contains("removed=gone") && log.contains("kept=pets"),
        "{log}"
    );
    let mut gateway = gateway;
    terminate(&gateway.child);
    let (status, _) = gateway.finish();
    assert!(status.success());
}

/// `check` builds a config whole without serving, as `nginx -t` does:
/// status 0 and a line per API, or status 2 and the very error a start
/// and a reload give.
#[test]
fn check_validates_a_config_whole_without_serving() {
    let folder = scratch("hosting-check");
    let good = write(
        &folder,
        "good.yaml",
        &format!(
            "apis:\n{}{}",
            api("one", "http://127.0.0.1:9", ""),
            api("two", "http://127.0.0.1:9", "")
        ),
    );
    let check = |config: &Path| {
        Command::new(GATEWAY)
            .args(["check", "--config"])
            .arg(config)
            .stdin(Stdio::null())
            .output()
            .expect("runs")
    };
    let output = check(&good);
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("/mcp/one: ") && said.contains("/mcp/two: "),
        "{said}"
    );
    assert!(said.trim_end().ends_with("ok: 2 APIs"), "{said}");

    let broken = write(
        &folder,
        "broken.yaml",
        &format!(
            "apis:\n{}  - name: broken\n    openapi: missing.yaml\n    base_url: http://127.0.0.1:9\n",
            api("fine", "http://127.0.0.1:9", "")
        ),
    );
    let output = check(&broken);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("broken.yaml:6: apis[1].openapi (API `broken`)"),
        "{said}"
    );
    assert!(output.stdout.is_empty(), "nothing said to be ok");
}
