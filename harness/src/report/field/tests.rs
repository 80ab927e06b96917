//! The field's pages, made from reports built here.

use super::gateway_page::{gist, GLANCE_CHARS};
use super::judged::CLIENT_RULE;
use super::*;
use crate::catalogue::{Catalogue, Level};
use crate::report::markdown::anchor;
use crate::report::summary::{ScenarioReport, Status};
use crate::report::tests::{scenario, summary};
use crate::report::{ExpectedEntry, Failure};

fn run(name: &str, scenarios: Vec<ScenarioReport>) -> (String, Summary) {
    let mut run = summary(scenarios);
    run.gateway_name = Some(name.into());
    run.gateway
        .insert("http".into(), "/repo/gw --port {port}".into());
    (format!("{name}.json"), run)
}

fn failed_with_evidence() -> ScenarioReport {
    let mut failed = scenario("TC-NAME-001", Level::Required, Status::Expected);
    failed.expected = Some("names tools | its own way".into());
    failed.failure = Some(Failure {
        summary: "expected the tools [\"a\"]".into(),
        message: "expected [\"a\"], got [\"b\"] from /repo/gw".into(),
        upstream: vec!["GET /pets\n~~~ odd".into()],
        ..Failure::default()
    });
    failed
}

#[test]
fn the_table_counts_rules_by_outcome_and_links_each_gateway() {
    let runs = vec![
        run(
            "Good 1.0",
            vec![scenario("TC-NAME-001", Level::Required, Status::Passed)],
        ),
        run("@scope/bad-gw 0.7.0", vec![failed_with_evidence()]),
    ];
    let pages = pages_of(&runs);
    let files: Vec<&str> = pages.iter().map(|p| p.file.as_str()).collect();
    assert_eq!(
        files,
        ["field.md", "field-good.md", "field-scope-bad-gw.md"]
    );
    let table = &pages[0].text;
    let of = required_rules();
    assert!(
        table.contains(&format!(
            "| [Good 1.0](field-good.md) | Streamable HTTP | – | 1/{of} –{} |",
            of - 1
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "| [@scope/bad-gw 0.7.0](field-scope-bad-gw.md) | Streamable HTTP | – | 0/{of} ✗1 –{} |",
            of - 1
        )),
        "{table}"
    );
    assert!(table.contains(&format!(
        "{REVISION_MARK}{} -->",
        runs[0].1.kit.rules_revision
    )));
    assert!(table.contains("| Tools and their names | 1/"), "{table}");
}

#[test]
fn the_reference_comes_first_then_the_most_required_rules_passed() {
    let passed = |rules: &[&str]| -> Vec<ScenarioReport> {
        rules
            .iter()
            .map(|id| scenario(id, Level::Required, Status::Passed))
            .collect()
    };
    let runs = vec![
        run("Few 1.0", passed(&["TC-NAME-001"])),
        run("Many 2.0", passed(&["TC-NAME-001", "TC-NAME-005"])),
        run("hosted-mcp-gateway 0.1.0", Vec::new()),
    ];
    let table = &pages_of(&runs)[0].text;
    let at = |name: &str| table.find(&format!("| [{name}]")).expect(name);
    assert!(at("hosted-mcp-gateway 0.1.0") < at("Many 2.0"), "{table}");
    assert!(at("Many 2.0") < at("Few 1.0"), "{table}");
}

#[test]
fn a_rule_passed_wherever_it_ran_is_passed_in_part_not_not_run() {
    let mut elsewhere = scenario("TC-NAME-001", Level::Required, Status::NotRun);
    elsewhere.name = "the credential in a query parameter".into();
    let runs = vec![run(
        "Bearer-only 1.0",
        vec![
            scenario("TC-NAME-001", Level::Required, Status::Passed),
            elsewhere,
        ],
    )];
    let pages = pages_of(&runs);
    let of = required_rules();
    assert!(
        pages[0]
            .text
            .contains(&format!("| Streamable HTTP | – | 0/{of} ~1 –{} |", of - 1)),
        "{}",
        pages[0].text
    );
    assert!(
        pages[1].text.contains(&format!(
            "| Required | 0 of {of} | 1 | 0 | 0 | {} |",
            of - 1
        )),
        "{}",
        pages[1].text
    );
    // Not run wherever it ran: no scenario passed.
    let none = run(
        "None 1.0",
        vec![scenario("TC-NAME-001", Level::Required, Status::NotRun)],
    );
    let table = &pages_of(&[none])[0].text;
    assert!(table.contains(&format!("| 0/{of} –{of} |")), "{table}");
}

