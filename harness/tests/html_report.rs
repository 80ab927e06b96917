//! The HTML report, end to end and in a real browser: a summary with a
//! scenario of every status (one failure with a hostile body, and the
//! gateway's answers carrying error codes) is written as JSON,
//! `hosted-mcp-conformance merge` turns it into a page, and headless
//! Chromium renders that page with every host name unresolvable, once to
//! dump the DOM it built and once to take a screenshot. Every link of the
//! page lands on an element of it; with `--docs-url`, the page links the
//! documentation site too.
//!
//! Needs Chromium at `/usr/bin/chromium` (or the path in `CHROMIUM`); it
//! fails, not skips, without it. `.ci/run` installs it.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
    time::Instant,
};

use crate::support::chromium::{browse, chromium};
use hosted_mcp_conformance::{
    catalogue::Catalogue,
    errors::ErrorCatalogue,
    report::{DocsUrl, ExpectedEntry, Failure, ScenarioReport, Status, Summary},
};

/// The hostile part of a body the upstream sent back, as a gateway would echo it.
const HOSTILE: &str = "<script>alert(1)</script></details><img src=\"https://evil.example/x.png\">";
/// The error codes the failure's message and answers show, in the error
/// catalogue's order; `[NOT_A_CODE]` beside them is no code.
const CODES: [&str; 2] = ["PATH_VALUE_REFUSED", "UPSTREAM_STATUS"];

fn scenario(rule: &str, line: usize, name: &str, status: Status) -> ScenarioReport {
    let entry = Catalogue::embedded().rule(rule).expect("a catalogued rule");
    ScenarioReport {
        section: entry.section.clone(),
        file: "features/answer.feature".into(),
        line,
        name: name.into(),
        rules: vec![rule.into()],
        level: entry.level,
        transport: "http".into(),
        status,
        failure: None,
        expected: None,
        observed: None,
        seconds: 0.25,
        codes: Vec::new(),
    }
}

