//! The suite against this workspace's reference gateway, as CI runs it: the
//! reference must pass every rule, recommended ones included (`--strict`),
//! over HTTP and over stdio.
//!
//! Two variables narrow a run, for mutation testing (see docs/mutation.md):
//! `CONFORMANCE_TRANSPORTS=http` (or `stdio`) checks one transport only, and
//! `CONFORMANCE_TAGS='not @slow'` passes a tag expression to the harness.
//!
//! `cargo test` builds `hosted-mcp-gateway` into the same target directory
//! first, so the harness finds it beside its own executable.
//!
//! The two suites run at the same time, as two CI jobs on one machine would:
//! a scenario's ports are its own for as long as it runs (the gateway's is
//! reserved, the upstream's held), so scenarios cannot hear each other.

use std::{path::PathBuf, process::Command};

use serde_json::Value;

/// A directory of its own for one test's reports.
fn report_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "hosted-mcp-conformance-test-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("create the report directory");
    dir
}

/// Runs the harness with `args` and checks the run and both reports.
fn run_suite(name: &str, args: &[&str]) {
    let dir = report_dir(name);
    let (junit, json) = (dir.join("junit.xml"), dir.join("rules.json"));
    let output = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(args)
        .args(
            std::env::var("CONFORMANCE_TAGS")
                .map(|tags| vec!["--tags".to_string(), tags])
                .unwrap_or_default(),
        )
        .arg("--strict")
        .arg("--junit")
        .arg(&junit)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run the harness");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // What the run says once the progress dots are over.
    let verdict: Vec<&str> = stdout.lines().filter(|line| !is_progress(line)).collect();
    assert!(
        output.status.success(),
        "the suite failed ({}):\n{}\n{}",
        output.status,
        verdict.join("\n"),
        String::from_utf8_lossy(&output.stderr)
    );

    let last = stdout.lines().last().unwrap_or_default();
    let counts: Vec<&str> = last.split(' ').collect();
    assert!(
        matches!(counts.as_slice(), [_, "passed,", _, "failed"]),
        "last line is not `N passed, N failed`: {last:?}"
    );

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("read the JSON report"))
            .expect("the JSON report parses");
    assert!(
        report["counts"]["passed"].as_u64().unwrap_or(0) >= 1,
        "no scenario passed: {report}"
    );
    let failed: Vec<&Value> = report["rules"]
        .as_array()
        .expect("rules list")
        .iter()
        .filter(|rule| rule["status"] != "passed")
        .map(|rule| &rule["id"])
        .collect();
    assert!(failed.is_empty(), "rules failed: {failed:?}");

    let xml = std::fs::read_to_string(&junit).expect("read the JUnit report");
    assert!(
        xml.contains("<testsuites") && xml.contains("<testcase "),
        "{xml}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A line of progress marks: `....F.. [ 60/450]`.
fn is_progress(line: &str) -> bool {
    let marks = line.split(" [").next().unwrap_or_default();
    !marks.is_empty() && marks.chars().all(|c| ".FErxs".contains(c))
}

/// Whether this run checks `transport` (all of them unless narrowed).
fn wanted(transport: &str) -> bool {
    std::env::var("CONFORMANCE_TRANSPORTS")
        .map(|list| list.split(',').any(|t| t.trim() == transport))
        .unwrap_or(true)
}

#[test]
fn reference_passes_over_http() {
    if wanted("http") {
        run_suite("http", &["--transport", "http"]);
    }
}

#[test]
fn reference_passes_over_stdio() {
    if wanted("stdio") {
        run_suite("stdio", &["--transport", "stdio"]);
    }
}
