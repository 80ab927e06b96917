//! The official JSON-Schema-Test-Suite's draft 2020-12 cases for the keywords
//! the checker checks (`tests/data/json-schema-test-suite/`, vendored, see its
//! README), each run through the checker and compared with the suite's
//! verdict.
//!
//! The cases where the checker differs by design (a keyword it does not
//! check inside the case, references by URI, format details, ...) are listed
//! with the reason in `expected-failures.txt` beside the data. The test fails
//! on any other difference, and on a listed case that no longer differs or no
//! longer exists, so the list stays true.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::files_under;
use hosted_mcp_gateway::check::Validator;
use serde_json::{json, Map, Value};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/json-schema-test-suite")
}

/// The expected failures: `file | case | test` to the reason given above it.
fn expected_failures() -> BTreeMap<String, String> {
    let path = data_dir().join("expected-failures.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reason = None;
    let mut listed = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(why) = line.strip_prefix("reason:") {
            reason = Some(why.trim().to_owned());
            continue;
        }
        let why = reason
            .clone()
            .unwrap_or_else(|| panic!("expected-failures.txt:{}: no reason above", number + 1));
        assert_eq!(
            line.split(" | ").count(),
            3,
            "expected-failures.txt:{}: not `file | case | test`",
            number + 1
        );
        let repeated = listed.insert(line.to_owned(), why).is_some();
        assert!(
            !repeated,
            "expected-failures.txt:{}: listed twice",
            number + 1
        );
    }
    listed
}

/// The checker's verdict. It compiles object schemas; a boolean schema is
/// reached through a `$ref`, so the instance stays at the root.
fn checker_accepts(schema: &Value, data: &Value) -> bool {
    let schema = match schema {
        Value::Object(keywords) => keywords.clone(),
        other => match json!({"$ref": "#/$defs/case", "$defs": {"case": other}}) {
            Value::Object(keywords) => keywords,
            _ => unreachable!("an object literal"),
        },
    };
    Validator::compile(&schema).validate(data).is_ok()
}

#[test]
fn checker_passes_the_official_suite_for_the_checked_keywords() {
    let root = data_dir().join("draft2020-12");
    let files: Vec<String> = files_under(&root, &["json"])
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(&root).expect("under the root");
            relative.display().to_string()
        })
        .collect();
    let mut expected = expected_failures();
    let mut problems = Vec::new();
    let (mut run, mut passed, mut failed_as_listed) = (0, 0, 0);
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).expect("a readable suite file");
        let cases: Vec<Map<String, Value>> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for case in &cases {
            let description = case["description"].as_str().expect("a case description");
            for test in case["tests"].as_array().expect("a case's tests") {
                let test_description = test["description"].as_str().expect("a test description");
                let valid = test["valid"].as_bool().expect("a test's verdict");
                let key = format!("{file} | {description} | {test_description}");
                run += 1;
                let passes = checker_accepts(&case["schema"], &test["data"]) == valid;
                match (passes, expected.remove(&key)) {
                    (true, None) => passed += 1,
                    (false, Some(_)) => failed_as_listed += 1,
                    (false, None) => problems.push(format!(
                        "{key}: the checker {} what the suite {}",
                        if valid { "refuses" } else { "accepts" },
                        if valid { "accepts" } else { "refuses" },
                    )),
                    (true, Some(reason)) => problems.push(format!(
                        "{key}: passes now; take it out of expected-failures.txt (listed for: {reason})"
                    )),
                }
            }
        }
    }
    problems.extend(
        expected
            .keys()
            .map(|key| format!("{key}: listed in expected-failures.txt, but no such case")),
    );
    eprintln!(
        "{run} suite tests in {} files: {passed} passed, {failed_as_listed} failed as listed",
        files.len(),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