#[test]
fn the_table_and_pages_say_which_gateways_were_shown_a_client_credential() {
    let shown = scenario(CLIENT_RULE, Level::Recommended, Status::Passed);
    let unshown = scenario(CLIENT_RULE, Level::Recommended, Status::NotRun);
    let runs = vec![
        run("Checks 1.0", vec![shown]),
        run("Open 1.0", vec![unshown]),
    ];
    let pages = pages_of(&runs);
    let table = &pages[0].text;
    assert!(
        table.contains("| [Checks 1.0](field-checks.md) | Streamable HTTP | checked |"),
        "{table}"
    );
    assert!(
        table.contains("| [Open 1.0](field-open.md) | Streamable HTTP | – |"),
        "{table}"
    );
    assert!(pages[1]
        .text
        .contains("- Its own clients: shown the harness's client credential"));
    assert!(pages[1].text.contains("(TC-AUTH) are not run"));
    assert!(pages[2]
        .text
        .contains("- Its own clients: not shown a client credential"));
}

#[test]
fn a_page_says_a_gateway_was_judged_as_a_resource_server_and_names_its_placeholders() {
    let (file, mut resource) = run(
        "Resource 1.0",
        vec![
            scenario(CLIENT_RULE, Level::Recommended, Status::Passed),
            scenario("TC-AUTH-001", Level::Required, Status::Passed),
        ],
    );
    resource.gateway.insert(
        "http".into(),
        "/repo/gw --issuer {issuer} --resource {resource} --spec {openapi} --port {port}".into(),
    );
    let pages = pages_of(&[(file, resource)]);
    let page = &pages[1].text;
    assert!(
        page.contains(
            "How it was run (`{openapi}`, `{port}`, `{issuer}` and `{resource}` are filled in \
             per scenario):"
        ),
        "{page}"
    );
    assert!(
        page.contains(
            "- Its own clients: given the harness's authorization server (`--client-auth oauth`)"
        ),
        "{page}"
    );
    // The same gateway, its authorization rules not run: shown a credential only.
    let (file, mut credential) = run(
        "Key 1.0",
        vec![
            scenario(CLIENT_RULE, Level::Recommended, Status::Passed),
            scenario("TC-AUTH-001", Level::Required, Status::NotRun),
        ],
    );
    credential
        .gateway
        .insert("stdio".into(), "/repo/gw --stdio".into());
    let page = &pages_of(&[(file, credential)])[1].text;
    assert!(
        page.contains("How it was run (`{port}` is filled in per scenario):"),
        "{page}"
    );
    assert!(
        page.contains("- Its own clients: shown the harness's client credential"),
        "{page}"
    );
}

fn pages_of(runs: &[(String, Summary)]) -> Vec<Page> {
    pages(runs, "/repo/").expect("pages")
}

/// How many rules the catalogue requires.
fn required_rules() -> usize {
    Catalogue::embedded()
        .rules
        .iter()
        .filter(|r| r.level == Level::Required)
        .count()
}

#[test]
fn a_gateway_page_shows_each_failure_with_its_reason_and_evidence() {
    let mut not_judged = scenario("TC-ARG-001", Level::Required, Status::NotJudged);
    not_judged.failure = Some(Failure {
        summary: "no tool for listPets".into(),
        ..Failure::default()
    });
    let runs = vec![run("Bad 2.0", vec![failed_with_evidence(), not_judged])];
    let pages = pages_of(&runs);
    let page = &pages[1].text;
    assert!(page.contains("#### TC-NAME-001"), "{page}");
    assert!(
        page.contains("[TC-NAME-001](rules.md#TC-NAME-001) (required)"),
        "{page}"
    );
    assert!(
        page.contains("In its baseline: names tools \\| its own way"),
        "{page}"
    );
    assert!(
        page.contains("[checks TC-NAME-001](../features/names.feature#L3) (http)"),
        "{page}"
    );
    // The evidence keeps a line of tildes inside its fence, and no machine path.
    assert!(
        page.contains("  ~~~~text\n  GET /pets\n  ~~~ odd\n  ~~~~\n"),
        "{page}"
    );
    assert!(
        page.contains("from gw") && !page.contains("/repo/"),
        "{page}"
    );
    assert!(
        page.contains("- Streamable HTTP: `gw --port {port}`"),
        "{page}"
    );
    assert!(page.contains("## Not judged"), "{page}");
    assert!(
        page.contains("- no tool for listPets (1): [checks TC-ARG-001]"),
        "{page}"
    );
}

