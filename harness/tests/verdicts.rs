//! The harness's own verdicts, on gateways it was not written with: each
//! test launches the real binary against a gateway that behaves one
//! particular way, and checks the outcome the harness reports for it and the
//! exit status, in the ways a harness goes wrong (a false pass, a start-up
//! problem read as a broken rule, a rule passed on scenarios that never ran,
//! a slow gateway failed at the defaults).

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::Mutex,
    time::{Duration, Instant},
};

use serde_json::Value;

use crate::support::turns::Turn;

/// One run at a time: the slow-start test needs the CPUs it measures against.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

struct Run {
    code: i32,
    stdout: String,
    report: Value,
    /// The harness's own run time, not counting the wait for a turn.
    took: Duration,
}

impl Run {
    fn rule(&self, id: &str) -> &Value {
        self.report["rules"]
            .as_array()
            .and_then(|rules| rules.iter().find(|r| r["id"] == id))
            .unwrap_or_else(|| panic!("{id} is not in the report:\n{}", self.stdout))
    }

    fn count(&self, status: &str) -> u64 {
        self.report["counts"][status].as_u64().unwrap_or(0)
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("hosted-mcp-verdicts-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Runs the harness with `args` and reads its JSON report.
fn harness(name: &str, args: &[&str]) -> Run {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let _module_turn = Turn::take(module_path!());
    let json = scratch(name).join("report.json");
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("the harness runs");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let report = std::fs::read_to_string(&json)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)),
        report,
        took,
    }
}

fn reference() -> String {
    hosted_mcp_conformance::reference::binary_for(Path::new(env!(
        "CARGO_BIN_EXE_hosted-mcp-conformance"
    )))
    .expect("the reference gateway builds")
    .display()
    .to_string()
}

fn http_template(program: &str) -> String {
    format!(
        "{program} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}"
    )
}

fn test_gateway(script: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gateways")
        .join(script)
        .display()
        .to_string()
}

