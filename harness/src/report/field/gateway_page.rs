//! A gateway's page (`field-NAME.md`): how it was judged, each rule it
//! breaks at a glance, then its failures by rule with their evidence, and
//! what was not judged or not run, and why.

use std::{collections::BTreeMap, fmt::Write as _};

use super::judged::{command_label, Gateway, Outcome, Page, REVISION_MARK};
use crate::catalogue::Level;
use crate::launch::PLACEHOLDERS;
use crate::report::markdown::{self, anchor, code, fenced, inline};
use crate::report::summary::{RuleReport, ScenarioReport, Status};

/// The longest stretch of one piece of evidence a page shows; the JSON
/// report has it whole.
const EVIDENCE_CHARS: usize = 800;

/// The failing scenarios of a rule shown with their evidence; the rest are
/// listed with their summaries, and the JSON report has every one whole.
const EVIDENCED_PER_RULE: usize = 2;

/// About the longest line "At a glance" gives a rule: a reader scans the
/// list, and the rule's section below has the whole reason.
pub(super) const GLANCE_CHARS: usize = 160;

/// What a scenario's failure says when the gateway never came up to be
/// judged (the harness's wording for a launch that failed).
const START_UP_SIGNS: [&str; 4] = [
    "did not start",
    "exited during start-up",
    "did not accept TCP connections",
    "did not accept connections",
];

/// How a failure the harness words as a start-up failure begins; the
/// glance says it once, in its own words.
const NOT_STARTED: &str = "the gateway did not start: ";

/// The placeholders `templates` hold, as a page names them: "`{openapi}`,
/// `{base_url}` and `{port}` are".
fn placeholders_used<'a>(templates: impl Iterator<Item = &'a String> + Clone) -> String {
    let used: Vec<String> = PLACEHOLDERS
        .iter()
        .filter(|placeholder| {
            templates
                .clone()
                .any(|template| template.contains(*placeholder))
        })
        .map(|placeholder| format!("`{placeholder}`"))
        .collect();
    match used.as_slice() {
        [] => "nothing is".to_owned(),
        [one] => format!("{one} is"),
        [first @ .., last] => format!("{} and {last} are", first.join(", ")),
    }
}

