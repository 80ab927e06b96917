//! The suite against this workspace's reference gateway, as CI runs it: the
//! reference must pass every rule, recommended ones included (`--strict`),
//! over HTTP and over stdio.
//!
//! Three variables narrow a run, for mutation testing (see docs/mutation.md):
//! `CONFORMANCE_TRANSPORTS=http` (or `stdio`) checks one transport only,
//! `CONFORMANCE_TAGS='not @slow'` passes a tag expression to the harness, and
//! `CONFORMANCE_MAX_FAILURES=1` passes `--max-failures`, so a broken gateway
//! is known at its first failure, and one that hangs at start-up does not
//! wait out every scenario's start-up window.
//!
//! `cargo test` builds `hosted-mcp-gateway` into the same target directory
//! first, so the harness finds it beside its own executable.
//!
//! The two suites run at the same time, as two CI jobs on one machine would:
//! a scenario's ports are its own for as long as it runs (the gateway's is
//! reserved, the upstream's held), so scenarios cannot hear each other.
//!
//! Run as the README says (no `--gateway`), the harness serves the
//! reference over HTTP letting in only its own client, by tokens of its
//! own authorization server (MCP authorization), so nothing is left not
//! run: the scenarios of what a gateway does with its clients' credential
//! and those of MCP authorization must have run and passed. Two more runs
//! serve the reference with agent keys, the key shown as a bearer token and
//! in a header of its own (`X-Agent-Key`), and check that the client
//! credential's rules and TC-REQ-009 ran and passed (`CONFORMANCE_TAGS`
//! narrows these runs too).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::Command,
};

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

/// The rules whose scenarios need a credential of the gateway's own
/// clients to show (tagged `@client-auth`): not run without `--client-auth`.
const CLIENT_AUTH_RULES: &[&str] = &["TC-PROTO-010", "TC-REQ-021"];

/// The rules of MCP authorization (tagged `@oauth`), and the client
/// credential's: judged when the reference lets in tokens of the harness's
/// authorization server, as in a run without `--gateway`.
const OAUTH_RULES: &[&str] = &[
    "TC-PROTO-010",
    "TC-REQ-021",
    "TC-AUTH-001",
    "TC-AUTH-002",
    "TC-AUTH-003",
    "TC-AUTH-004",
    "TC-AUTH-005",
    "TC-AUTH-006",
    "TC-AUTH-007",
    "TC-AUTH-008",
];

/// The tag expression of a run narrowed to `ours`, and to
/// `CONFORMANCE_TAGS` when set; `None` for the whole suite.
fn narrowed(ours: Option<&str>) -> Option<String> {
    match (ours, std::env::var("CONFORMANCE_TAGS").ok()) {
        (Some(ours), Some(theirs)) => Some(format!("({ours}) and ({theirs})")),
        (ours, theirs) => ours.map(str::to_owned).or(theirs),
    }
}

/// Whether `tags` selects no scenario of the suite (a `CONFORMANCE_TAGS`
/// that leaves out every scenario of a narrowed run), as `list` says.
fn selects_nothing(tags: &str) -> bool {
    !Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(["list", "--scenarios", "--tags", tags])
        .output()
        .expect("run the harness's list")
        .status
        .success()
}

