//! The field's pages (`hosted-mcp-conformance field`): the JSON reports of
//! several gateways, each run with `--gateway-name`, as pages of the docs
//! site. `field.md` holds the table, every gateway by section; each
//! gateway's page (`field-NAME.md`) a line per rule it breaks, at a glance,
//! then its failures by rule with their evidence, and what could not be
//! judged or run, and why.
//!
//! Why Markdown in docs/ and not another report: the site checks every link
//! of it (to the rules, the scenarios' lines, the error entries), and a
//! reader finds the field where the rules are. Each page carries the rules
//! revision it was judged at in a comment (`<!-- rules-revision: … -->`), so
//! the site can say when the rules have moved on since. The Markdown itself
//! (literal text, code, fences, anchors) is written by `markdown`.

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    path::{Path, PathBuf},
};

use anyhow::{bail, Context as _};

use super::markdown::{self, anchor, code, fenced, inline, slug};
use super::summary::{RuleReport, ScenarioReport, Status, Summary};
use crate::catalogue::{Catalogue, Level};

/// The comment that names the rules revision a page was judged at.
pub const REVISION_MARK: &str = "<!-- rules-revision: ";

/// The longest stretch of one piece of evidence a page shows; the JSON
/// report has it whole.
const EVIDENCE_CHARS: usize = 800;

/// The failing scenarios of a rule shown with their evidence; the rest are
/// listed with their summaries, and the JSON report has every one whole.
const EVIDENCED_PER_RULE: usize = 2;

/// About the longest line "At a glance" gives a rule: a reader scans the
/// list, and the rule's section below has the whole reason.
const GLANCE_CHARS: usize = 160;

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

/// One page of the field, as written to the docs folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Its file name in the docs folder (`field-fastmcp.md`).
    pub file: String,
    /// The gateway's name, or the table's title.
    pub title: String,
    pub text: String,
}

/// The table and a page per gateway, from each run's report (named by
/// where it was read). `root` is written out of commands and evidence, so a
/// page does not name the machine it was made on.
pub fn pages(runs: &[(String, Summary)], root: &str) -> anyhow::Result<Vec<Page>> {
    let Some((first_origin, first)) = runs.first() else {
        bail!("no report to make the field's pages of");
    };
    let mut gateways: Vec<Gateway<'_>> = Vec::new();
    for (origin, run) in runs {
        if run.kit != first.kit {
            bail!(
                "{first_origin} and {origin} were judged by different kits ({} and {}): run them again with one",
                first.kit.describe(),
                run.kit.describe()
            );
        }
        let Some(name) = run.gateway_name.as_deref() else {
            bail!("{origin} does not name its gateway: run it with --gateway-name");
        };
        let file = format!("field-{}.md", slug(name));
        if let Some(twin) = gateways.iter().find(|g| g.file == file) {
            bail!(
                "{origin} and {} both judge {name}; give the table one report per gateway (merge a split run first)",
                twin.origin
            );
        }
        gateways.push(Gateway {
            origin,
            name,
            file,
            run,
            rules: run.rules(),
        });
    }
    let mut pages = vec![table(&gateways)];
    pages.extend(gateways.iter().map(|gateway| gateway_page(gateway, root)));
    Ok(pages)
}

