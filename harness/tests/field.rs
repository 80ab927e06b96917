//! The field's table and the badge, made from real runs (issue 36): two
//! runs of the reference under different names, one told it can put the
//! upstream credential only in a bearer token, so that a rule is not run
//! there; `field` writes the pages from their JSON reports, and the counts
//! on the pages are the reports' own. The badge is well-formed SVG (checked
//! with xmllint, which `.ci/run` installs) and counts what the run passed.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use hosted_mcp_conformance::reference;
use serde_json::Value;

const EXE: &str = env!("CARGO_BIN_EXE_hosted-mcp-conformance");

/// Rules whose scenarios are quick, one of which wants a basic credential.
const TAGS: &str = "@TC-REQ-013 or @TC-REQ-014 or @TC-ANS-001";

fn run(dir: &Path, name: &str, extra: &[&str]) -> (PathBuf, Value) {
    let reference = reference::binary_for(Path::new(EXE)).expect("the reference gateway builds");
    let gateway = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        reference.display()
    );
    let json = dir.join(format!("{}.json", name.replace(' ', "-")));
    let output = Command::new(EXE)
        .args([
            "--gateway",
            &gateway,
            "--tags",
            TAGS,
            "--gateway-name",
            name,
        ])
        .args(extra)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("the harness runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON report"))
            .expect("JSON");
    assert_eq!(report["gateway_name"], name);
    assert!(
        report["seconds"].as_f64().is_some_and(|s| s > 0.0),
        "{report}"
    );
    (json, report)
}

/// Required rules of `report` with `status`.
fn required(report: &Value, status: &str) -> usize {
    report["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|rule| rule["level"] == "required" && rule["status"] == status)
        .count()
}

#[test]
fn the_field_pages_and_the_badge_count_what_the_runs_saw() {
    let dir = std::env::temp_dir().join(format!("hosted-mcp-field-{}", std::process::id()));
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).expect("a scratch directory");
    std::fs::write(
        docs.join("SUMMARY.md"),
        "# Summary\n\n- [Rules](rules.md)\n",
    )
    .expect("SUMMARY.md");
    std::fs::write(docs.join("field-gone.md"), "an old page").expect("an old page");

    let badge = dir.join("badge.svg");
    let badge_option = badge.to_str().expect("a UTF-8 path");
    let (whole, whole_report) = run(&dir, "Whole 1.0", &["--badge", badge_option]);
    let (bearer, bearer_report) = run(&dir, "Bearer-only 2.0", &["--credential-in", "bearer"]);
    let passed = required(&whole_report, "passed");
    assert_eq!(passed, 3, "{whole_report}");
    assert!(
        required(&bearer_report, "not_run") >= 1,
        "TC-REQ-014 wants a basic credential: {bearer_report}"
    );

    let svg = std::fs::read_to_string(&badge).expect("the badge");
    let xmllint = Command::new("xmllint")
        .arg("--noout")
        .arg(&badge)
        .output()
        .expect("xmllint runs (Debian package libxml2-utils; .ci/run installs it)");
    assert!(
        xmllint.status.success(),
        "{}\n{svg}",
        String::from_utf8_lossy(&xmllint.stderr)
    );
    assert!(
        svg.contains(&format!(">{passed}/")) && svg.contains("Whole 1.0"),
        "{svg}"
    );

    let field = Command::new(EXE)
        .arg("field")
        .arg("--docs")
        .arg(&docs)
        .arg(&whole)
        .arg(&bearer)
        .output()
        .expect("field runs");
    assert_eq!(
        field.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&field.stderr)
    );
    let read = |file: &str| std::fs::read_to_string(docs.join(file)).unwrap_or_default();
    assert_eq!(
        read("SUMMARY.md"),
        "# Summary\n\n- [Rules](rules.md)\n- [The field](field.md)\n  - [Whole 1.0](field-whole.md)\n  - [Bearer-only 2.0](field-bearer-only.md)\n"
    );
    assert!(!docs.join("field-gone.md").exists(), "an old page is left");
    let table = read("field.md");
    let row = |name: &str, report: &Value| {
        format!(
            "| [{name}](field-{}.md) | Streamable HTTP | – | {}/",
            name.split_whitespace()
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase(),
            required(report, "passed")
        )
    };
    assert!(table.contains(&row("Whole 1.0", &whole_report)), "{table}");
    assert!(
        table.contains(&row("Bearer-only 2.0", &bearer_report)),
        "{table}"
    );
    let page = read("field-bearer-only.md");
    assert!(page.contains("## Not run"), "{page}");
    assert!(page.contains("--credential-in"), "{page}");
    assert!(
        read("field-whole.md").contains("## Failures\n"),
        "the page of the run with none"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reports_without_a_name_make_no_table() {
    let dir = std::env::temp_dir().join(format!("hosted-mcp-field-unnamed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let report = dir.join("report.json");
    let reference = reference::binary_for(Path::new(EXE)).expect("the reference gateway builds");
    let gateway = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        reference.display()
    );
    let output = Command::new(EXE)
        .args(["--gateway", &gateway, "--tags", "@TC-ANS-001", "--json"])
        .arg(&report)
        .output()
        .expect("the harness runs");
    assert_eq!(output.status.code(), Some(0));
    let field = Command::new(EXE)
        .arg("field")
        .arg("--docs")
        .arg(&dir)
        .arg(&report)
        .output()
        .expect("field runs");
    assert_eq!(field.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&field.stderr);
    assert!(stderr.contains("--gateway-name"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
