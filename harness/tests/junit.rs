//! The JUnit report as CI tools read it (issue 18): valid against the
//! Ant/Jenkins schema (vendored in `tests/junit/`, checked with xmllint),
//! one name per test case, the examples of an outline told apart, and each
//! case's `file`, `line` and `time`, each suite's `timestamp`; from a run and
//! from `merge` alike.

use std::{collections::BTreeSet, path::Path, process::Command};

use hosted_mcp_conformance::reference;

/// Validates `xml` with xmllint against the vendored schema.
fn validate(xml: &Path) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/junit/junit-9.xsd");
    let output = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(xml)
        .output()
        .expect("xmllint runs (Debian package libxml2-utils; .ci/run installs it)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Each test case's attribute `name`, in order.
fn attribute<'a>(xml: &'a str, name: &str) -> Vec<Option<&'a str>> {
    let key = format!(" {name}=\"");
    // Each piece starts where the tag's first attribute does.
    xml.split("<testcase")
        .skip(1)
        .map(|case| {
            let tag = &case[..case.find('>').unwrap_or(case.len())];
            let start = tag.find(&key)? + key.len();
            tag[start..].split('"').next()
        })
        .collect()
}

fn check(xml: &Path) {
    validate(xml);
    let text = std::fs::read_to_string(xml).expect("the JUnit report");
    let names = attribute(&text, "name");
    assert!(names.len() > 3, "{text}");
    let unique: BTreeSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "names repeat: {text}");
    for key in ["file", "line", "time"] {
        assert!(
            attribute(&text, key).iter().all(Option::is_some),
            "a test case without {key}: {text}"
        );
    }
    // Each suite says when the run started, as the schema allows it.
    let suites: Vec<&str> = text.split("<testsuite ").skip(1).collect();
    assert!(!suites.is_empty(), "{text}");
    for suite in suites {
        let tag = &suite[..suite.find('>').unwrap_or(suite.len())];
        assert!(
            tag.contains(" timestamp=\""),
            "a suite without timestamp: {tag}"
        );
    }
}

#[test]
fn junit_reports_validate_and_name_every_case_once() {
    let exe = env!("CARGO_BIN_EXE_hosted-mcp-conformance");
    let reference = reference::binary_for(Path::new(exe)).expect("the reference gateway builds");
    let dir = std::env::temp_dir().join(format!("hosted-mcp-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let (junit, json, merged) = (
        dir.join("junit.xml"),
        dir.join("run.json"),
        dir.join("merged.xml"),
    );
    let gateway = format!(
        "{} serve --openapi {{openapi}} --base-url {{base_url}} --listen 127.0.0.1:{{port}}",
        reference.display()
    );
    // TC-PROTO-005's outline names its examples alike; TC-ANS-001's apart.
    let run = Command::new(exe)
        .args([
            "--gateway",
            &gateway,
            "--tags",
            "@TC-PROTO-005 or @TC-ANS-001",
        ])
        .arg("--junit")
        .arg(&junit)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("the harness runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    check(&junit);

    let merge = Command::new(exe)
        .arg("merge")
        .arg(&json)
        .arg("--junit")
        .arg(&merged)
        .output()
        .expect("merge runs");
    assert_eq!(
        merge.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&merge.stdout)
    );
    check(&merged);
    let _ = std::fs::remove_dir_all(&dir);
}