/// One gateway's page: how it was judged, then its failures by section and
/// rule with their evidence, then what was not judged and not run.
pub(super) fn gateway_page(gateway: &Gateway<'_>, root: &str) -> Page {
    let run = gateway.run;
    let unrooted = |text: &str| text.replace(root, "");
    let required = gateway.tally(Level::Required, None);
    let recommended = gateway.tally(Level::Recommended, None);
    let mut text = format!(
        "# {name}\n\n{REVISION_MARK}{revision} -->\n\n\
         Judged on {date} by {kit} {version}, rules revision `{revision}`: {scenarios} scenarios in \
         {seconds:.0} s, {launches} launches ({reused} scenarios served by a gateway already up). \
         Back to [the field](field.md).\n\n\
         | Rules | Passed | Passed in part | Failed | Not judged | Not run |\n\
         |---|---:|---:|---:|---:|---:|\n\
         | Required | {} of {} | {} | {} | {} | {} |\n\
         | Recommended | {} of {} | {} | {} | {} | {} |\n",
        required.passed,
        required.of,
        required.passed_in_part,
        required.failed,
        required.not_judged,
        required.not_run,
        recommended.passed,
        recommended.of,
        recommended.passed_in_part,
        recommended.failed,
        recommended.not_judged,
        recommended.not_run,
        name = inline(gateway.name),
        revision = run.kit.rules_revision,
        date = gateway.date(),
        kit = run.kit.name,
        version = run.kit.version,
        scenarios = run.scenarios.len(),
        seconds = run.seconds,
        launches = run.launches,
        reused = run.reused,
    );
    text.push_str(&at_a_glance(gateway, &unrooted));
    let _ = writeln!(
        text,
        "\nHow it was run ({} filled in per scenario):\n",
        placeholders_used(run.gateway.values())
    );
    for (transport, template) in &run.gateway {
        let _ = writeln!(
            text,
            "- {}: {}",
            command_label(transport),
            code(&unrooted(template))
        );
    }

    let clients = if gateway.judged_as_a_resource_server() {
        "given the harness's authorization server (`--client-auth oauth`): it lets in only \
         the tokens that server issues for it, and TC-REQ-021, TC-PROTO-010 and the rules of \
         MCP authorization (TC-AUTH) are judged"
    } else if gateway.shown_a_client_credential() {
        "shown the harness's client credential (`--client-auth`): it lets in only that client, \
         and TC-REQ-021 and TC-PROTO-010 are judged; the rules of MCP authorization (TC-AUTH) \
         are not run"
    } else {
        "not shown a client credential (no `--client-auth`: it lets in anyone, or was run so), \
         so TC-REQ-021, TC-PROTO-010 and the rules of MCP authorization (TC-AUTH) are not run"
    };
    let _ = writeln!(text, "- Its own clients: {clients}.");
    text.push_str(
        "\n## Failures\n\nEach rule it breaks, with the reason its baseline gives, and each \
         failing scenario with what the harness saw; the first two of a rule with their evidence \
         (the tool calls with the answers, and the requests the upstream received). The run's \
         JSON report has every one whole.\n",
    );
    let mut section = "";
    let mut any = false;
    for rule in &gateway.rules {
        if gateway.outcome(rule.id) != Outcome::Failed {
            continue;
        }
        any = true;
        if rule.section() != section {
            section = rule.section();
            let _ = write!(text, "\n### {}\n", inline(section));
        }
        let level = match rule.level {
            Level::Required => "required",
            Level::Recommended => "recommended",
        };
        let _ = write!(
            text,
            "\n#### {id}\n\n[{id}](rules.md#{id}) ({level}): {}\n",
            rule.rule.map(|r| inline(&r.statement)).unwrap_or_default(),
            id = rule.id,
        );
        let failing = rule
            .scenarios
            .iter()
            .filter(|s| matches!(s.status, Status::Failed | Status::NotMet | Status::Expected));
        let mut reasons: Vec<&str> = Vec::new();
        for scenario in failing.clone() {
            if let Some(reason) = scenario.expected.as_deref() {
                if !reasons.contains(&reason) {
                    reasons.push(reason);
                }
            }
        }
        for reason in reasons {
            let _ = write!(text, "\nIn its baseline: {}\n", inline(reason));
        }
        text.push('\n');
        for (shown, scenario) in failing.enumerate() {
            scenario_entry(&mut text, scenario, shown < EVIDENCED_PER_RULE, &unrooted);
        }
    }
    if !any {
        text.push_str("\nNone.\n");
    }

    for (status, heading, why) in [
        (
            Status::NotJudged,
            "Not judged",
            "Scenarios that ran but could not see their rule, by reason.",
        ),
        (
            Status::NotRun,
            "Not run",
            "Scenarios the harness did not run on this gateway, by reason.",
        ),
    ] {
        let scenarios: Vec<&ScenarioReport> = run
            .scenarios
            .iter()
            .filter(|s| s.status == status)
            .collect();
        if scenarios.is_empty() {
            continue;
        }
        let _ = write!(text, "\n## {heading}\n\n{why}\n\n");
        let mut by_reason: BTreeMap<String, Vec<&ScenarioReport>> = BTreeMap::new();
        for scenario in scenarios {
            let reason = unrooted(scenario.summary().unwrap_or(heading));
            by_reason.entry(reason).or_default().push(scenario);
        }
        for (reason, scenarios) in by_reason {
            let links: Vec<String> = scenarios.iter().map(|s| link(s)).collect();
            let _ = writeln!(
                text,
                "- {} ({}): {}",
                inline(&reason),
                scenarios.len(),
                links.join(", ")
            );
        }
    }
    Page {
        file: gateway.file.clone(),
        title: gateway.name.to_owned(),
        text,
    }
}

/// A failing scenario: its link and summary, and, when `evidenced`, its
/// evidence folded away.
fn scenario_entry(
    text: &mut String,
    scenario: &ScenarioReport,
    evidenced: bool,
    unrooted: &dyn Fn(&str) -> String,
) {
    let summary = scenario.summary().map(unrooted).unwrap_or_default();
    let _ = writeln!(text, "- {}: {}", link(scenario), inline(&summary));
    let Some(failure) = scenario.failure.as_ref().filter(|_| evidenced) else {
        return;
    };
    let mut evidence = Vec::new();
    if !failure.message.is_empty() {
        evidence.push(("What the harness saw", unrooted(&failure.message)));
    }
    if !failure.calls.is_empty() {
        evidence.push((
            "The tool calls and answers",
            unrooted(&failure.calls.join("\n\n")),
        ));
    }
    if !failure.upstream.is_empty() {
        evidence.push((
            "What the upstream received",
            unrooted(&failure.upstream.join("\n\n")),
        ));
    }
    // The gateway's own words, when there is no exchange to show.
    if evidence.len() < 2 && !failure.stderr.is_empty() {
        evidence.push(("The end of the gateway's stderr", unrooted(&failure.stderr)));
    }
    if !scenario.codes.is_empty() {
        let codes: Vec<String> = scenario
            .codes
            .iter()
            .map(|code| format!("[`{code}`](errors.md#{})", code.to_ascii_lowercase()))
            .collect();
        let _ = writeln!(text, "  Error codes in its answers: {}.", codes.join(", "));
    }
    if evidence.is_empty() {
        return;
    }
    text.push_str("\n  <details><summary>Evidence</summary>\n\n");
    for (what, body) in evidence {
        let _ = write!(text, "  {what}:\n\n{}\n", fenced(&shortened(&body)));
    }
    text.push_str("  </details>\n\n");
}