/// Writes the pages into `docs`, removes field pages no run made any more,
/// and lists them in `docs/SUMMARY.md` under the table. Returns what it
/// wrote.
pub fn write(docs: &Path, pages: &[Page]) -> anyhow::Result<Vec<PathBuf>> {
    let summary_path = docs.join("SUMMARY.md");
    let summary = std::fs::read_to_string(&summary_path)
        .with_context(|| format!("reading {}", summary_path.display()))?;
    for entry in std::fs::read_dir(docs).with_context(|| format!("reading {}", docs.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("field-") && name.ends_with(".md") {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    let mut written = Vec::new();
    for page in pages {
        let path = docs.join(&page.file);
        std::fs::write(&path, &page.text).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    std::fs::write(&summary_path, listed(&summary, pages))
        .with_context(|| format!("writing {}", summary_path.display()))?;
    written.push(summary_path);
    Ok(written)
}

/// `summary` (mdBook's SUMMARY.md) with the table and, under it, each
/// gateway's page, in place of the ones listed before.
fn listed(summary: &str, pages: &[Page]) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut entries = pages.iter().map(|page| {
        let indent = if page.file == "field.md" { "" } else { "  " };
        format!("{indent}- [{}]({})", page.title, page.file)
    });
    let mut placed = false;
    for line in summary.lines() {
        let trimmed = line.trim_start();
        let ours = trimmed.starts_with("- [")
            && (trimmed.ends_with("(field.md)") || trimmed.contains("](field-"));
        if ours {
            if !placed {
                lines.extend(entries.by_ref());
                placed = true;
            }
        } else {
            lines.push(line.to_owned());
        }
    }
    if !placed {
        lines.extend(entries);
    }
    lines.join("\n") + "\n"
}

/// One judged gateway.
struct Gateway<'a> {
    origin: &'a str,
    name: &'a str,
    file: String,
    run: &'a Summary,
    rules: Vec<RuleReport<'a>>,
}

impl Gateway<'_> {
    /// Where a rule of the catalogue stands for this gateway. A rule not
    /// run as a whole, whose scenarios passed in every form the gateway
    /// could be given and were not run only in forms it cannot take (a
    /// place for the credential, a transport), passed in part.
    fn outcome(&self, id: &str) -> Outcome {
        let Some(rule) = self.rules.iter().find(|rule| rule.id == id) else {
            return Outcome::NotRun;
        };
        match rule.status {
            Status::Passed => Outcome::Passed,
            Status::Failed | Status::NotMet | Status::Expected => Outcome::Failed,
            Status::NotJudged | Status::Error => Outcome::NotJudged,
            Status::NotRun if passed_where_run(&rule.scenarios) => Outcome::PassedInPart,
            Status::NotRun => Outcome::NotRun,
        }
    }

    /// Whether this is the kit's own reference gateway, listed first.
    fn is_reference(&self) -> bool {
        self.name.starts_with(REFERENCE_NAME)
    }

    /// Rules of `level` (in `section`, or all) by outcome.
    fn tally(&self, level: Level, section: Option<&str>) -> Tally {
        let mut tally = Tally::default();
        for rule in &Catalogue::embedded().rules {
            if rule.level != level || section.is_some_and(|s| s != rule.section) {
                continue;
            }
            tally.of += 1;
            match self.outcome(&rule.id) {
                Outcome::Passed => tally.passed += 1,
                Outcome::PassedInPart => tally.passed_in_part += 1,
                Outcome::Failed => tally.failed += 1,
                Outcome::NotJudged => tally.not_judged += 1,
                Outcome::NotRun => tally.not_run += 1,
            }
        }
        tally
    }

    fn transports(&self) -> String {
        let names: Vec<&str> = self
            .run
            .gateway
            .keys()
            .filter(|command| command.as_str() != PREPARE)
            .map(|command| command_label(command))
            .collect();
        names.join(", ")
    }

    /// Whether the run showed the gateway a credential of its own clients
    /// (`--client-auth`): then the rule that a gateway checking its clients
    /// refuses unknown ones was judged, not left not run.
    fn shown_a_client_credential(&self) -> bool {
        self.run.scenarios.iter().any(|scenario| {
            scenario.rules.iter().any(|rule| rule == CLIENT_RULE)
                && scenario.status != Status::NotRun
        })
    }

    fn date(&self) -> &str {
        self.run
            .started
            .as_deref()
            .and_then(|started| started.get(..10))
            .unwrap_or("unknown")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Passed,
    /// Passed in every scenario run; the others were not run, for want of
    /// what the gateway cannot take.
    PassedInPart,
    /// Failed or not met, whether or not its baseline lists it.
    Failed,
    NotJudged,
    NotRun,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    of: usize,
    passed: usize,
    passed_in_part: usize,
    failed: usize,
    not_judged: usize,
    not_run: usize,
}

/// The rule judged only when a run shows the gateway a credential of its
/// own clients.
const CLIENT_RULE: &str = "TC-PROTO-010";

/// Around each of the table's tables: the site's stylesheet (`docs/site.css`)
/// fits a table in this class to the page's width, however many gateways.
const TABLE_OPEN: &str = "<div class=\"field-table\">\n\n";
const TABLE_CLOSE: &str = "\n</div>\n";

/// How the kit's reference gateway names itself (`--gateway-name`).
const REFERENCE_NAME: &str = "hosted-mcp-gateway";

/// Whether `scenarios` of a rule not run as a whole passed wherever they
/// ran: at least one passed, and every other was not run.
fn passed_where_run(scenarios: &[&ScenarioReport]) -> bool {
    scenarios.iter().any(|s| s.status == Status::Passed)
        && scenarios
            .iter()
            .all(|s| matches!(s.status, Status::Passed | Status::NotRun))
}

/// A tally's cell: required rules passed of all, then those passed in part
/// (~), failed (✗), not judged (?) and not run (–), where there are any.
fn tally_cell(tally: &Tally) -> String {
    let mut cell = format!("{}/{}", tally.passed, tally.of);
    for (count, sign) in [
        (tally.passed_in_part, "~"),
        (tally.failed, "✗"),
        (tally.not_judged, "?"),
        (tally.not_run, "–"),
    ] {
        if count > 0 {
            let _ = write!(cell, " {sign}{count}");
        }
    }
    cell
}

/// The gateways in the table's order: the reference first, then by
/// required rules passed, most first, then by name.
fn in_table_order<'g, 'a>(gateways: &'g [Gateway<'a>]) -> Vec<&'g Gateway<'a>> {
    let mut ordered: Vec<&Gateway<'_>> = gateways.iter().collect();
    ordered.sort_by(|a, b| {
        b.is_reference()
            .cmp(&a.is_reference())
            .then_with(|| {
                let passed = |g: &Gateway<'_>| g.tally(Level::Required, None).passed;
                passed(b).cmp(&passed(a))
            })
            .then_with(|| a.name.cmp(b.name))
    });
    ordered
}

/// `field.md`: every gateway on a line, then every section by gateway.
fn table(gateways: &[Gateway<'_>]) -> Page {
    let kit = &gateways[0].run.kit;
    let newest = gateways
        .iter()
        .map(Gateway::date)
        .max()
        .unwrap_or("unknown");
    let mut text = format!(
        "# The field\n\n{REVISION_MARK}{revision} -->\n\n\
         How the OpenAPI-to-MCP gateways people use fare against [the rules](rules.md), each \
         judged as a black box by {kit} {version} at rules revision `{revision}`, at the harness's defaults \
         and with the options its shape asks for (its page says which), over every transport it \
         has. Last judged on {newest}.\n\n\
         A rule passes when every one of its scenarios passes. It *passed in part* (~) when its \
         scenarios passed in every form the gateway could be given and were not run only in forms \
         it cannot take (a place for the credential, a transport). It is *not judged* (?) when a \
         scenario could not see it (each gateway's page gives the reason), and *not run* (–) when \
         the gateway lacks what its scenarios need; ✗ counts the rules it fails. *Own clients* \
         says whether the gateway was run letting in only the harness's client (`--client-auth`), \
         where it has a way to check its clients at all. The reference comes first, then the \
         gateways by required rules passed. Each gateway's \
         known failures are its baseline in `examples/peers/`, every entry traced to what the \
         gateway does; `examples/peers/table` judges them all again and writes these pages.\n\n\
         {TABLE_OPEN}\
         | Gateway | Transports | Own clients | Required | Recommended | Run | Judged on |\n\
         |---|---|---|---|---:|---|---|\n",
        revision = kit.rules_revision,
        kit = kit.name,
        version = kit.version,
    );
    let ordered = in_table_order(gateways);
    for gateway in &ordered {
        let required = gateway.tally(Level::Required, None);
        let recommended = gateway.tally(Level::Recommended, None);
        let _ = writeln!(
            text,
            "| [{}]({}) | {} | {} | {} | {}/{} | {:.0} s, {} launches | {} |",
            inline(gateway.name),
            gateway.file,
            gateway.transports(),
            if gateway.shown_a_client_credential() {
                "checked"
            } else {
                "–"
            },
            tally_cell(&required),
            recommended.passed,
            recommended.of,
            gateway.run.seconds,
            gateway.run.launches,
            gateway.date(),
        );
    }
    text.push_str(TABLE_CLOSE);
    text.push_str(
        "\n## By section\n\nEach cell: the section's required rules passed of all of them, then \
         those passed in part (~), failed (✗), not judged (?) and not run (–), and its recommended \
         rules met (r).\n\n",
    );
    text.push_str(TABLE_OPEN);
    text.push_str("| Section |");
    for gateway in &ordered {
        let _ = write!(text, " [{}]({}) |", inline(gateway.name), gateway.file);
    }
    text.push_str("\n|---|");
    text.push_str(&"---|".repeat(ordered.len()));
    text.push('\n');
    for section in &Catalogue::embedded().sections {
        let _ = write!(text, "| {} |", inline(&section.name));
        for gateway in &ordered {
            let required = gateway.tally(Level::Required, Some(&section.name));
            let recommended = gateway.tally(Level::Recommended, Some(&section.name));
            let mut cell = tally_cell(&required);
            if recommended.of > 0 {
                let _ = write!(cell, " · r {}/{}", recommended.passed, recommended.of);
            }
            let _ = write!(text, " {cell} |");
        }
        text.push('\n');
    }
    text.push_str(TABLE_CLOSE);
    Page {
        file: "field.md".into(),
        title: "The field".into(),
        text,
    }
}

/// One gateway's page: how it was judged, then its failures by section and
/// rule with their evidence, then what was not judged and not run.
fn gateway_page(gateway: &Gateway<'_>, root: &str) -> Page {
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
    text.push_str(
        "\nHow it was run (`{openapi}`, `{base_url}` and `{port}` are filled in per scenario):\n\n",
    );
    for (transport, template) in &run.gateway {
        let _ = writeln!(
            text,
            "- {}: {}",
            command_label(transport),
            code(&unrooted(template))
        );
    }

    let clients = if gateway.shown_a_client_credential() {
        "shown the harness's client credential (`--client-auth`): it lets in only that client, \
         and TC-REQ-021 and TC-PROTO-010 are judged"
    } else {
        "not shown a client credential (no `--client-auth`: it lets in anyone, or was run so), \
         so TC-REQ-021 and TC-PROTO-010 are not run"
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
fn gist(text: &str) -> String {
    markdown::gist(text, GLANCE_CHARS)
}

/// The report's key for the build per document among the gateway's commands.
const PREPARE: &str = "prepare";

/// How a page names one of the gateway's commands (`http`, `stdio`, or the
/// build per document) as the JSON report keys them.
fn command_label(key: &str) -> &str {
    match key {
        "http" => "Streamable HTTP",
        PREPARE => "the build per document",
        other => other,
    }
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

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::super::{ExpectedEntry, Failure};
    use super::*;

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
        let pages = pages(&runs, "/repo/").expect("pages");
        let files: Vec<&str> = pages.iter().map(|p| p.file.as_str()).collect();
        assert_eq!(
            files,
            ["field.md", "field-good.md", "field-scope-bad-gw.md"]
        );
        let table = &pages[0].text;
        let of = Catalogue::embedded()
            .rules
            .iter()
            .filter(|r| r.level == Level::Required)
            .count();
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
        let table = &pages(&runs, "/repo/").expect("pages")[0].text;
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
        let pages = pages(&runs, "/repo/").expect("pages");
        let of = Catalogue::embedded()
            .rules
            .iter()
            .filter(|r| r.level == Level::Required)
            .count();
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
        let table = &super::pages(&[none], "/repo/").expect("pages")[0].text;
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
        let pages = pages(&runs, "/repo/").expect("pages");
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
        assert!(pages[2]
            .text
            .contains("- Its own clients: not shown a client credential"));
    }

    #[test]
    fn a_gateway_page_shows_each_failure_with_its_reason_and_evidence() {
        let mut not_judged = scenario("TC-ARG-001", Level::Required, Status::NotJudged);
        not_judged.failure = Some(Failure {
            summary: "no tool for listPets".into(),
            ..Failure::default()
        });
        let runs = vec![run("Bad 2.0", vec![failed_with_evidence(), not_judged])];
        let pages = pages(&runs, "/repo/").expect("pages");
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
        let pages = pages(&runs, "/repo/").expect("pages");
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
        let pages = pages(&[gateway], "/repo/").expect("pages");
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
}