/// A run with a scenario of every status, a stale expected failure and a problem.
fn summary() -> Summary {
    let gateway = BTreeMap::from([
        (
            "http".to_owned(),
            "node gw.js --spec {openapi} --upstream {base_url} --port {port}".to_owned(),
        ),
        (
            "stdio".to_owned(),
            "node gw.js --spec {openapi} --upstream {base_url} --stdio".to_owned(),
        ),
    ]);
    let mut s = Summary::new(gateway, false);

    let mut failed = scenario(
        "TC-ANS-008",
        40,
        "A JSON body comes back as text",
        Status::Failed,
    );
    failed.failure = Some(Failure {
        summary: "expected the result to contain \"pets\"".into(),
        step: Some("Then the result text is the body as sent".into()),
        step_line: Some(47),
        message: format!(
            "expected the result to contain \"pets\"\ngot:\n{{\"type\":\"text\",\"text\":\"{HOSTILE}\"}}\n\
             and before it: [UPSTREAM_STATUS] upstream answered 503 Service Unavailable"
        ),
        upstream: vec!["GET /pets?limit=2 HTTP/1.1\naccept: application/json\nx-api-key: [masked]".into()],
        stderr: "\u{1b}[32m INFO\u{1b}[0m listening on 127.0.0.1:4000\n\u{1b}[31mERROR\u{1b}[0m upstream answered 200 with 61 bytes\n".into(),
        launch: Some("gw serve --openapi /tmp/kept/answer.feature-47/document.yaml".into()),
        environment: Some("HOSTED_MCP_CREDENTIAL=(the stored credential, not shown) HOSTED_MCP_CREDENTIAL_IN=bearer".into()),
        calls: vec![
            format!("tools/call listPets {{}}\n→ tool result (isError: false):\n{HOSTILE}"),
            "tools/call getPet {\"petId\":\"..\"}\n→ tool result (isError: true):\n\
             [PATH_VALUE_REFUSED] path argument `petId` is `.` or `..` [NOT_A_CODE]"
                .into(),
        ],
        files: Some("/tmp/kept/answer.feature-47".into()),
        rerun: Some("hosted-mcp-conformance --gateway 'gw' --scenario features/answer.feature:47".into()),
    });

    let mut not_met = scenario(
        "TC-NAME-008",
        12,
        "Equal names get _2 and _3",
        Status::NotMet,
    );
    not_met.file = "features/names.feature".into();
    not_met.failure = Some(Failure {
        summary:
            "expected the tools [\"list\", \"list_2\"], the gateway lists [\"list\", \"list\"]"
                .into(),
        step: Some("Then the tools are, in order:".into()),
        step_line: Some(19),
        message:
            "expected the tools [\"list\", \"list_2\"], the gateway lists [\"list\", \"list\"]"
                .into(),
        ..Failure::default()
    });

    let mut expected = scenario(
        "TC-NAME-002",
        30,
        "An object x-agentify names the tool",
        Status::Expected,
    );
    expected.file = "features/names.feature".into();
    expected.expected = Some("x-agentify objects are not supported yet (issue 12)".into());
    expected.failure = Some(Failure {
        summary: "expected the tool \"listPets\", got \"get__pets\"".into(),
        step: Some("Then there is a tool \"listPets\"".into()),
        step_line: Some(36),
        message: "expected the tool \"listPets\", got \"get__pets\"".into(),
        ..Failure::default()
    });

    let mut stdio = scenario(
        "TC-PROTO-001",
        8,
        "The gateway speaks MCP over stdio",
        Status::NotRun,
    );
    stdio.file = "features/protocol.feature".into();
    stdio.transport = "stdio".into();
    stdio.failure = Some(Failure {
        summary: "the gateway has no stdio command (--stdio-gateway)".into(),
        ..Failure::default()
    });

    let mut error = scenario(
        "TC-LOAD-001",
        5,
        "A 3.0 document loads, as YAML",
        Status::Error,
    );
    error.file = "features/loading.feature".into();
    error.failure = Some(Failure {
        summary: "the gateway exited with status 101 before it accepted connections".into(),
        step: Some("When the gateway starts".into()),
        step_line: Some(9),
        message: "the gateway exited with status 101".into(),
        upstream: Vec::new(),
        stderr: "thread 'main' panicked at src/load.rs:88:14:\nunsupported YAML tag !include\n"
            .into(),
        ..Failure::default()
    });

    let mut http = scenario(
        "TC-PROTO-001",
        3,
        "The gateway speaks MCP over HTTP",
        Status::Passed,
    );
    http.file = "features/protocol.feature".into();
    let mut fixed = scenario(
        "TC-NAME-005",
        50,
        "The operationId is the name",
        Status::Passed,
    );
    fixed.file = "features/names.feature".into();

    s.scenarios = vec![
        http,
        stdio,
        error,
        scenario(
            "TC-ANS-001",
            10,
            "A text body comes back as text",
            Status::Passed,
        ),
        failed,
        not_met,
        expected,
        fixed,
    ];
    s.problems =
        vec!["a feature file could not be read: features/extra.feature:3: <unexpected>".into()];
    s.expected_failures = vec![
        ExpectedEntry {
            key: "TC-NAME-002".into(),
            reason: "x-agentify objects are not supported yet (issue 12)".into(),
            place: "known.txt:1".into(),
        },
        ExpectedEntry {
            key: "TC-NAME-005".into(),
            reason: "operationId ignored".into(),
            place: "known.txt:2".into(),
        },
    ];
    s
}

/// A fresh, empty folder for this test's files.
fn workdir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html_report");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder for the test");
    dir
}

/// Every start tag of `html`, as written (`<a href="#x">`). Text never
/// holds a raw `<` in the page, so each `<` opens markup.
fn start_tags(html: &str) -> Vec<&str> {
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        if rest[1..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            tags.push(&rest[..end]);
        }
        rest = &rest[end..];
    }
    tags
}

/// The values of `attribute` in one start tag.
fn attribute_values<'a>(tag: &'a str, attribute: &str) -> Vec<&'a str> {
    let mut values = Vec::new();
    let needle = format!(" {attribute}=");
    let mut rest = tag;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let value = match rest.chars().next() {
            Some(quote @ ('"' | '\'')) => rest[1..].split(quote).next().unwrap_or_default(),
            _ => rest
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or_default(),
        };
        values.push(value);
    }
    values
}