#[test]
fn a_result_sent_on_another_stream_fails_the_transport_rule_only() {
    let gateway = format!(
        "python3 {} {} --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        test_gateway("answers_elsewhere.py"),
        reference()
    );
    let run = harness(
        "elsewhere",
        &[
            "--gateway",
            &gateway,
            "--tags",
            "@TC-PROTO-008 or @TC-REQ-004",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        run.rule("TC-PROTO-008")["status"],
        "failed",
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("202"), "{}", run.stdout);
    // The call rules are judged on the result the other stream carried, as
    // the TypeScript SDK's client takes it: one broken rule, one failure.
    assert_eq!(run.rule("TC-REQ-004")["status"], "passed", "{}", run.stdout);
}

#[test]
fn a_transport_not_offered_is_not_run_and_never_passed() {
    let run = harness(
        "one-transport",
        &[
            "--gateway",
            &http_template(&reference()),
            "--tags",
            "@TC-PROTO-001",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.rule("TC-PROTO-001")["status"],
        "not_run",
        "{}",
        run.stdout
    );
    assert_eq!((run.count("passed"), run.count("not_run")), (1, 2));
    assert!(
        run.stdout
            .contains("2 scenario(s) not run: the gateway under test was given no stdio command"),
        "{}",
        run.stdout
    );
}

/// Without `--client-auth` no credential of the gateway's own clients can
/// be shown: the scenarios of what a gateway does with it are not run, with
/// the reason (over stdio, that a stdio gateway's client is the process
/// that started it), their rules are never passed, the run's exit status is
/// as the others make it, and the last line counts them apart.
#[test]
fn a_client_credential_not_given_is_not_run_and_never_passed() {
    let tags = "@TC-REQ-021 or @TC-PROTO-010 or @TC-REQ-009";
    let run = harness(
        "no-client-auth",
        &["--gateway", &http_template(&reference()), "--tags", tags],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    for rule in ["TC-REQ-021", "TC-PROTO-010"] {
        assert_eq!(run.rule(rule)["status"], "not_run", "{}", run.stdout);
    }
    assert_eq!(run.rule("TC-REQ-009")["status"], "passed", "{}", run.stdout);
    assert_eq!((run.count("passed"), run.count("not_run")), (2, 6));
    assert!(
        run.stdout.contains(
            "6 scenario(s) not run: the run has no --client-auth, so no credential of the \
             gateway's own clients can be shown"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("2 passed, 0 failed, 6 not run\n"),
        "{}",
        run.stdout
    );
    let stdio = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --stdio",
        reference()
    );
    let run = harness(
        "no-client-auth-stdio",
        &["--transport", "stdio", "--gateway", &stdio, "--tags", tags],
    );
    assert!(
        run.stdout.contains(
            "6 scenario(s) not run: the run has no --client-auth, and a stdio gateway's client \
             is the process that started it"
        ),
        "{}",
        run.stdout
    );
}

/// A gateway that lets every client in, judged as one that checks them
/// (`--client-auth`): the reference without agent keys. The 401 it never
/// answers is a recommended rule not met, each scenario saying what it let
/// in; its clients' credential still never reaches the API.
#[test]
fn a_gateway_that_lets_every_client_in_does_not_meet_the_refusal_rule() {
    let run = harness(
        "lets-everyone-in",
        &[
            "--gateway",
            &http_template(&reference()),
            "--client-auth",
            "bearer",
            "--tags",
            "@TC-REQ-021 or @TC-PROTO-010",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.rule("TC-PROTO-010")["status"],
        "not_met",
        "{}",
        run.stdout
    );
    assert_eq!(run.rule("TC-REQ-021")["status"], "passed", "{}", run.stdout);
    assert_eq!((run.count("not_met"), run.count("passed")), (4, 2));
    assert!(
        run.stdout
            .contains("the gateway let in a request that showed no client credential: HTTP 200"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("the gateway let in a request that showed a wrong client credential"),
        "{}",
        run.stdout
    );
}

/// A gateway that cannot put the credential in a query or as basic
/// credentials (`--credential-in bearer,header`) has those scenarios not
/// run, with the reason, and their rules never passed; the scenarios whose
/// gateway reads the place from the document itself are judged as before.
#[test]
fn a_credential_place_the_gateway_cannot_take_is_not_run_and_never_passed() {
    let run = harness(
        "credential-places",
        &[
            "--gateway",
            &http_template(&reference()),
            "--credential-in",
            "bearer,header",
            "--tags",
            "@TC-REQ-014 or @TC-REQ-015 or @TC-REQ-017",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    for rule in ["TC-REQ-014", "TC-REQ-015"] {
        assert_eq!(run.rule(rule)["status"], "not_run", "{}", run.stdout);
    }
    // Its scenarios read the place from the document: no hint, no refusal.
    assert_eq!(run.rule("TC-REQ-017")["status"], "passed", "{}", run.stdout);
    assert_eq!(run.count("not_run"), 3, "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "not run: the scenario wants the upstream credential at query:api_key, and the \
             gateway takes it only as bearer, header (--credential-in)"
        ),
        "{}",
        run.stdout
    );
    let wrong = harness(
        "credential-places-unknown",
        &[
            "--gateway",
            &http_template(&reference()),
            "--credential-in",
            "bearer,cookie",
        ],
    );
    assert_eq!(wrong.code, 2, "{}", wrong.stdout);
}

/// A gateway built per document (`--prepare`, as code generators are) is
/// judged as any other: its preparation runs once per distinct document,
/// however many scenarios launch it, and a preparation that refuses a
/// document is the gateway's refusal (TC-LOAD-006 judges its words).
#[test]
fn a_gateway_built_per_document_is_prepared_once_per_document() {
    let dir = scratch("prepare");
    let log = dir.join("prepared.log");
    let _ = std::fs::remove_file(&log);
    let script = test_gateway("generates.py");
    let prepare = format!("python3 {script} prepare {{openapi}} {{prepared}}");
    let gateway = format!(
        "python3 {script} serve {} {{prepared}} --base-url {{base_url}} --port {{port}} --openapi {{openapi}}",
        reference()
    );
    std::env::set_var("GENERATES_LOG", &log);
    let run = harness(
        "prepare",
        &[
            "--prepare",
            &prepare,
            "--gateway",
            &gateway,
            "--isolate",
            "--tags",
            "@TC-LOAD-006 or @TC-NAME-005 or @TC-CHECK-001",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.report["gateway"]["prepare"], prepare.as_str());
    let prepared: Vec<String> = std::fs::read_to_string(&log)
        .expect("the preparation log")
        .lines()
        .map(str::to_owned)
        .collect();
    let distinct: std::collections::BTreeSet<&String> = prepared.iter().collect();
    assert_eq!(
        distinct.len(),
        prepared.len(),
        "a document was prepared twice"
    );
    let launches = run.report["launches"].as_u64().unwrap_or(0);
    assert!(
        (prepared.len() as u64) < launches,
        "{} preparations for {launches} launches",
        prepared.len()
    );
}

#[test]
fn a_gateway_that_does_not_start_is_an_error_not_a_broken_rule() {
    let run = harness(
        "no-start",
        &[
            "--gateway",
            "sh -c 'echo cannot open the document >&2; exit 1' {openapi} {base_url} {port}",
            "--tags",
            "@TC-HINT-001",
        ],
    );
    assert_eq!(run.code, 3, "{}", run.stdout);
    assert_eq!(
        (run.count("failed"), run.count("error")),
        (0, 1),
        "{}",
        run.stdout
    );
    assert_eq!(run.rule("TC-HINT-001")["status"], "error");
    assert!(
        run.stdout.contains("cannot open the document"),
        "{}",
        run.stdout
    );
}

/// A gateway that exits at start-up on one kind of document breaks the rule
/// that wants it loaded, over stdio as over HTTP: a stdio gateway gone
/// before its handshake has not started, as an HTTP one whose port never
/// opened, and neither exited "during the scenario".
#[test]
fn an_exit_at_start_up_is_judged_alike_over_both_transports() {
    let refusing_swagger = |serve: &str| {
        format!(
            "sh -c 'if grep -q swagger \"$1\"; then echo \"gw: Swagger 2.0 is not supported\" >&2; \
             exit 2; fi; exec \"$0\" serve --openapi \"$1\" --base-url \"$2\" {serve}' {} \
             {{openapi}} {{base_url}}",
            reference()
        )
    };
    let http = format!("{} {{port}}", refusing_swagger("--listen \"127.0.0.1:$3\""));
    for (transport, template) in [("http", http), ("stdio", refusing_swagger("--stdio"))] {
        let run = harness(
            &format!("exit-at-start-up-{transport}"),
            &[
                "--transport",
                transport,
                "--gateway",
                &template,
                "--tags",
                "@TC-LOAD-007 or @TC-HINT-001",
            ],
        );
        let swagger = run.rule("TC-LOAD-007");
        assert_eq!(swagger["status"], "not_met", "{transport}: {}", run.stdout);
        assert_eq!(
            swagger["scenarios"][0]["summary"],
            "the gateway did not start: it exited during start-up (exit status: 2)",
            "{transport}: {}",
            run.stdout
        );
        let scenario = run.report["scenarios"]
            .as_array()
            .and_then(|all| all.iter().find(|s| s["rules"][0] == "TC-LOAD-007"))
            .expect("the Swagger scenario is in the report");
        assert_eq!(
            scenario["failure"]["stderr"], "gw: Swagger 2.0 is not supported\n",
            "{transport}: {scenario}"
        );
        assert_eq!(run.rule("TC-HINT-001")["status"], "passed", "{transport}");
        assert_eq!(run.count("error"), 0, "{transport}: {}", run.stdout);
    }
}

/// A stdio gateway that answers the handshake wrongly has started: its exit
/// once the failed session closes its stdin is no exit at start-up, and the
/// rule is judged on what it answered.
#[test]
fn a_wrong_answer_to_the_handshake_is_judged_not_taken_for_a_start_failure() {
    let gateway = format!(
        "python3 {} {{openapi}} {{base_url}}",
        test_gateway("initialize_only.py")
    );
    let run = harness(
        "initialize-only",
        &[
            "--transport",
            "stdio",
            "--gateway",
            &gateway,
            "--tags",
            "@TC-PROTO-003",
        ],
    );
    assert_eq!(
        run.rule("TC-PROTO-003")["status"],
        "failed",
        "{}",
        run.stdout
    );
    let summary = run.rule("TC-PROTO-003")["scenarios"][0]["summary"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        summary.contains("Method not found") && !summary.contains("did not start"),
        "{summary}\n{}",
        run.stdout
    );
}

/// A gateway that gives a wrong answer and crashes after it is judged on
/// the answer it gave, as at the failure: its exit while the harness waits
/// for its stderr to go quiet is no cause to leave the rule unjudged, and
/// the report keeps what it wrote meanwhile.
#[test]
fn a_crash_after_a_wrong_answer_leaves_the_verdict_on_the_answer() {
    let gateway = format!(
        "python3 {} {{openapi}} {{base_url}}",
        test_gateway("crashes_after_its_answer.py")
    );
    let run = harness(
        "crashes-after-its-answer",
        &[
            "--transport",
            "stdio",
            "--gateway",
            &gateway,
            "--scenario",
            "features/protocol.feature:129",
        ],
    );
    assert_eq!(
        run.rule("TC-PROTO-005")["status"],
        "failed",
        "{}",
        run.stdout
    );
    assert!(
        run.report
            .to_string()
            .contains("crashed on the way out of an error"),
        "the stderr written after the failure is kept\n{}",
        run.stdout
    );
}

/// A gateway that never starts is found out from its first few launches:
/// the rest are not launched, every scenario is an error of that one cause,
/// shown once with the command as run, and no rule passes.
fn never_starts(name: &str, gateway: &str, transport: &str, stderr: Option<&str>) {
    let run = harness(name, &["--gateway", gateway, "--transport", transport]);
    assert_eq!(run.code, 3, "{}", run.stdout);
    // Its own time: another test's run may hold the turn for minutes.
    assert!(
        run.took.as_secs() < 60,
        "took {:?}\n{}",
        run.took,
        run.stdout
    );
    assert_eq!(run.count("passed"), 0, "{}", run.stdout);
    assert_eq!(run.count("failed"), 0, "{}", run.stdout);
    let passed: Vec<&Value> = run.report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|rule| rule["status"] != "error" && rule["status"] != "not_run")
        .collect();
    assert!(passed.is_empty(), "{passed:?}\n{}", run.stdout);
    assert_eq!(run.rule("TC-LOAD-004")["status"], "error");
    assert_eq!(
        run.stdout.matches("command as run: ").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("HOSTED_MCP_CREDENTIAL_IN=bearer"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("sk/conformance"), "{}", run.stdout);
    // The command as run spells its stderr otherwise.
    if let Some(stderr) = stderr {
        assert_eq!(run.stdout.matches(stderr).count(), 1, "{}", run.stdout);
    }
}

#[test]
fn a_gateway_that_hangs_at_every_launch_is_given_up_on() {
    never_starts(
        "hangs",
        "python3 -c 'import time; time.sleep(1000)' {openapi} {base_url} {port}",
        "http",
        None,
    );
}

#[test]
fn a_gateway_that_refuses_its_flags_is_given_up_on() {
    never_starts(
        "usage",
        "sh -c 'u=usage; echo \"$u: gw --spec FILE --port N\" >&2; echo \"gw: unrecognized arguments: $0\" >&2; exit 2' {openapi} {base_url} {port}",
        "http",
        Some("usage: gw --spec FILE --port N"),
    );
}

/// Over stdio too; a refusal (TC-LOAD-004, TC-LOAD-006) is no pass from a
/// gateway that exits whatever the document.
#[test]
fn a_gateway_that_exits_at_every_launch_passes_no_rule() {
    never_starts(
        "exits",
        "sh -c 'c=configuration; echo \"gw: cannot open the $c\" >&2; exit 1' {openapi} {base_url}",
        "stdio",
        Some("gw: cannot open the configuration"),
    );
}

/// A refusal is evidence once a gateway is seen to start: a run of only the
/// refusal scenarios passes on a gateway that starts on a plain document.
#[test]
fn refusals_alone_pass_on_a_gateway_that_starts() {
    let run = harness(
        "refusals",
        &[
            "--gateway",
            &http_template(&reference()),
            "--tags",
            "@TC-LOAD-006",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        run.rule("TC-LOAD-006")["status"],
        "passed",
        "{}",
        run.stdout
    );
}

#[test]
fn max_failures_stops_launching_and_reports_the_rest_not_run() {
    let gateway = format!(
        "python3 {} {} --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        test_gateway("answers_elsewhere.py"),
        reference()
    );
    let run = harness(
        "max-failures",
        &[
            "--gateway",
            &gateway,
            "--tags",
            "@TC-PROTO-008",
            "--concurrency",
            "1",
            "--max-failures",
            "1",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.count("failed"), 1, "{}", run.stdout);
    launching_stopped_after_one(&run);
}

/// The scenarios left by `--max-failures 1` are reported as not run, for
/// that reason.
fn launching_stopped_after_one(run: &Run) {
    assert!(run.count("not_run") >= 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("not run: launching stopped after 1 scenario(s) failed or could not be judged (--max-failures 1)"),
        "{}",
        run.stdout
    );
}

/// A gateway that starts on some documents and hangs on the others leaves
/// scenarios that cannot be judged; they fail the run, so they stop a
/// capped run as a failed scenario does, instead of each waiting out its
/// start-up windows.
#[test]
fn max_failures_counts_a_scenario_that_could_not_be_judged() {
    let gateway = format!(
        "sh -c 'grep -q \"in: query\" \"$1\" && exec sleep 600; exec \"$0\" serve --openapi \"$1\" --base-url \"$2\" --listen 127.0.0.1:\"$3\"' {} {{openapi}} {{base_url}} {{port}}",
        reference()
    );
    let run = harness(
        "max-failures-hang",
        &[
            "--gateway",
            &gateway,
            "--tags",
            "@TC-DESC-001 or @TC-REQ-005 or @TC-REQ-019",
            "--concurrency",
            "1",
            "--start-timeout",
            "1",
            "--max-failures",
            "1",
        ],
    );
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.count("error"), 1, "{}", run.stdout);
    launching_stopped_after_one(&run);
}

/// The defaults must suit a gateway that needs 3 s of CPU to start: launches
/// wait their turn, and each one's start-up window opens with it.
#[test]
fn a_slow_starting_gateway_passes_at_the_defaults() {
    let burn = "python3 -c 'import time\nend = time.process_time() + 3\nwhile time.process_time() < end: pass'";
    let gateway = format!(
        "sh -c '{}; exec \"$0\" serve --openapi \"$1\" --base-url \"$2\" --listen 127.0.0.1:\"$3\"' {} {{openapi}} {{base_url}} {{port}}",
        burn.replace('\'', "'\\''"),
        reference()
    );
    let descriptions =
        "@TC-DESC-001 or @TC-DESC-002 or @TC-DESC-003 or @TC-DESC-004 or @TC-DESC-005";
    let run = harness(
        "slow-start",
        &["--gateway", &gateway, "--tags", descriptions],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.count("error"), 0, "{}", run.stdout);
    assert!(run.count("passed") >= 8, "{}", run.stdout);
}

/// A busy machine can starve one launch of a gateway that starts fine: a
/// launch that stays silent through its window, of a gateway seen to come
/// up in the run, is made once more with twice the window, and counted.
/// Here the second launch sleeps past the window, the rest start at once
/// (`--isolate`: a kept gateway would make the second launch unneeded).
#[test]
fn a_launch_starved_once_is_made_again_and_counted() {
    let folder = scratch("starved-once");
    let launches = folder.join("launches");
    let _ = std::fs::remove_file(&launches);
    let gateway = format!(
        "sh -c 'echo >> \"$4\"; [ \"$(wc -l < \"$4\")\" -eq 2 ] && sleep 4; exec \"$0\" serve --openapi \"$1\" --base-url \"$2\" --listen 127.0.0.1:\"$3\"' {} {{openapi}} {{base_url}} {{port}} {}",
        reference(),
        launches.display()
    );
    let run = harness(
        "starved-once",
        &[
            "--gateway",
            &gateway,
            "--tags",
            "@TC-DESC-001 or @TC-DESC-002",
            "--concurrency",
            "1",
            "--start-timeout",
            "2",
            "--isolate",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.count("error"), 0, "{}", run.stdout);
    assert_eq!(run.report["relaunched"], 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("1 launch(es) stayed silent"),
        "{}",
        run.stdout
    );
}

/// A launch made again after a silent handshake takes a new turn to launch,
/// and gives its own back first: with one turn for the run, holding it
/// while waiting for another would wait for ever. Here, over stdio, the
/// second launch sleeps past the handshake's window (10 s at least) before
/// it answers anything.
#[test]
fn a_launch_made_again_gives_back_its_turn() {
    let folder = scratch("silent-handshake");
    let launches = folder.join("launches");
    let _ = std::fs::remove_file(&launches);
    let gateway = format!(
        "sh -c 'echo >> \"$3\"; [ \"$(wc -l < \"$3\")\" -eq 2 ] && sleep 12; exec \"$0\" serve --openapi \"$1\" --base-url \"$2\" --stdio' {} {{openapi}} {{base_url}} {}",
        reference(),
        launches.display()
    );
    let run = harness(
        "silent-handshake",
        &[
            "--gateway",
            &gateway,
            "--transport",
            "stdio",
            "--tags",
            "@TC-DESC-001 or @TC-DESC-002",
            "--concurrency",
            "1",
            "--launches",
            "1",
            "--start-timeout",
            "2",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.count("error"), 0, "{}", run.stdout);
    assert_eq!(run.report["relaunched"], 1, "{}", run.stdout);
}

/// Where starting is what the scenario judges ("When the gateway starts"),
/// silence is no verdict either: a starved launch there is made again too,
/// and the scenario is judged. Here only the first launch on the boolean
/// schemas' document (TC-LOAD-002) sleeps past the window.
#[test]
fn a_starved_launch_is_made_again_where_starting_is_under_test() {
    let folder = scratch("starved-start");
    let slept = folder.join("slept");
    let _ = std::fs::remove_file(&slept);
    let gateway = format!(
        "sh -c 'if grep -q findFlags \"$1\" && [ ! -e \"$4\" ]; then touch \"$4\"; sleep 4; fi; exec \"$0\" serve --openapi \"$1\" --base-url \"$2\" --listen 127.0.0.1:\"$3\"' {} {{openapi}} {{base_url}} {{port}} {}",
        reference(),
        slept.display()
    );
    let run = harness(
        "starved-start",
        &[
            "--gateway",
            &gateway,
            "--tags",
            "@TC-DESC-001 or @TC-LOAD-002",
            "--concurrency",
            "1",
            "--start-timeout",
            "2",
        ],
    );
    assert!(slept.exists(), "no launch was starved:\n{}", run.stdout);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.count("error"), 0, "{}", run.stdout);
    assert_eq!(run.report["relaunched"], 1, "{}", run.stdout);
}

/// Scenarios under a Gherkin `Rule:` block, which carries the rule's tags
/// and a background of its own after the feature's.
const RULE_BLOCKS: &str = r#"Feature: Rule blocks

  Background:
    Given the upstream answers every request with status 200

  @TC-CHECK-001
  Rule: A value has the type its schema names

    Background:
      Given the OpenAPI document:
        """
        openapi: 3.0.3
        info: {title: Pets, version: "1"}
        paths:
          /pets:
            get:
              operationId: findPets
              parameters:
                - {name: limit, in: query, schema: {type: integer}}
              responses: {"200": {description: ok}}
        """

    Scenario: A string for an integer is refused
      When the client calls "findPets" with {"limit": "MARKER-7f3a"}
      Then the call is refused

    Scenario: An integer is sent
      When the client calls "findPets" with {"limit": 7}
      Then the call reached the upstream

  @TC-SCHEMA-008 @recommended
  Rule: A claim no gateway can meet, to show the level is inherited

    Scenario: A call that reached the upstream is said to have sent nothing
      Given the OpenAPI document:
        """
        openapi: 3.0.3
        info: {title: Pets, version: "1"}
        paths:
          /pets:
            get:
              operationId: findPets
              responses: {"200": {description: ok}}
        """
      When the client calls "findPets" with {}
      Then nothing reached the upstream
"#;

#[test]
fn a_rule_blocks_tags_and_background_reach_its_scenarios() {
    let features = scratch("rule-blocks").join("features");
    std::fs::create_dir_all(&features).expect("a features folder");
    std::fs::write(features.join("rules.feature"), RULE_BLOCKS).expect("the feature");
    let folder = features.display().to_string();
    let run = harness("rule-blocks", &["--features", &folder]);
    // Both backgrounds ran: with no document, or an upstream that answers
    // nothing, the two calls could not pass.
    let checked = run.rule("TC-CHECK-001");
    assert_eq!(checked["status"], "passed", "{}", run.stdout);
    assert_eq!(checked["level"], "required", "{}", run.stdout);
    assert_eq!(run.count("passed"), 2, "{}", run.stdout);
    // The block's @recommended makes its failure "not met", which alone
    // does not fail a run.
    let claimed = run.rule("TC-SCHEMA-008");
    assert_eq!(claimed["status"], "not_met", "{}", run.stdout);
    assert_eq!(run.code, 0, "{}", run.stdout);

    let shown = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(["show", "TC-CHECK-001", "--features", &folder])
        .output()
        .expect("the harness runs");
    let text = String::from_utf8_lossy(&shown.stdout);
    assert_eq!(
        text.matches("(runs before each scenario below it)").count(),
        2,
        "the feature's background and the rule's, once each:\n{text}"
    );
    assert!(
        text.contains("upstream answers every request with status 200"),
        "{text}"
    );
    assert!(text.contains("operationId: findPets"), "{text}");
}

#[test]
fn expected_failures_pass_the_run_and_stale_ones_fail_it() {
    let list = scratch("expected").join("known.txt");
    std::fs::write(
        &list,
        "# known for now\nTC-PROTO-008 -- answers tools/call on the GET stream\n",
    )
    .expect("write the list");
    let list = list.display().to_string();
    let elsewhere = format!(
        "python3 {} {} --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        test_gateway("answers_elsewhere.py"),
        reference()
    );
    let listed = harness(
        "expected-listed",
        &[
            "--gateway",
            &elsewhere,
            "--tags",
            "@TC-PROTO-008",
            "--expected-failures",
            &list,
        ],
    );
    assert_eq!(listed.code, 0, "{}", listed.stdout);
    assert_eq!(listed.count("expected"), 2, "{}", listed.stdout);

    let fixed = harness(
        "expected-stale",
        &["--tags", "@TC-PROTO-008", "--expected-failures", &list],
    );
    assert_eq!(fixed.code, 1, "{}", fixed.stdout);
    assert!(
        fixed.stdout.contains("TC-PROTO-008 passes now"),
        "{}",
        fixed.stdout
    );
}

#[test]
fn shards_merge_into_the_whole_run() {
    let dir = scratch("shards");
    let part = |index: &str| {
        let json = dir.join(format!("{index}.json"));
        let run = harness(
            &format!("shard-{index}"),
            &[
                "--tags",
                "@TC-HINT-002 or @TC-NAME-007",
                "--shard",
                &format!("{index}/2"),
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stdout);
        std::fs::write(&json, run.report.to_string()).expect("write the shard");
        (run, json)
    };
    let (first, first_json) = part("1");
    let (second, second_json) = part("2");
    let whole = harness("whole", &["--tags", "@TC-HINT-002 or @TC-NAME-007"]);
    let places = |run: &Run| -> Vec<String> {
        let mut places: Vec<String> = run.report["scenarios"]
            .as_array()
            .expect("scenarios")
            .iter()
            .map(|s| format!("{}:{}", s["file"], s["line"]))
            .collect();
        places.sort();
        places
    };
    assert!(!places(&first).is_empty() && !places(&second).is_empty());
    let mut joined = [places(&first), places(&second)].concat();
    joined.sort();
    assert_eq!(joined, places(&whole), "the shards split the run exactly");

    let merged_json = dir.join("merged.json");
    let merged = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .arg("merge")
        .args([&first_json, &second_json])
        .arg("--json")
        .arg(&merged_json)
        .output()
        .expect("merge runs");
    assert!(merged.status.success(), "{merged:?}");
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_json).expect("merged report"))
            .expect("merged JSON");
    assert_eq!(merged["counts"], whole.report["counts"]);
    assert_eq!(
        merged["rules"].as_array().map(Vec::len),
        whole.report["rules"].as_array().map(Vec::len)
    );
}

/// A gateway that names tools its own way breaks the naming rules, and only
/// those: every other scenario finds its tool by its operation.
#[test]
fn a_gateway_that_names_tools_its_own_way_fails_only_the_naming_rules() {
    let gateway = format!(
        "python3 {} {} --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        test_gateway("renames_tools.py"),
        reference()
    );
    let run = harness("renames", &["--gateway", &gateway]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let broken: Vec<&str> = run.report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|rule| {
            matches!(
                rule["status"].as_str(),
                Some("failed" | "not_met" | "error")
            )
        })
        .filter_map(|rule| rule["id"].as_str())
        .collect();
    assert!(
        broken.iter().all(|id| id.starts_with("TC-NAME-")),
        "only naming rules may fail: {broken:?}\n{}",
        run.stdout
    );
    assert!(broken.len() >= 3, "{broken:?}\n{}", run.stdout);
}

/// The CI recipe of docs/ci.md: two shards with a baseline, then `merge` with it.
/// A shard calls an entry stale only when it ran every scenario the entry
/// covers (issue 18: following a shard's advice broke the other shard);
/// `merge` judges the rest, and refuses a shard missing or another gateway.
#[test]
fn a_baseline_over_shards_is_judged_whole_by_merge() {
    let dir = scratch("baseline-shards");
    let list = dir.join("known.txt");
    std::fs::write(
        &list,
        "# known for now\n\
         TC-NAME-007 -- we keep the characters as written\n\
         The operationId is the name when there is no extension -- we prefix every name\n",
    )
    .expect("write the list");
    let list = list.display().to_string();
    // TC-NAME-007's scenarios fall in both shards, TC-NAME-005's one in shard 1.
    let tags = "@TC-NAME-005 or @TC-NAME-007";
    let renames = format!(
        "python3 {} {} --openapi {{openapi}} --base-url {{base_url}} --port {{port}}",
        test_gateway("renames_tools.py"),
        reference()
    );
    let fixed = http_template(&reference());
    let shards = |gateway: &str, name: &str| -> Vec<(Run, String)> {
        ["1/2", "2/2"]
            .iter()
            .map(|shard| {
                let run = harness(
                    &format!("{name}-{}", &shard[..1]),
                    &[
                        "--gateway",
                        gateway,
                        "--tags",
                        tags,
                        "--expected-failures",
                        &list,
                        "--shard",
                        shard,
                    ],
                );
                let json = dir.join(format!("{name}-{}.json", &shard[..1]));
                std::fs::write(&json, run.report.to_string()).expect("write the shard");
                (run, json.display().to_string())
            })
            .collect()
    };
    let merge = |name: &str, parts: &[&str]| {
        let mut args = vec!["merge"];
        args.extend(parts);
        args.extend(["--expected-failures", list.as_str()]);
        harness(name, &args)
    };

    let broken = shards(&renames, "broken");
    for (run, _) in &broken {
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert!(run.count("expected") >= 1, "{}", run.stdout);
    }
    let merged = merge("broken-merged", &[&broken[0].1, &broken[1].1]);
    assert_eq!(merged.code, 0, "{}", merged.stdout);
    assert_eq!(merged.count("failed"), 0, "{}", merged.stdout);

    let now_passing = shards(&fixed, "fixed");
    let (first, second) = (&now_passing[0].0, &now_passing[1].0);
    // Shard 1 ran TC-NAME-005's only scenario: its entry is stale there.
    assert_eq!(first.code, 1, "{}", first.stdout);
    assert!(
        first
            .stdout
            .contains("The operationId is the name when there is no extension passes now"),
        "{}",
        first.stdout
    );
    // TC-NAME-007 ran in part in each shard: neither calls it stale.
    for run in [first, second] {
        assert!(
            !run.stdout.contains("TC-NAME-007 passes now"),
            "{}",
            run.stdout
        );
    }
    assert_eq!(second.code, 0, "{}", second.stdout);
    let merged = merge("fixed-merged", &[&now_passing[0].1, &now_passing[1].1]);
    assert_eq!(merged.code, 1, "{}", merged.stdout);
    assert!(
        merged.stdout.contains("TC-NAME-007 passes now"),
        "{}",
        merged.stdout
    );

    let missing = merge("missing-shard", &[&broken[0].1]);
    assert_eq!(missing.code, 2, "{}", missing.stdout);
    assert!(
        missing
            .stdout
            .contains("shard 2/2 of the http run is missing"),
        "{}",
        missing.stdout
    );
    let doubled = merge("doubled-shard", &[&broken[0].1, &broken[0].1, &broken[1].1]);
    assert_eq!(doubled.code, 2, "{}", doubled.stdout);
    let mixed = merge("mixed-gateways", &[&broken[0].1, &now_passing[1].1]);
    assert_eq!(mixed.code, 2, "{}", mixed.stdout);
    assert!(
        mixed.stdout.contains("different gateways"),
        "{}",
        mixed.stdout
    );
}

/// A baseline line that names no rule and no scenario is refused before the
/// run, with its place: a typo would otherwise hide nothing and pass.
#[test]
fn a_baseline_key_that_names_nothing_is_refused() {
    let list = scratch("typo").join("known.txt");
    std::fs::write(
        &list,
        "TC-ANS-002 -- pretty-printing lands in 2.4\n\
         A body of exactly 1,048,576 bytes comes back whole -- our cut is off by one\n",
    )
    .expect("write the list");
    let run = harness(
        "typo",
        &[
            "--tags",
            "@TC-ANS-002",
            "--expected-failures",
            &list.display().to_string(),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.contains("known.txt:2: "), "{}", run.stdout);
}