/// "At a glance": each rule the gateway breaks on one line, linked to its
/// section below, with what the gateway does. Empty when it breaks none.
fn at_a_glance(gateway: &Gateway<'_>, unrooted: &dyn Fn(&str) -> String) -> String {
    let mut lines = String::new();
    for rule in &gateway.rules {
        if gateway.outcome(rule.id) != Outcome::Failed {
            continue;
        }
        let _ = writeln!(
            lines,
            "- [{}](#{}): {}",
            inline(rule.id),
            anchor(rule.id),
            inline(&glance(gateway, rule, unrooted))
        );
    }
    if lines.is_empty() {
        return lines;
    }
    format!(
        "\n## At a glance\n\nEach rule it breaks, on one line: what it does, from its baseline's reason \
         (else from what the rule's first failing scenario saw), or that the rule's documents stop it \
         at start-up. Each rule links to its evidence below.\n\n{lines}"
    )
}

/// What `rule`'s line at a glance says the gateway does. A rule whose every
/// failure is a launch that failed says that, not the behaviour it is
/// about: its documents never reached the point the rule judges.
fn glance(
    gateway: &Gateway<'_>,
    rule: &RuleReport<'_>,
    unrooted: &dyn Fn(&str) -> String,
) -> String {
    let failing = failing_scenarios(rule);
    if let Some(error) = start_up_only(&failing) {
        return gist(&unrooted(&format!(
            "fails only because its documents stop the gateway at start-up: {error}"
        )));
    }
    let said = baseline_reason(gateway, rule, &failing)
        .or_else(|| failing.first().and_then(|s| s.summary()))
        .unwrap_or_default();
    gist(&unrooted(said))
}

/// The scenarios of `rule` that did not pass for the gateway's sake. Errors
/// are among them: a launch that failed on a scenario no baseline lists is
/// one, and no sight of the rule either.
fn failing_scenarios<'a>(rule: &RuleReport<'a>) -> Vec<&'a ScenarioReport> {
    rule.scenarios
        .iter()
        .copied()
        .filter(|s| {
            matches!(
                s.status,
                Status::Failed | Status::NotMet | Status::Expected | Status::Error
            )
        })
        .collect()
}

/// The first start-up failure, without the words the glance puts before it,
/// when every one of `failing` is a launch that failed.
fn start_up_only<'a>(failing: &[&'a ScenarioReport]) -> Option<&'a str> {
    let first = start_up_failure(failing.first()?)?;
    if !failing.iter().all(|s| start_up_failure(s).is_some()) {
        return None;
    }
    Some(first.strip_prefix(NOT_STARTED).unwrap_or(first))
}

/// The reason the baseline gives `rule`: its own entry's, else the first
/// reason one of its failing scenarios is listed with.
fn baseline_reason<'a>(
    gateway: &Gateway<'a>,
    rule: &RuleReport<'a>,
    failing: &[&'a ScenarioReport],
) -> Option<&'a str> {
    gateway
        .run
        .expected_failures
        .iter()
        .find(|entry| entry.key == rule.id)
        .map(|entry| entry.reason.as_str())
        .or_else(|| failing.iter().find_map(|s| s.expected.as_deref()))
}

/// The failure's summary when it says the gateway never came up.
fn start_up_failure(scenario: &ScenarioReport) -> Option<&str> {
    scenario
        .summary()
        .filter(|summary| START_UP_SIGNS.iter().any(|sign| summary.contains(sign)))
}

/// `text` on one line of about [`GLANCE_CHARS`] characters at most, cut at
/// a sentence or clause boundary.
pub(super) fn gist(text: &str) -> String {
    markdown::gist(text, GLANCE_CHARS)
}

/// A scenario as a link to its line of the feature page, and its transport.
fn link(scenario: &ScenarioReport) -> String {
    let name = inline(&scenario.name);
    match scenario.file.strip_prefix("features/") {
        Some(file) if file.ends_with(".feature") && !file.contains('/') => format!(
            "[{name}](../features/{file}#L{}) ({})",
            scenario.line, scenario.transport
        ),
        _ => format!(
            "{name} ({}:{}, {})",
            scenario.file, scenario.line, scenario.transport
        ),
    }
}

/// The first stretch of `text`, saying how much more the report holds.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(EVIDENCE_CHARS) {
        Some((cut, _)) => format!(
            "{}\n… ({} more bytes in the JSON report)",
            &text[..cut],
            text.len() - cut
        ),
        None => text.to_owned(),
    }
}
