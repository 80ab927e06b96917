//! The suite is readable from the installed binary alone: `list` and `show`
//! name every rule and scenario and where the built-in features are, and a
//! `--tags` that selects nothing is a usage error naming the nearest rules.

use std::{
    path::PathBuf,
    process::{Command, Output},
    time::{Duration, Instant},
};

use serde_json::Value;

const USAGE: i32 = 2;

fn harness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(args)
        .output()
        .expect("the harness runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The line of names.feature that starts with `start` (after indentation),
/// so the places checked follow the file as it is edited.
fn names_line(start: &str) -> usize {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../features/names.feature");
    let text = std::fs::read_to_string(path).expect("names.feature");
    text.lines()
        .position(|line| line.trim_start().starts_with(start))
        .map(|index| index + 1)
        .unwrap_or_else(|| panic!("no line of names.feature starts with {start:?}"))
}

const EXTENSION_NAMES: &str = "Scenario: The character rule applies to extension names too";
const CHARACTER_OUTLINE: &str =
    "Scenario Outline: Each character outside the allowed set becomes one underscore";

/// The listing as JSON, after checking the command succeeded.
fn listing(args: &[&str]) -> Value {
    let output = harness(&[&["list", "--json"], args].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("list --json prints JSON")
}

#[test]
fn list_names_rules_with_their_level_wording_and_scenarios() {
    let output = harness(&["list"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("TC-NAME-007  required     Character rule: each character"),
        "{text}"
    );
    assert!(text.contains("TC-NAME-008  recommended"), "{text}");
    assert!(
        text.contains(&format!(
            "features/names.feature:{}  The character rule applies to extension names too  @TC-NAME-007",
            names_line(EXTENSION_NAMES)
        )),
        "{text}"
    );

    let rules = stdout(&harness(&["list", "--rules"]));
    assert!(rules.contains("TC-ANS-001"), "{rules}");
    assert!(!rules.contains("features/answer.feature:"), "{rules}");
}

#[test]
fn list_says_where_the_built_in_features_are_for_a_modified_copy() {
    let json = listing(&[]);
    let folder = PathBuf::from(json["features"].as_str().expect("the features folder"));
    assert!(
        folder.join("names.feature").is_file(),
        "{}",
        folder.display()
    );
    let header = stdout(&harness(&["list", "--rules"]));
    assert!(
        header.lines().next().unwrap_or_default().contains(&format!(
            "written to {}: copy that folder, edit it and run it with --features DIR",
            folder.display()
        )),
        "{header}"
    );

    // A copy with one scenario of a rule of its own lists that rule.
    let copy = std::env::temp_dir().join(format!("hosted-mcp-listing-{}", std::process::id()));
    std::fs::create_dir_all(&copy).expect("a folder for the copy");
    std::fs::write(
        copy.join("mine.feature"),
        "Feature: mine\n\n  @TC-MINE-001\n  Scenario: my scenario\n    Given the OpenAPI document \"x\"\n",
    )
    .expect("a feature file");
    let copy_text = copy.to_string_lossy().into_owned();
    let mine = listing(&["--features", &copy_text, "--tags", "@TC-MINE-001"]);
    assert_eq!(mine["rules"][0]["id"], "TC-MINE-001", "{mine}");
    assert_eq!(mine["scenarios"][0]["line"], 4, "{mine}");
    let _ = std::fs::remove_dir_all(&copy);
}

#[test]
fn list_tags_narrows_to_what_a_run_would_judge() {
    let json = listing(&["--tags", "@TC-NAME-007"]);
    let rules: Vec<&str> = json["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(rules, ["TC-NAME-007"]);
    let scenarios = json["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios.len(), 9, "{json}");
    assert!(scenarios
        .iter()
        .all(|s| s["file"] == "features/names.feature" && s["tags"][0] == "@TC-NAME-007"));

    let everything = listing(&[]);
    let not_recommended = listing(&["--tags", "not @recommended"]);
    let count = |v: &Value, key: &str| v[key].as_array().map_or(0, Vec::len);
    assert!(count(&not_recommended, "scenarios") < count(&everything, "scenarios"));
    assert!(not_recommended["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .all(|r| r["level"] == "required"));
}

#[test]
fn show_prints_a_rule_and_its_scenarios_text_as_written() {
    let output = harness(&["show", "TC-NAME-007"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("TC-NAME-007  required  (Tools and their names)\nCharacter rule:"));
    assert!(
        text.contains("Source: tool-calls: Tools and their names"),
        "{text}"
    );
    // The outline once, whole, at the line of its keyword.
    assert!(
        text.contains(&format!(
            "# features/names.feature:{}\n  @TC-NAME-007\n  {CHARACTER_OUTLINE}: <case>\n",
            names_line(CHARACTER_OUTLINE)
        )),
        "{text}"
    );
    assert!(
        text.contains("| allowed punctuation stays    | v1.pets_list-all   | v1.pets_list-all   |"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "# features/names.feature:{}\n",
            names_line(EXTENSION_NAMES)
        )),
        "{text}"
    );
    // Nothing of the next rule's scenario.
    assert!(!text.contains("@TC-NAME-008"), "{text}");

    // A background is shown with the scenarios it runs before.
    let checking = stdout(&harness(&["show", "@tc-check-001"]));
    assert!(checking.contains("Background:"), "{checking}");
}

#[test]
fn show_of_an_unknown_rule_is_a_usage_error_naming_the_nearest() {
    let output = harness(&["show", "TC-NAME-07"]);
    assert_eq!(output.status.code(), Some(USAGE));
    assert!(
        stderr(&output).contains(
            "no rule TC-NAME-07 in the catalogue or the scenarios; did you mean TC-NAME-007?"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_tag_no_scenario_carries_refuses_the_run_at_once() {
    let started = Instant::now();
    // A gateway that could never start: the run must not get that far.
    let output = harness(&[
        "--gateway",
        "false {openapi} {base_url} {port}",
        "--tags",
        "@TC-NAME-07 or @http",
    ]);
    assert_eq!(output.status.code(), Some(USAGE), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("no scenario carries @TC-NAME-07; did you mean @TC-NAME-007?"),
        "{}",
        stderr(&output)
    );
    assert!(started.elapsed() < Duration::from_secs(10));

    let list = harness(&["list", "--tags", "@recomended"]);
    assert_eq!(list.status.code(), Some(USAGE));
    assert!(
        stderr(&list).contains("did you mean @recommended?"),
        "{}",
        stderr(&list)
    );
}

#[test]
fn a_tag_expression_matching_nothing_refuses_the_run() {
    let output = harness(&[
        "--gateway",
        "false {openapi} {base_url} {port}",
        "--tags",
        "@TC-NAME-007 and @TC-NAME-001",
    ]);
    assert_eq!(output.status.code(), Some(USAGE), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("--tags '@TC-NAME-007 and @TC-NAME-001': no scenario matches it"),
        "{}",
        stderr(&output)
    );
}

/// `--features` may name one file; `--tags` is checked against that file.
#[test]
fn tags_are_checked_against_a_single_feature_file() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../features/hints.feature");
    let list = listing(&["--features", file, "--tags", "@TC-HINT-001"]);
    assert!(list.to_string().contains("TC-HINT-001"), "{list}");
    assert!(!list.to_string().contains("TC-NAME-001"), "{list}");

    let output = harness(&[
        "--gateway",
        "false {openapi} {base_url} {port}",
        "--features",
        file,
        "--tags",
        "@TC-NAME-001",
    ]);
    assert_eq!(output.status.code(), Some(USAGE), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("no scenario carries @TC-NAME-001"),
        "{}",
        stderr(&output)
    );
}