/// Runs the harness with `args`, narrowed to `tags`, checks the run and
/// both reports, and returns the JSON report.
fn run_suite(name: &str, args: &[&str], tags: Option<String>, judged: &[&str]) -> Value {
    let dir = report_dir(name);
    let (junit, json) = (dir.join("junit.xml"), dir.join("rules.json"));
    let output = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .args(args)
        .args(
            tags.map(|tags| vec!["--tags".to_string(), tags])
                .unwrap_or_default(),
        )
        .args(
            std::env::var("CONFORMANCE_MAX_FAILURES")
                .map(|max| vec!["--max-failures".to_string(), max])
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

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("read the JSON report"))
            .expect("the JSON report parses");
    let passed = report["counts"]["passed"].as_u64().unwrap_or(0);
    assert!(passed >= 1, "no scenario passed: {report}");
    // `N passed, 0 failed`, and nothing not run.
    let last = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!("{passed} passed, 0 failed"),
        "the run's last line"
    );

    let rules = report["rules"].as_array().expect("rules list");
    let failed: Vec<&Value> = rules
        .iter()
        .filter(|rule| rule["status"] != "passed")
        .map(|rule| &rule["id"])
        .collect();
    assert!(failed.is_empty(), "rules failed: {failed:?}");
    for scenario in report["scenarios"].as_array().expect("scenarios list") {
        assert!(
            scenario["status"] != "not_run",
            "a scenario was not run: {scenario}"
        );
    }
    for id in judged {
        let rule = rules.iter().find(|rule| rule["id"] == *id);
        let scenarios = rule
            .and_then(|rule| rule["scenarios"].as_array())
            .map_or(0, Vec::len);
        assert!(
            scenarios > 0 && rule.is_some_and(|rule| rule["status"] == "passed"),
            "{id} did not run and pass: {rule:?}"
        );
    }

    let xml = std::fs::read_to_string(&junit).expect("read the JUnit report");
    assert!(
        xml.contains("<testsuites") && xml.contains("<testcase "),
        "{xml}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    report
}

/// The codes of the error catalogue and the rules `docs/errors.md` says
/// produce each (`—` for none).
fn written_links() -> BTreeMap<String, BTreeSet<String>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/errors.md");
    let text = std::fs::read_to_string(&path).expect("read docs/errors.md");
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let ["", code, _, rules, ""] = cells.as_slice() else {
                return None;
            };
            let code = code.strip_prefix("[`")?.split_once('`')?.0;
            let rules = rules
                .split(',')
                .map(str::trim)
                .filter(|rule| rule.starts_with("TC-"))
                .map(str::to_owned)
                .collect();
            Some((code.to_owned(), rules))
        })
        .collect()
}

/// The rules of the passing scenarios whose answers carried each code.
fn observed_links(report: &Value) -> BTreeMap<String, BTreeSet<String>> {
    scenarios_by_code(report)
        .into_iter()
        .map(|(code, rules)| (code, rules.into_keys().collect()))
        .collect()
}

/// The error docs link each code to the rules whose scenarios really
/// produce it against the reference: a link written by hand that no
/// scenario bears out, or a scenario that produces a code its page does not
/// name, fails here.
fn check_error_links(report: &Value) {
    let written = written_links();
    assert!(written.len() >= 10, "docs/errors.md lists only {written:?}");
    let mut observed = observed_links(report);
    let mut wrong = Vec::new();
    for (code, rules) in &written {
        let seen = observed.remove(code).unwrap_or_default();
        if &seen != rules {
            wrong.push(format!(
                "{code}: docs/errors.md names {rules:?}, the scenarios produced it for {seen:?}"
            ));
        }
    }
    for (code, rules) in observed {
        wrong.push(format!(
            "{code}: produced for {rules:?}, but not in docs/errors.md"
        ));
    }
    assert!(
        wrong.is_empty(),
        "the error catalogue's links differ from what the suite saw (set the rules of each \
         code in reference/src/errors.rs, then regenerate docs/errors.md):\n{}",
        wrong.join("\n")
    );
}

/// Each code's scenarios, by rule: the passing scenarios whose answers
/// carried it, as (feature file, line, name), in file order.
type ScenariosByCode = BTreeMap<String, BTreeMap<String, BTreeSet<(String, u64, String)>>>;

fn scenarios_by_code(report: &Value) -> ScenariosByCode {
    let mut by_code = ScenariosByCode::new();
    let scenarios = report["scenarios"].as_array().expect("scenarios list");
    for scenario in scenarios.iter().filter(|s| s["status"] == "passed") {
        let list = |key: &str| -> Vec<String> {
            scenario[key]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        };
        let file = scenario["file"]
            .as_str()
            .expect("a scenario's file")
            .to_owned();
        let line = scenario["line"].as_u64().expect("a scenario's line");
        let name = scenario["name"]
            .as_str()
            .expect("a scenario's name")
            .to_owned();
        for code in list("codes") {
            for rule in list("rules") {
                by_code
                    .entry(code.clone())
                    .or_default()
                    .entry(rule)
                    .or_default()
                    .insert((file.clone(), line, name.clone()));
            }
        }
    }
    by_code
}