/// A scenario of `rule` that failed (`status`) with `summary`, listed
/// in the baseline with `reason` when given.
fn failing(rule: &str, status: Status, summary: &str, reason: Option<&str>) -> ScenarioReport {
    let mut failed = scenario(rule, Level::Required, status);
    failed.name = format!("{summary} ({rule})");
    failed.expected = reason.map(str::to_owned);
    failed.failure = Some(Failure {
        summary: summary.into(),
        ..Failure::default()
    });
    failed
}

fn baseline(key: &str, reason: &str) -> ExpectedEntry {
    ExpectedEntry {
        key: key.into(),
        reason: reason.into(),
        place: "expected-failures.txt:1".into(),
    }
}

/// The lines of the page's "At a glance", in order.
fn glance_lines(page: &str) -> Vec<&str> {
    let Some((_, after)) = page.split_once("## At a glance\n") else {
        return Vec::new();
    };
    let list = after.split("\nHow it was run").next().unwrap_or("");
    list.lines().filter(|line| line.starts_with("- ")).collect()
}

#[test]
fn the_glance_gives_each_broken_rule_a_line_that_links_to_its_section() {
    let reason = "names tools | its own way";
    let named = failing(
        "TC-NAME-001",
        Status::Expected,
        "expected [\"a\"]",
        Some(reason),
    );
    let argued = failing(
        "TC-ARG-001",
        Status::Failed,
        "tool \"findPets\" offers [\"session\"] at /repo/doc.yaml",
        None,
    );
    let passed = scenario("TC-DESC-001", Level::Required, Status::Passed);
    let mut bad = run("Bad 2.0", vec![argued, named, passed]);
    bad.1
        .expected_failures
        .push(baseline("TC-NAME-001", reason));
    let runs = vec![
        bad,
        run(
            "Good 1.0",
            vec![scenario("TC-NAME-001", Level::Required, Status::Passed)],
        ),
    ];
    let pages = pages_of(&runs);
    let page = &pages[1].text;
    // In catalogue order, the reason for the listed rule, the summary
    // (rootless) for the other, each linked to its heading's id.
    assert_eq!(
        glance_lines(page),
        [
            "- [TC-NAME-001](#tc-name-001): names tools \\| its own way",
            "- [TC-ARG-001](#tc-arg-001): tool \"findPets\" offers \\[\"session\"\\] at doc.yaml",
        ],
        "{page}"
    );
    assert!(page.contains("\n#### TC-NAME-001\n"), "{page}");
    assert_eq!(anchor("TC-NAME-001"), "tc-name-001");
    assert_eq!(anchor(" A heading, with: words "), "a-heading-with-words");
    // Right under the counts, above how the gateway was run.
    let glance = page.find("## At a glance").expect("a glance");
    assert!(page.find("| Recommended |").unwrap() < glance, "{page}");
    assert!(glance < page.find("How it was run").unwrap(), "{page}");
    // A gateway that breaks nothing has no list.
    assert!(!pages[2].text.contains("At a glance"), "{}", pages[2].text);
}

#[test]
fn a_rule_broken_only_by_launches_that_failed_says_so_at_a_glance() {
    let not_started = "the gateway did not start: it exited during start-up (exit status: 1)";
    let no_port = "the gateway did not start: it did not accept TCP connections on 127.0.0.1:4000 within 10.0 s of its launch";
    let reason = "a failed check shows the value refused";
    let shows = [
        failing("TC-CHECK-014", Status::Expected, not_started, Some(reason)),
        failing("TC-CHECK-014", Status::Expected, no_port, Some(reason)),
    ];
    // A launch that failed beside a failure the rule judged: the
    // rule's behaviour was seen, so the reason stands.
    let sends = [
        failing("TC-CHECK-015", Status::Failed, not_started, None),
        failing(
            "TC-CHECK-015",
            Status::Failed,
            "expected nothing upstream",
            None,
        ),
    ];
    // An error for another cause counts as a failure seen otherwise.
    let stepped = [
        failing("TC-CHECK-016", Status::Failed, not_started, None),
        failing(
            "TC-CHECK-016",
            Status::Error,
            "the step has no definition",
            None,
        ),
    ];
    let mut gateway = run(
        "Crashy 1.0",
        shows.into_iter().chain(sends).chain(stepped).collect(),
    );
    gateway
        .1
        .expected_failures
        .push(baseline("TC-CHECK-014", reason));
    let pages = pages_of(&[gateway]);
    assert_eq!(
        glance_lines(&pages[1].text),
        [
            "- [TC-CHECK-014](#tc-check-014): fails only because its documents stop the gateway at start-up: it exited during start-up (exit status: 1)",
            "- [TC-CHECK-015](#tc-check-015): the gateway did not start: it exited during start-up (exit status: 1)",
            "- [TC-CHECK-016](#tc-check-016): the gateway did not start: it exited during start-up (exit status: 1)",
        ],
        "{}",
        pages[1].text
    );
}

