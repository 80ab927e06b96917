//! A failure can be reproduced from the report alone: it names the launch
//! command as run and the variables the harness set (never the credential),
//! the tool calls made and what the gateway answered, where the scenario's
//! document was kept, and a command that reruns just that scenario, which
//! does. A gateway that says the same on stderr at every launch is quoted
//! once in the terminal, not once per failure.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

use hosted_mcp_conformance::reference;
use serde_json::Value;

/// Two scenarios that fail on any gateway that follows the rules (the
/// upstream's 500 reaches it, whatever the step claims), and one that passes.
const FEATURE: &str = r#"Feature: Reproducing failures

  Background:
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets/{petId}:
          get:
            operationId: getPet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """

  @TC-PROTO-005
  Scenario: A first claim that nothing was sent
    Given the upstream answers every request with status 500
    When the client calls "getPet" with {"petId": "7"}
    Then nothing reached the upstream

  @TC-PROTO-005
  Scenario: A second claim that nothing was sent
    Given the upstream answers every request with status 500
    When the client calls "getPet" with {"petId": "8"}
    Then nothing reached the upstream

  @TC-PROTO-005
  Scenario: An upstream failure is a tool error
    Given the upstream answers every request with status 500
    When the client calls "getPet" with {"petId": "9"}
    Then the call returns a tool error with a text
"#;

/// A fresh folder for one test, with the feature file in `features/`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hosted-mcp-reproduce-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("features")).expect("a scratch folder");
    std::fs::create_dir_all(dir.join("tmp")).expect("a temporary folder");
    std::fs::write(dir.join("features/reproduce.feature"), FEATURE).expect("the feature");
    dir
}

fn harness_binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
}

/// Runs `command` in `dir`, with the harness on PATH and `dir/tmp` as its
/// temporary folder (where failing scenarios' files are kept).
fn in_scratch(dir: &Path, mut command: Command) -> Output {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![harness_binary().parent().expect("a folder").to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    command
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("a PATH"))
        .env("TMPDIR", dir.join("tmp"))
        .output()
        .expect("the command runs")
}

fn read_report(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("a JSON report");
    serde_json::from_str(&text).expect("the report is JSON")
}

#[test]
fn a_failure_carries_what_it_takes_to_reproduce_it() {
    let dir = scratch("failure");
    let gateway = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        reference::binary_for(harness_binary())
            .expect("the reference gateway builds")
            .display()
    );
    // Each failure with a launch of its own, so both gateways' stderr tails
    // read alike (see the next test for failures on a kept gateway).
    let mut run = Command::new(harness_binary());
    run.args(["--gateway", &gateway, "--features", "features", "--isolate"])
        .args(["--json", "report.json"]);
    let output = in_scratch(&dir, run);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");

    let report = read_report(&dir.join("report.json"));
    let failed: Vec<&Value> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 2, "{stdout}");
    let failure = &failed[0]["failure"];

    // The launch as run, and what the harness set besides.
    let launch = failure["launch"].as_str().expect("the launch command");
    assert!(launch.contains(" serve --openapi "), "{launch}");
    let environment = failure["environment"].as_str().expect("the environment");
    assert!(
        environment.contains("HOSTED_MCP_CREDENTIAL_IN=bearer"),
        "{environment}"
    );
    assert!(!environment.contains("sk/conformance"), "{environment}");

    // The call made and the tool result the gateway gave.
    let calls = failure["calls"].as_array().expect("the calls made");
    let call = calls[0].as_str().unwrap_or_default();
    assert!(call.starts_with("tools/call getPet {\"petId\":"), "{call}");
    assert!(call.contains("isError: true"), "{call}");

    // The document, kept, and the launch line names it where it is now.
    let files = PathBuf::from(failure["files"].as_str().expect("the kept files"));
    assert!(files.starts_with(dir.join("tmp")), "{}", files.display());
    assert!(files.join("document.yaml").is_file(), "{}", files.display());
    assert!(
        launch.contains(&files.join("document.yaml").display().to_string()),
        "{launch}"
    );
    // Passing scenarios' files go with their run.
    let kept = std::fs::read_dir(files.parent().expect("the kept root")).expect("kept folder");
    assert_eq!(kept.count(), 2, "only the failures' files are kept");

    // No Rust debug text in what the reader sees.
    assert!(!stdout.contains("Some(\""), "{stdout}");

    // Each failure's stderr holds its own call's line, though the reference
    // writes its log in batches, after its answer: the harness waits for a
    // failed scenario's gateway to go quiet before keeping what it wrote.
    for failed in &failed {
        let stderr = failed["failure"]["stderr"].as_str().unwrap_or_default();
        assert!(stderr.contains("call tool=\"getPet\""), "{stderr}");
    }

    // The same stderr tail is quoted once.
    assert_eq!(
        stdout.matches("ends as shown above for").count(),
        1,
        "{stdout}"
    );

    // The rerun line runs that scenario alone, with the same outcome.
    let rerun = failure["rerun"].as_str().expect("a rerun line");
    assert!(
        stdout.contains(&format!("rerun it alone: {rerun}")),
        "{stdout}"
    );
    let mut again = Command::new("sh");
    again.args(["-c", &format!("{rerun} --json again.json")]);
    let output = in_scratch(&dir, again);
    let again = read_report(&dir.join("again.json"));
    let scenarios = again["scenarios"].as_array().expect("scenarios");
    assert_eq!(
        scenarios.len(),
        1,
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(scenarios[0]["name"], failed[0]["name"]);
    assert_eq!(scenarios[0]["status"], "failed");
    assert_eq!(output.status.code(), Some(1));

    let _ = std::fs::remove_dir_all(&dir);
}

/// Failures on a gateway kept from an earlier scenario (the default) carry
/// their own diagnostics all the same, though the gateway and its upstream
/// went on to serve another scenario, and say the gateway served before.
#[test]
fn a_failure_on_a_kept_gateway_carries_its_own_diagnostics() {
    let dir = scratch("kept");
    let gateway = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        reference::binary_for(harness_binary())
            .expect("the reference gateway builds")
            .display()
    );
    let mut run = Command::new(harness_binary());
    run.args(["--gateway", &gateway, "--features", "features"])
        .args(["--json", "report.json"]);
    let output = in_scratch(&dir, run);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let report = read_report(&dir.join("report.json"));
    assert!(report["reused"].as_u64() >= Some(1), "{stdout}");
    let failures: Vec<&Value> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["status"] == "failed")
        .map(|s| &s["failure"])
        .collect();
    assert_eq!(failures.len(), 2, "{stdout}");
    for failure in &failures {
        let upstream = failure["upstream"]
            .as_array()
            .expect("the upstream's requests");
        assert_eq!(upstream.len(), 1, "{stdout}");
        assert!(failure["launch"].as_str().is_some(), "{stdout}");
    }
    assert!(
        failures.iter().any(|f| f["message"]
            .as_str()
            .unwrap_or_default()
            .contains("had served 1 scenario(s)")),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_place_that_names_no_scenario_is_refused_with_the_nearest() {
    let dir = scratch("place");
    let mut run = Command::new(harness_binary());
    run.args(["--features", "features", "--scenario"])
        .arg("features/reproduce.feature:20");
    let output = in_scratch(&dir, run);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .contains("the nearest: features/reproduce.feature:18, features/reproduce.feature:24"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