/// How many scenarios of a rule a code's section shows before the rest
/// fold away.
const SHOWN_PER_RULE: usize = 5;

/// `docs/scenarios.md`: for each code, the scenarios that produced it in a
/// run against the reference, grouped by rule, a few shown and the rest one
/// click away.
fn scenarios_page(by_code: &ScenariosByCode) -> String {
    let mut page = String::from(
        "# Scenarios by error code\n\n\
         <!-- Generated by harness/tests/conformance.rs from a run of the suite against the \
         reference gateway. Do not edit: run `UPDATE_ERROR_DOCS=1 cargo test -p \
         hosted-mcp-conformance --test conformance reference_passes_over_http` to regenerate. -->\n\n\
         Each code of [the error docs](errors.md), with the scenarios whose answers carried it \
         when the suite ran against the reference gateway, grouped by the rule they judge. \
         Every link was observed: the conformance test fails when a run no longer produces \
         what this page shows.\n",
    );
    for (code, rules) in by_code {
        page.push_str(&format!("\n## {code}\n"));
        for (rule, scenarios) in rules {
            let count = scenarios.len();
            page.push_str(&format!(
                "\n[{rule}](rules.md#{rule}), {count} scenario{}:\n\n",
                if count == 1 { "" } else { "s" }
            ));
            let link = |(file, line, name): &(String, u64, String)| {
                format!("- [{name}](../{file}#L{line}) ({file}:{line})\n")
            };
            for scenario in scenarios.iter().take(SHOWN_PER_RULE) {
                page.push_str(&link(scenario));
            }
            if count > SHOWN_PER_RULE {
                page.push_str(&format!(
                    "\n<details><summary>the other {}</summary>\n\n",
                    count - SHOWN_PER_RULE
                ));
                for scenario in scenarios.iter().skip(SHOWN_PER_RULE) {
                    page.push_str(&link(scenario));
                }
                page.push_str("\n</details>\n");
            }
        }
    }
    // The other way round: from each rule to the codes its scenarios produced.
    let mut by_rule: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (code, rules) in by_code {
        for rule in rules.keys() {
            by_rule.entry(rule).or_default().insert(code);
        }
    }
    page.push_str("\n## Codes by rule\n\n| Rule | Codes its scenarios produced |\n|---|---|\n");
    for (rule, codes) in by_rule {
        let codes: Vec<String> = codes
            .iter()
            .map(|code| format!("[{code}](#{})", code.to_ascii_lowercase()))
            .collect();
        page.push_str(&format!(
            "| [{rule}](rules.md#{rule}) | {} |\n",
            codes.join(", ")
        ));
    }
    page
}

/// `docs/scenarios.md` is what this run produced; `UPDATE_ERROR_DOCS=1`
/// rewrites it.
fn check_scenarios_page(report: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/scenarios.md");
    let by_code = scenarios_by_code(report);
    assert!(
        by_code.len() >= 10,
        "only {} codes were produced",
        by_code.len()
    );
    let generated = scenarios_page(&by_code);
    if std::env::var_os("UPDATE_ERROR_DOCS").is_some_and(|value| value == "1") {
        std::fs::write(&path, &generated).expect("docs/scenarios.md is writable");
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "docs/scenarios.md differs from what the scenarios produced against the reference; \
         regenerate it with `UPDATE_ERROR_DOCS=1 cargo test -p hosted-mcp-conformance --test \
         conformance reference_passes_over_http`"
    );
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
        let report = run_suite(
            "http",
            &["--transport", "http"],
            narrowed(None),
            judged_unless_narrowed(),
        );
        // Scenarios of either transport run here (their tags choose), so
        // this run sees every code; a narrowed run sees only some.
        if std::env::var_os("CONFORMANCE_TAGS").is_none() {
            check_error_links(&report);
            check_scenarios_page(&report);
        }
        assert_no_token_shown(&report);
    }
}