/// No `src`, `href` or CSS `url(` that leads off the page.
fn assert_nothing_external(html: &str, what: &str) {
    for tag in start_tags(html) {
        for attribute in ["src", "href", "action", "srcset", "poster", "data"] {
            for value in attribute_values(tag, attribute) {
                let value = value.trim().to_ascii_lowercase();
                assert!(
                    !value.starts_with("http:")
                        && !value.starts_with("https:")
                        && !value.starts_with("//"),
                    "{what}: {tag} leads off the page"
                );
            }
        }
    }
    let styles = html
        .split("<style")
        .skip(1)
        .map(|s| s.split("</style>").next().unwrap_or_default());
    for style in styles {
        for url in style.to_ascii_lowercase().split("url(").skip(1) {
            let url = url.trim_start_matches(['"', '\'', ' ']);
            assert!(
                !url.starts_with("http:") && !url.starts_with("https:") && !url.starts_with("//"),
                "{what}: CSS url({url}"
            );
        }
        assert!(!style.contains("@import"), "{what}: CSS @import");
    }
}

#[test]
fn the_html_report_renders_in_a_browser_with_no_network() {
    let started = Instant::now();
    let chromium = chromium();
    let dir = workdir();
    let summary = summary();
    let rules = summary.rules();

    // The CLI path: a JSON report merged into a page.
    let json = dir.join("report.json");
    std::fs::write(
        &json,
        serde_json::to_string_pretty(&summary.json()).unwrap(),
    )
    .unwrap();
    let page = dir.join("page.html");
    let html = merge_into_page(&json, &page, &[], summary.verdict().exit_code);
    let merged = Summary::merge(vec![("report.json".into(), summary.clone())]).unwrap();
    assert_eq!(
        html,
        merged.html(),
        "merge writes the page of the summary it read"
    );

    // Statically: nothing off the page, and the hostile body inert.
    assert_nothing_external(&html, "page.html");
    assert!(!html.contains("<script") && !html.contains("<img"));

    // What the browser built.
    let dom = browse(&dir, "dump", &page, &["--dump-dom"]);
    assert!(dom.contains("<body"), "Chromium dumped no page:\n{dom}");
    assert_nothing_external(&dom, "the rendered DOM");
    // Stricter still: the page links only within itself, to elements it
    // holds, and loads nothing.
    let ids: Vec<&str> = start_tags(&dom)
        .into_iter()
        .flat_map(|tag| attribute_values(tag, "id"))
        .collect();
    let mut links = 0;
    for tag in start_tags(&dom) {
        assert!(attribute_values(tag, "src").is_empty(), "{tag}");
        for href in attribute_values(tag, "href") {
            let target = href
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("{tag} leads off the page"));
            assert!(ids.contains(&target), "{tag}: the page has no #{target}");
            links += 1;
        }
    }
    assert!(links > rules.len(), "{links} links");
    // The failure links its rule's entry and each code its answers show to
    // the code's entry: what it means, what to do.
    let failure = dom
        .split("data-scenario=\"features/answer.feature:40\"")
        .nth(1)
        .and_then(|rest| rest.split("</details>").next())
        .expect("the failure's details");
    assert!(failure.contains("href=\"#TC-ANS-008\""), "{failure}");
    let explained: Vec<&str> = start_tags(&dom)
        .into_iter()
        .flat_map(|tag| attribute_values(tag, "data-code"))
        .collect();
    assert_eq!(explained, CODES, "the codes explained, and only they");
    for code in CODES {
        let entry = ErrorCatalogue::embedded()
            .code(code)
            .expect("a catalogued code");
        let anchor = format!("code-{}", entry.anchor());
        assert!(
            failure.contains(&format!("<a class=\"code\" href=\"#{anchor}\">{code}</a>")),
            "{code} links its entry from the failure"
        );
        let shown = dom
            .split(&format!("id=\"{anchor}\""))
            .nth(1)
            .and_then(|rest| rest.split("</article>").next())
            .expect("the code's entry");
        let meaning = entry.meaning.split('`').next().unwrap_or_default();
        assert!(shown.contains(meaning), "{code}'s meaning: {shown}");
        for (who, _) in &entry.what_to_do {
            assert!(shown.contains(&format!("<b>{who}</b>")), "{code}: {who}");
        }
        assert!(shown.contains("href=\"#TC-ANS-008\""), "{code}: {shown}");
    }
    assert!(
        failure.contains("[NOT_A_CODE]"),
        "not a code, shown as written"
    );
    assert_eq!(
        dom.matches("data-rule=\"").count(),
        rules.len(),
        "one article per rule"
    );
    for rule in &rules {
        assert!(
            dom.contains(&format!("data-rule=\"{}\"", rule.id)),
            "{}",
            rule.id
        );
    }
    let scenarios_shown: usize = rules.iter().map(|r| r.scenarios.len()).sum();
    assert_eq!(dom.matches("data-scenario=\"").count(), scenarios_shown);
    let not_passing: usize = rules
        .iter()
        .flat_map(|r| &r.scenarios)
        .filter(|s| s.status != Status::Passed)
        .count();
    assert_eq!(
        dom.matches("<details><summary>").count(),
        not_passing,
        "each scenario that did not pass expands"
    );
    for tag in ["<script", "<img", "<iframe", "<link", "<object", "<embed"] {
        assert!(!dom.contains(tag), "the DOM holds {tag}");
    }
    // The hostile body is text, inside the message's <pre>.
    let shown = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/details&gt;&lt;img src=\"https://evil.example/x.png\"&gt;";
    let at = dom
        .find(shown)
        .unwrap_or_else(|| panic!("the hostile body, as text:\n{dom}"));
    let before = &dom[..at];
    assert!(
        before.rfind("<pre class=\"message\">") > before.rfind("</pre>"),
        "the hostile body stays inside its <pre>"
    );
    // What an implementer needs to act on the failure.
    for text in [
        "expected the result to contain \"pets\"\ngot:",
        "Then the result text is the body as sent",
        "features/answer.feature:47",
        "GET /pets?limit=2 HTTP/1.1\naccept: application/json",
        "ERROR upstream answered 200 with 61 bytes",
        "unsupported YAML tag !include",
        "x-agentify objects are not supported yet (issue 12)",
        "the gateway has no stdio command (--stdio-gateway)",
        "<b>TC-NAME-005</b></a> passes now: remove it from <code>known.txt:2</code>",
        "features/extra.feature:3: &lt;unexpected&gt;",
        "node gw.js --spec {openapi} --upstream {base_url} --port {port}",
        &summary.last_line(),
        &summary.kit.rules_revision,
    ] {
        assert!(dom.contains(text), "the DOM lacks {text:?}");
    }
    for status in [
        "passed",
        "failed",
        "not met",
        "expected failure",
        "not run",
        "error",
    ] {
        assert!(
            dom.contains(&format!(">{status}</span>")),
            "status {status} in words"
        );
    }

    // With the documentation site: the same page, linking it too.
    let site = "https://docs.example/conformance";
    let linked = merge_into_page(
        &json,
        &dir.join("linked.html"),
        &["--docs-url", &format!("{site}/")],
        summary.verdict().exit_code,
    );
    let docs: DocsUrl = site.parse().unwrap();
    assert_eq!(linked, merged.html_with(Some(&docs)));
    for href in [
        format!("{site}/rules.html#TC-ANS-008"),
        format!("{site}/errors.html#path_value_refused"),
        format!("{site}/errors.html#upstream_status"),
    ] {
        assert!(linked.contains(&format!("href=\"{href}\"")), "{href}");
    }
    for (args, says) in [
        (
            &["--html", "x.html", "--docs-url", "javascript:alert(1)"][..],
            "https://",
        ),
        (&["--docs-url", site][..], "--html"),
    ] {
        let refused = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
            .arg("merge")
            .arg(&json)
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("the harness runs");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }

    // What the browser painted.
    let png = dir.join("page.png");
    let screenshot = format!("--screenshot={}", png.display());
    browse(
        &dir,
        "shot",
        &page,
        &[&screenshot, "--window-size=1280,2400", "--hide-scrollbars"],
    );
    let bytes = std::fs::read(&png).expect("Chromium wrote the screenshot");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1280, 2400), "the window's size");
    assert!(
        bytes.len() > 50_000,
        "a screenshot of {} bytes shows little",
        bytes.len()
    );

    println!(
        "{} rendered by {} in {:.1?}; screenshot {}",
        page.display(),
        chromium.display(),
        started.elapsed(),
        png.display()
    );
}

/// Runs `merge` on the JSON report `json` with `--html page` and `extra`,
/// checks its exit status (the report's verdict), and returns the page.
fn merge_into_page(json: &Path, page: &Path, extra: &[&str], exit_code: u8) -> String {
    let merge = Command::new(env!("CARGO_BIN_EXE_hosted-mcp-conformance"))
        .arg("merge")
        .arg(json)
        .arg("--html")
        .arg(page)
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .expect("the harness runs");
    // The report has failures, so merge says so in its exit status.
    assert_eq!(
        merge.status.code(),
        Some(exit_code.into()),
        "merge {extra:?}: {}",
        String::from_utf8_lossy(&merge.stderr)
    );
    std::fs::read_to_string(page).expect("merge wrote the page")
}