#[test]
fn a_long_reason_is_cut_at_a_sentence_or_clause_boundary() {
    assert_eq!(gist("a short\n  reason"), "a short reason");

    let first = "a redirect is neither followed nor an error: the 30x comes back as a success holding its status alone ({\"status\": 302}); ";
    let long = format!("{first}its target receives nothing, and nothing in the answer names the Location it was sent to");
    assert_eq!(gist(&long), format!("{}…", first.trim_end_matches("; ")));

    // A clause boundary when no sentence ends late enough; none inside
    // brackets or quotes (";" and "," there), whose other half is lost.
    let clauses = "it starts and serves every tool of the document (a reference to nothing is logged; the tool \
                   loses that parameter, and the next one) while \"a, b; c\" stays, and the rest goes on for long enough to be cut";
    assert_eq!(
        gist(clauses),
        "it starts and serves every tool of the document (a reference to nothing is logged; the tool loses that \
         parameter, and the next one) while \"a, b; c\" stays…"
    );

    // With none outside brackets late enough, it ends before them.
    let bracketed = format!(
        "{} (and a parenthesis that holds the rest of it, which goes on for long enough)",
        "word ".repeat(18).trim_end()
    );
    assert_eq!(
        gist(&bracketed),
        format!("{}…", "word ".repeat(18).trim_end())
    );

    // With no boundary at all, it ends at a word's end.
    let words = "word ".repeat(60);
    let cut = gist(&words);
    let kept = cut.strip_suffix('…').expect("an ellipsis");
    assert!(kept.chars().count() <= GLANCE_CHARS, "{cut}");
    assert!(
        words.starts_with(kept) && words[kept.len()..].starts_with(' '),
        "{cut}"
    );
}

#[test]
fn reports_that_cannot_share_a_table_are_refused() {
    let mut unnamed = run("X 1", vec![]);
    unnamed.1.gateway_name = None;
    let error = pages(&[unnamed], "/").unwrap_err().to_string();
    assert!(error.contains("--gateway-name"), "{error}");

    let twice = pages(&[run("X 1", vec![]), run("x 2", vec![])], "/")
        .unwrap_err()
        .to_string();
    assert!(twice.contains("both judge"), "{twice}");
}

#[test]
fn the_summary_lists_the_pages_in_place_of_the_old_ones() {
    let old = "# Summary\n\n- [Rules](rules.md)\n- [The field](field.md)\n  - [Old 1](field-old.md)\n- [Fuzzing](fuzzing.md)\n";
    let page = |file: &str, title: &str| Page {
        file: file.into(),
        title: title.into(),
        text: String::new(),
    };
    let new = listed(
        old,
        &[page("field.md", "The field"), page("field-new.md", "New 2")],
    );
    assert_eq!(
        new,
        "# Summary\n\n- [Rules](rules.md)\n- [The field](field.md)\n  - [New 2](field-new.md)\n- [Fuzzing](fuzzing.md)\n"
    );
    let fresh = listed(
        "# Summary\n\n- [Rules](rules.md)\n",
        &[page("field.md", "The field")],
    );
    assert_eq!(
        fresh,
        "# Summary\n\n- [Rules](rules.md)\n- [The field](field.md)\n"
    );
}

#[test]
fn names_become_file_names() {
    assert_eq!(
        slug("@twilio-alpha/openapi-mcp-server 0.7.0"),
        "twilio-alpha-openapi-mcp-server"
    );
    assert_eq!(slug("FastMCP 4.2.3"), "fastmcp");
    assert_eq!(slug("!!!"), "gateway");
}