#[test]
fn reference_passes_over_stdio() {
    if wanted("stdio") {
        let report = run_suite(
            "stdio",
            &["--transport", "stdio"],
            narrowed(None),
            judged_unless_narrowed(),
        );
        assert_no_token_shown(&report);
    }
}

/// The rules a run without `--gateway` must judge: those of MCP
/// authorization and the client credential's, unless `CONFORMANCE_TAGS`
/// narrows the run.
fn judged_unless_narrowed() -> &'static [&'static str] {
    if std::env::var_os("CONFORMANCE_TAGS").is_some() {
        &[]
    } else {
        OAUTH_RULES
    }
}

/// No report shows a token of the harness's authorization server: each is
/// a JWT whose header starts `{"alg":`, `eyJhbGci` in base64url.
fn assert_no_token_shown(report: &Value) {
    assert!(
        !report.to_string().contains("eyJhbGci"),
        "a report shows a token of the harness's authorization server"
    );
}

/// The client credential's rules, and TC-REQ-009 (the agent's own headers,
/// which that credential is one of), in a run with `--client-auth`.
const CLIENT_AUTH_TAGS: &str = "@TC-REQ-021 or @TC-PROTO-010 or @TC-REQ-009";

/// The `--gateway` template of the reference letting in only the agent
/// whose key is the run's client credential: each launch makes its keys
/// file beside the document, with `agent-key --stdin` reading
/// `HOSTED_MCP_CLIENT_CREDENTIAL`, and serves with `--agent-keys`; the key
/// shown in `header`, else as a bearer token.
fn reference_with_agent_keys(header: Option<&str>) -> String {
    let harness = Path::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"));
    let gateway = hosted_mcp_conformance::reference::binary_for(harness)
        .expect("the reference gateway, built beside the harness");
    let gateway = gateway.to_string_lossy().replace('\'', r"'\''");
    let header = header
        .map(|name| format!(" --agent-key-header {name}"))
        .unwrap_or_default();
    format!(
        "sh -c 'keys=\"$(dirname \"$0\")/agent-keys\" && \
         printf \"%s\\n\" \"$HOSTED_MCP_CLIENT_CREDENTIAL\" | \"$3\" agent-key --stdin --label conformance 2>\"$keys\" >/dev/null && \
         exec \"$3\" serve --openapi \"$0\" --base-url \"$1\" --listen \"127.0.0.1:$2\" --agent-keys \"$keys\"{header}' \
         {{openapi}} {{base_url}} {{port}} '{gateway}'"
    )
}

/// The tags of a run with `--client-auth`, unless `CONFORMANCE_TAGS` leaves
/// none of its scenarios (then the run is left out, and says so).
fn client_auth_tags() -> Option<String> {
    let tags = narrowed(Some(CLIENT_AUTH_TAGS))?;
    if selects_nothing(&tags) {
        eprintln!("CONFORMANCE_TAGS leaves none of {CLIENT_AUTH_TAGS}: the run with agent keys is left out");
        return None;
    }
    Some(tags)
}

#[test]
fn reference_with_agent_keys_passes_with_a_bearer_client_credential() {
    if let Some(tags) = client_auth_tags().filter(|_| wanted("http")) {
        let gateway = reference_with_agent_keys(None);
        let report = run_suite(
            "agent-keys-bearer",
            &["--gateway", &gateway, "--client-auth", "bearer"],
            Some(tags),
            CLIENT_AUTH_RULES,
        );
        assert!(
            !report.to_string().contains("AGENT-CLIENT-"),
            "a report shows the client credential"
        );
    }
}

#[test]
fn reference_with_agent_keys_passes_with_the_client_credential_in_a_header() {
    if let Some(tags) = client_auth_tags().filter(|_| wanted("http")) {
        let gateway = reference_with_agent_keys(Some("X-Agent-Key"));
        let report = run_suite(
            "agent-keys-header",
            &["--gateway", &gateway, "--client-auth", "header:X-Agent-Key"],
            Some(tags),
            CLIENT_AUTH_RULES,
        );
        assert!(
            !report.to_string().contains("AGENT-CLIENT-"),
            "a report shows the client credential"
        );
    }
}
