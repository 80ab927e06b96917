//! `--html FILE`: the run as one self-contained page, for the implementer
//! reading their gateway's results.
//!
//! The page needs nothing but itself: inline CSS, no script, no font or
//! image, and a Content-Security-Policy that forbids fetching anything, so
//! it opens from disk with no network. It links only within itself, unless
//! `--docs-url` names the kit's documentation site: then each failure's rule
//! and each error code explained link to their entries there too (links a
//! reader follows; the page still fetches nothing). It holds no date: the
//! same summary always gives the same page.
//!
//! Each failure links to its rule's entry on the page, and each code of the
//! error catalogue (`docs/errors.md`) its message or the gateway's answers
//! show, `[ARGUMENTS_INVALID]`, to the code's entry in an appendix that
//! lists only the codes the failures show: what it means, what to do.
//!
//! Every text that comes from a gateway (messages, bodies, stderr) is
//! hostile input: it is escaped, and terminal escape sequences are dropped.
//! Non-passing scenarios are `<details>`, closed on screen and open in print.

use std::{
    collections::BTreeMap,
    fmt::{self, Display, Write as _},
};

use super::summary::{worst, Failure, RuleReport, ScenarioReport, Status, Summary, Verdict};
use crate::{
    catalogue::{Catalogue, Level},
    errors::ErrorCatalogue,
};

mod docs_url;
mod escape;
mod failure;
mod page;

pub use docs_url::DocsUrl;
use escape::{anchor, code_anchor, plain, Inline, Text};
use page::Page;

/// Every status, in the order the counts show them.
const STATUSES: [Status; 7] = [
    Status::Passed,
    Status::Failed,
    Status::NotMet,
    Status::Expected,
    Status::NotJudged,
    Status::NotRun,
    Status::Error,
];

impl Summary {
    /// The run as an HTML page that needs nothing but itself.
    pub fn html(&self) -> String {
        self.html_with(None)
    }

    /// The page, linking each failure's rule and each code explained to
    /// their entries on the documentation site too, when given one.
    pub fn html_with(&self, docs: Option<&DocsUrl>) -> String {
        let mut out = String::with_capacity(64 * 1024);
        self.write_html(&mut out, docs)
            .expect("writing to a String cannot fail");
        out
    }

    fn write_html(&self, out: &mut String, docs: Option<&DocsUrl>) -> fmt::Result {
        let verdict = self.verdict();
        let rules = self.rules();
        let sections = by_section(&rules);
        // The sections first, to know the codes their failures show.
        let mut page = Page {
            docs,
            errors: ErrorCatalogue::embedded(),
            seen: BTreeMap::new(),
        };
        let mut main = String::with_capacity(64 * 1024);
        for (section, rules) in &sections {
            write_section(&mut main, &mut page, section, rules)?;
        }
        write!(
            out,
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
             <meta name=\"generator\" content=\"{kit}\">\n\
             <title>{outcome}: conformance of the gateway ({kit})</title>\n\
             <style>{CSS}</style>\n</head>\n<body>\n",
            kit = Text(&self.kit.describe()),
            outcome = Text(&verdict.outcome.to_uppercase()),
        )?;
        self.header(out, &verdict, &rules)?;
        self.notices(out, &rules)?;
        overview(out, &sections, &page)?;
        out.push_str("<main>\n");
        out.push_str(&main);
        out.push_str("</main>\n");
        codes_appendix(out, &page)?;
        write!(out, "<footer>{} · ", Text(&self.kit.describe()))?;
        match docs {
            Some(docs) => write!(
                out,
                "the rules: <a href=\"{url}/rules.html\"><code>docs/rules.md</code></a> · \
                 the error codes: <a href=\"{url}/errors.html\"><code>docs/errors.md</code></a>",
                url = Text(docs.as_str())
            )?,
            None => out.push_str(
                "the rules: <code>docs/rules.md</code> · the error codes: <code>docs/errors.md</code>",
            ),
        }
        out.push_str("</footer>\n</body>\n</html>\n");
        Ok(())
    }

    /// The kit, the gateway, the verdict and the counts.
    fn header(&self, out: &mut String, verdict: &Verdict, rules: &[RuleReport]) -> fmt::Result {
        let outcome = match verdict.outcome {
            "passed" => Status::Passed,
            "failed" => Status::Failed,
            _ => Status::Error,
        };
        write!(
            out,
            "<header>\n<p class=\"kit\">{} <span class=\"version\">{}</span> · rules revision <code>{}</code></p>\n\
             <h1>Conformance report</h1>\n\
             <section class=\"verdict {}\" aria-label=\"Verdict\">\n\
             <p class=\"outcome\">Run <strong>{}</strong> <span class=\"exit\">exit code {}</span></p>\n",
            Text(&self.kit.name),
            Text(&self.kit.version),
            Text(&self.kit.rules_revision),
            class(outcome),
            Text(verdict.outcome),
            verdict.exit_code,
        )?;
        if !verdict.reasons.is_empty() {
            out.push_str("<ul class=\"reasons\">");
            for reason in &verdict.reasons {
                write!(out, "<li>{}</li>", Text(reason))?;
            }
            out.push_str("</ul>\n");
        }
        let counts = self.counts();
        out.push_str("<p class=\"counts\">");
        for status in STATUSES {
            let count = counts.of(status);
            if count > 0 || matches!(status, Status::Passed | Status::Failed) {
                write!(
                    out,
                    "<span class=\"count {}\"><b>{count}</b> {}{}</span> ",
                    class(status),
                    status.label(),
                    if count != 1 && matches!(status, Status::Expected | Status::Error) {
                        "s"
                    } else {
                        ""
                    }
                )?;
            }
        }
        let passed = rules.iter().filter(|r| r.status == Status::Passed).count();
        write!(
            out,
            "</p>\n<p class=\"lastline\"><code>{}</code> · {passed} of {} rules passed ({} in the catalogue)</p>\n</section>\n",
            Text(&self.last_line()),
            rules.len(),
            Catalogue::embedded().rules.len(),
        )?;

        out.push_str("<dl class=\"run\">\n<dt>Gateway</dt><dd>");
        if self.gateway.is_empty() {
            out.push_str("<span class=\"muted\">no command recorded</span>");
        }
        for (transport, template) in &self.gateway {
            write!(
                out,
                "<div class=\"command\"><span class=\"transport\">{}</span> <code>{}</code></div>",
                Text(transport),
                Text(template)
            )?;
        }
        out.push_str("</dd>\n");
        writeln!(
            out,
            "<dt>Recommended rules</dt><dd>{}</dd>",
            if self.strict {
                "fail the run (<code>--strict</code>)"
            } else {
                "reported apart; they fail a run only with <code>--strict</code>"
            }
        )?;
        if !self.shards.is_empty() {
            let shards: Vec<String> = self
                .shards
                .iter()
                .map(|s| format!("{}/{}", s.index, s.count))
                .collect();
            writeln!(out, "<dt>Shards</dt><dd>{}</dd>", shards.join(", "))?;
        }
        if !self.expected_failures.is_empty() {
            write!(
                out,
                "<dt>Expected failures</dt><dd><details class=\"listed\"><summary>{} listed</summary><ul>",
                self.expected_failures.len()
            )?;
            for entry in &self.expected_failures {
                write!(
                    out,
                    "<li><b>{}</b> — {} <span class=\"muted\">({})</span></li>",
                    Text(&entry.key),
                    Text(&entry.reason),
                    Text(&entry.place)
                )?;
            }
            out.push_str("</ul></details></dd>\n");
        }
        out.push_str("</dl>\n</header>\n");
        Ok(())
    }

    /// Stale expected failures and what kept scenarios from running.
    fn notices(&self, out: &mut String, rules: &[RuleReport]) -> fmt::Result {
        let stale = self.stale();
        if !stale.is_empty() {
            out.push_str(
                "<section class=\"notice failed\">\n<h2>Expected failures that now pass</h2>\n\
                 <p>Each fails the run until it is removed from the list.</p>\n<ul>",
            );
            for entry in stale {
                // A key is a rule's ID or a scenario's name: its rule's entry.
                let rule = rules
                    .iter()
                    .find(|r| r.id == entry.key)
                    .map(|r| r.id)
                    .or_else(|| {
                        self.scenarios
                            .iter()
                            .find(|s| s.name == entry.key)
                            .and_then(|s| s.rules.first())
                            .map(String::as_str)
                    });
                out.push_str("<li>");
                match rule {
                    Some(rule) => write!(
                        out,
                        "<a href=\"#{}\"><b>{}</b></a>",
                        Text(&anchor(rule)),
                        Text(&entry.key)
                    )?,
                    None => write!(out, "<b>{}</b>", Text(&entry.key))?,
                }
                write!(
                    out,
                    " passes now: remove it from <code>{place}</code> <span class=\"muted\">(listed as: {reason})</span></li>",
                    place = Text(&entry.place),
                    reason = Text(&entry.reason),
                )?;
            }
            out.push_str("</ul>\n</section>\n");
        }
        for cause in &self.never_started {
            write!(
                out,
                "<section class=\"notice error\">\n<h2>The gateway never started over {}</h2>\n<p>{}</p>\n<pre>{}</pre>\n</section>\n",
                Text(&cause.transport),
                Text(&cause.headline()),
                Text(&cause.details())
            )?;
        }
        if !self.problems.is_empty() {
            out.push_str("<section class=\"notice error\">\n<h2>Problems</h2>\n<ul>");
            for problem in &self.problems {
                write!(out, "<li>{}</li>", Text(&plain(problem)))?;
            }
            out.push_str("</ul>\n</section>\n");
        }
        Ok(())
    }
}

/// A section's name, its catalogue entry's feature file, and its rules.
type SectionRules<'r, 'a> = (&'r str, Vec<&'r RuleReport<'a>>);

/// The rules by section: catalogue sections in catalogue order, then any
/// section the catalogue does not know.
fn by_section<'r, 'a>(rules: &'r [RuleReport<'a>]) -> Vec<SectionRules<'r, 'a>> {
    let mut sections: Vec<SectionRules> = Vec::new();
    for section in &Catalogue::embedded().sections {
        let name = section.name.as_str();
        let in_section: Vec<_> = rules.iter().filter(|r| r.section() == name).collect();
        if !in_section.is_empty() {
            sections.push((name, in_section));
        }
    }
    for rule in rules {
        let name = rule.section();
        if !sections.iter().any(|(s, _)| *s == name) {
            sections.push((name, rules.iter().filter(|r| r.section() == name).collect()));
        }
    }
    sections
}

/// One row per section: rules passed by level, and the rules not passing;
/// then the error codes the failures show.
fn overview(out: &mut String, sections: &[SectionRules], page: &Page) -> fmt::Result {
    out.push_str(
        "<nav class=\"overview\" aria-label=\"Sections\">\n<h2>Sections</h2>\n<p class=\"muted\">Rules passed of the rules checked, by level.</p>\n<div class=\"scroll\"><table>\n\
         <thead><tr><th scope=\"col\">Section</th><th scope=\"col\">Required</th>\
         <th scope=\"col\">Recommended</th><th scope=\"col\">Not passing</th></tr></thead>\n<tbody>\n",
    );
    for (section, rules) in sections {
        write!(
            out,
            "<tr><th scope=\"row\"><a href=\"#{}\">{}</a></th>",
            Text(&section_anchor(section)),
            Text(section)
        )?;
        for level in [Level::Required, Level::Recommended] {
            let of_level: Vec<_> = rules.iter().filter(|r| r.level == level).collect();
            let passed = of_level
                .iter()
                .filter(|r| r.status == Status::Passed)
                .count();
            if of_level.is_empty() {
                out.push_str("<td class=\"num muted\">–</td>");
            } else {
                write!(
                    out,
                    "<td class=\"num {}\">{passed}/{}</td>",
                    class(worst(of_level.iter().map(|r| r.status))),
                    of_level.len()
                )?;
            }
        }
        out.push_str("<td>");
        for rule in rules.iter().filter(|r| r.status != Status::Passed) {
            write!(
                out,
                "<a class=\"tag {}\" href=\"#{}\">{} <small>{}</small></a> ",
                class(rule.status),
                Text(&anchor(rule.id)),
                Text(rule.id),
                rule.status.label()
            )?;
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    let codes = page.codes_seen();
    if !codes.is_empty() {
        out.push_str("<p class=\"codes-seen\">Error codes the failures show, <a href=\"#codes\">explained below</a>: ");
        for (code, _) in codes {
            write!(
                out,
                "<a class=\"code\" href=\"#{}\">{}</a> ",
                Text(&code_anchor(code)),
                Text(&code.code)
            )?;
        }
        out.push_str("</p>\n");
    }
    out.push_str("</nav>\n");
    Ok(())
}

/// The codes the failures show, from the error catalogue: what each means
/// and what to do, and the rules whose failures show it.
fn codes_appendix(out: &mut String, page: &Page) -> fmt::Result {
    let codes = page.codes_seen();
    if codes.is_empty() {
        return Ok(());
    }
    out.push_str(
        "<section class=\"codes\" id=\"codes\">\n<h2>Error codes in these failures</h2>\n\
         <p class=\"muted\">The codes of the kit&#39;s error catalogue (<code>docs/errors.md</code>) \
         that the failures above show: what each means and what to do. \
         Other gateways write other messages; only these codes are explained.</p>\n",
    );
    for (code, rules) in codes {
        write!(
            out,
            "<article class=\"code-entry\" id=\"{}\" data-code=\"{}\">\n<h3><code>{}</code>",
            Text(&code_anchor(code)),
            Text(&code.code),
            Text(&code.code)
        )?;
        if let Some(docs) = page.docs {
            write!(
                out,
                " <a class=\"docs\" href=\"{}\">in the error docs</a>",
                Text(&docs.code(code))
            )?;
        }
        out.push_str("</h3>\n");
        for paragraph in code.meaning.split("\n\n") {
            writeln!(out, "<p>{}</p>", Inline(paragraph))?;
        }
        out.push_str("<h4>What to do</h4>\n<ul class=\"advice\">");
        for (who, what) in &code.what_to_do {
            write!(out, "<li><b>{}</b>: {}</li>", Text(who), Inline(what))?;
        }
        out.push_str("</ul>\n<p class=\"seen muted\">Shown by failures of ");
        for (index, rule) in rules.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            write!(
                out,
                "<a href=\"#{}\">{}</a>",
                Text(&anchor(rule)),
                Text(rule)
            )?;
        }
        out.push_str("</p>\n</article>\n");
    }
    out.push_str("</section>\n");
    Ok(())
}

fn write_section(
    out: &mut String,
    page: &mut Page,
    name: &str,
    rules: &[&RuleReport],
) -> fmt::Result {
    let feature = Catalogue::embedded()
        .sections
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.feature.as_str())
        .filter(|f| !f.is_empty());
    write!(
        out,
        "<section class=\"section\" id=\"{}\">\n<h2>{}",
        Text(&section_anchor(name)),
        Text(name)
    )?;
    if let Some(feature) = feature {
        write!(
            out,
            " <span class=\"file\">features/{}</span>",
            Text(feature)
        )?;
    }
    out.push_str("</h2>\n");
    for rule in rules {
        write_rule(out, page, rule)?;
    }
    out.push_str("</section>\n");
    Ok(())
}

fn write_rule(out: &mut String, page: &mut Page, rule: &RuleReport) -> fmt::Result {
    write!(
        out,
        "<article class=\"rule {status}\" id=\"{anchor}\" data-rule=\"{id}\">\n\
         <h3><span class=\"id\">{id}</span> <span class=\"level {level}\">{level}</span> {badge}</h3>\n",
        status = class(rule.status),
        anchor = Text(&anchor(rule.id)),
        id = Text(rule.id),
        level = rule.level.name(),
        badge = Badge(rule.status),
    )?;
    match rule.rule {
        Some(entry) => write!(
            out,
            "<p class=\"statement\">{}</p>\n<p class=\"source\">Source: {}</p>\n",
            Inline(&entry.statement),
            Text(&entry.source)
        )?,
        None => out.push_str(
            "<p class=\"statement muted\">Not a rule of this kit's catalogue: a tag of the scenarios.</p>\n",
        ),
    }
    out.push_str("<ul class=\"scenarios\">\n");
    for scenario in &rule.scenarios {
        write_scenario(out, page, rule.id, scenario)?;
    }
    out.push_str("</ul>\n</article>\n");
    Ok(())
}

/// A scenario, as shown under `rule`, one of its rules.
fn write_scenario(
    out: &mut String,
    page: &mut Page,
    rule: &str,
    scenario: &ScenarioReport,
) -> fmt::Result {
    let heading = |out: &mut String| {
        write!(
            out,
            "{} <span class=\"name\">{}</span> <span class=\"where\"><span class=\"place\">{}</span> · {} · {:.1} s</span>",
            Badge(scenario.status),
            Text(&scenario.name),
            Text(&scenario.place()),
            Text(&scenario.transport),
            scenario.seconds,
        )
    };
    write!(
        out,
        "<li class=\"scenario {}\" data-scenario=\"{}\">",
        class(scenario.status),
        Text(&scenario.place())
    )?;
    if scenario.status == Status::Passed {
        out.push_str("<div class=\"line\">");
        heading(out)?;
        out.push_str("</div></li>\n");
        return Ok(());
    }
    let none = Failure::default();
    let failure = scenario.failure.as_ref().unwrap_or(&none);
    out.push_str("<details><summary>");
    heading(out)?;
    if !failure.summary.is_empty() {
        write!(
            out,
            " <span class=\"why\">{}</span>",
            Text(&plain(&failure.summary))
        )?;
    }
    out.push_str("</summary>\n<div class=\"detail\">\n");
    failure::write_failure(out, page, rule, scenario, failure)?;
    out.push_str("</div></details></li>\n");
    Ok(())
}

/// The CSS class of a status (also the verdict's).
fn class(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::NotMet => "not-met",
        Status::Expected => "expected",
        Status::NotRun => "not-run",
        Status::NotJudged => "not-judged",
        Status::Error => "error",
    }
}

/// A section's anchor: `s-the-answer`.
fn section_anchor(name: &str) -> String {
    let mut slug = String::from("s-");
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug
}

/// A status as a coloured label that says it in words too.
struct Badge(Status);

impl Display for Badge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "<span class=\"badge {}\">{}</span>",
            class(self.0),
            self.0.label()
        )
    }
}

/// The page's style: light and dark, narrow screens, print.
const CSS: &str = include_str!("report.css");

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::tests::{scenario, summary};
    use super::*;

    #[test]
    fn hostile_text_comes_out_inert() {
        let mut failed = scenario("TC-ANS-008", Level::Required, Status::Failed);
        failed.failure = Some(Failure {
            summary: "expected \"a\", got <b>".into(),
            step: Some("Then the result is \"<img src=x onerror=alert(1)>\"".into()),
            step_line: Some(12),
            message: "expected: ok\ngot: <script>alert(1)</script></details></pre>".into(),
            upstream: vec!["POST /x\n\n<script>alert(2)</script>".into()],
            stderr: "\u{1b}[31mERROR\u{1b}[0m <style>body{display:none}</style>\r\n\u{7}".into(),
            launch: Some("gw --name '<script>alert(3)</script>'".into()),
            environment: Some("X=<script>".into()),
            calls: vec![
                "tools/call x {\"a\":\"<script>alert(4)</script>\"}".into(),
                "→ [ARGUMENTS_INVALID]<script>alert(5)</script>[<b>]".into(),
            ],
            files: Some("/tmp/<script>".into()),
            rerun: Some("hosted-mcp-conformance --scenario '<script>'".into()),
        });
        let html = summary(vec![failed]).html();
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("got &lt;b&gt;"), "{html}");
        assert!(
            html.contains("got: &lt;script&gt;alert(1)&lt;/script&gt;&lt;/details&gt;&lt;/pre&gt;")
        );
        assert!(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;"));
        assert!(html.contains(
            "→ [<a class=\"code\" href=\"#code-arguments_invalid\">ARGUMENTS_INVALID</a>]\
             &lt;script&gt;alert(5)&lt;/script&gt;[&lt;b&gt;]"
        ));
        assert!(html.contains("ERROR &lt;style&gt;body{display:none}&lt;/style&gt;\n\u{fffd}"));
        assert!(!html.contains('\u{1b}'));
        assert_eq!(html.matches("<style>").count(), 1);
        assert_eq!(
            html.matches("<details>").count(),
            html.matches("</details>").count()
        );
        assert_eq!(html.matches("<pre").count(), html.matches("</pre>").count());
    }

    #[test]
    fn escapes_every_special_character() {
        assert_eq!(
            Text(r#"<a href="x" title='y'>&amp;</a>"#).to_string(),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
        );
        assert_eq!(
            Inline("Bearer `<credential>` & `a`").to_string(),
            "Bearer <code>&lt;credential&gt;</code> &amp; <code>a</code>"
        );
        assert_eq!(Inline("one ` tick <").to_string(), "one ` tick &lt;");
    }

    #[test]
    fn shows_every_rule_once_in_catalogue_order() {
        let mut scenarios: Vec<ScenarioReport> = Catalogue::embedded()
            .rules
            .iter()
            .rev()
            .map(|rule| scenario(&rule.id, rule.level, Status::Passed))
            .collect();
        scenarios.push(scenario("TC-UNKNOWN-001", Level::Required, Status::Failed));
        let s = summary(scenarios);
        let html = s.html();
        let mut at = 0;
        for rule in s.rules().iter().filter(|r| r.rule.is_some()) {
            let marker = format!("data-rule=\"{}\"", rule.id);
            assert_eq!(html.matches(&marker).count(), 1, "{}", rule.id);
            let found = html.find(&marker).unwrap();
            assert!(found > at, "{} is out of order", rule.id);
            at = found;
        }
        assert_eq!(html.matches("data-rule=").count(), s.rules().len());
        assert!(html.contains("Not a rule of this kit"));
        assert!(html.contains("<code>Authorization: Bearer &lt;credential&gt;</code>"));
    }

    #[test]
    fn the_page_is_deterministic_and_self_contained() {
        let s = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Passed),
            scenario("TC-NAME-008", Level::Recommended, Status::NotMet),
            scenario("TC-PROTO-001", Level::Required, Status::NotRun),
            scenario("TC-LOAD-001", Level::Required, Status::Error),
        ]);
        let html = s.html();
        assert_eq!(html, s.html());
        for needle in ["http://", "https://", "<script", "<link", "<img", "url("] {
            assert!(!html.contains(needle), "{needle}");
        }
        assert!(html.contains(&format!("exit code {}", s.verdict().exit_code)));
        assert!(html.contains(&s.last_line()));
        for status in ["not met", "not run", "error"] {
            assert!(html.contains(&format!(">{status}</span>")), "{status}");
        }
    }

    /// A scenario that could not see its rule is shown apart, with why and
    /// which rule judges the cause, and its rule is not passed.
    #[test]
    fn not_judged_is_its_own_outcome() {
        let mut unseen = scenario("TC-NAME-004", Level::Required, Status::NotJudged);
        unseen.failure = Some(Failure {
            summary: "not judged: no naming extension is honoured alone; TC-NAME-003 judges that"
                .into(),
            ..Failure::default()
        });
        let s = summary(vec![unseen]);
        let html = s.html();
        assert!(html.contains(">not judged</span>"), "{html}");
        assert!(html.contains("TC-NAME-003 judges that"), "{html}");
        assert!(html.contains("badge not-judged"), "{html}");
        assert!(!html.contains(">passed</span>"), "{html}");
    }

    /// Every `id` of a page.
    fn ids(html: &str) -> BTreeSet<&str> {
        html.split(" id=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect()
    }

    /// Every `href` of a page (or of a part of it), in order.
    fn hrefs(html: &str) -> Vec<&str> {
        html.split(" href=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect()
    }

    /// Each scenario's expanded part: from its `<details>` to its end.
    fn failures(html: &str) -> Vec<&str> {
        html.split("<details><summary>")
            .skip(1)
            .map(|rest| rest.split("</details></li>").next().unwrap())
            .collect()
    }

    /// The codes the appendix explains, in order.
    fn explained(html: &str) -> Vec<&str> {
        html.split("<article class=\"code-entry\"")
            .skip(1)
            .filter_map(|rest| rest.split("data-code=\"").nth(1)?.split('"').next())
            .collect()
    }

    /// A run whose failures show codes, each somewhere of its own: in a
    /// message (an answer quoted in JSON), in the calls' answers, in the
    /// reason of a scenario that could not be judged, in a scenario of two
    /// rules; and words in brackets that are no codes, and a code only in
    /// stderr, which is the gateway's log, not its answer.
    fn coded_run() -> Summary {
        let mut failed = scenario("TC-CHECK-001", Level::Required, Status::Failed);
        failed.failure = Some(Failure {
            summary: "expected the call to be refused".into(),
            message: "expected the call to be refused\ngot: {\"text\":\"[UPSTREAM_STATUS] upstream answered 503\"}"
                .into(),
            calls: vec![
                "tools/call listPets {\"limit\":\"x\"}\n→ tool result (isError: true):\n[UPSTREAM_TIMEOUT] no answer [credential]".into(),
                "tools/call listPets {}\n→ tool result (isError: true):\n[NOT_A_CODE] [ARGUMENTS_INVALID] /limit".into(),
            ],
            stderr: "[BODY_EMPTY] logged, not answered".into(),
            ..Failure::default()
        });
        let mut error = scenario("TC-LOAD-001", Level::Required, Status::Error);
        error.failure = Some(Failure {
            summary: "[GATEWAY_FAULT] the gateway failed during the call".into(),
            ..Failure::default()
        });
        // One scenario of two rules, shown under each.
        let mut both = scenario("TC-PROTO-005", Level::Required, Status::NotMet);
        both.rules.push("TC-CHECK-002".into());
        both.failure = Some(Failure {
            summary: "expected a tool error".into(),
            message: "expected a tool error, got [ARGUMENTS_INVALID] twice".into(),
            ..Failure::default()
        });
        summary(vec![
            failed,
            error,
            both,
            scenario("TC-ANS-001", Level::Required, Status::Passed),
            scenario("TC-NAME-008", Level::Recommended, Status::NotMet),
        ])
    }

    #[test]
    fn each_failure_links_its_rules_and_each_code_its_entry() {
        let s = coded_run();
        let html = s.html();
        let ids = ids(&html);
        for href in hrefs(&html) {
            let target = href
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("{href} leaves the page"));
            assert!(ids.contains(target), "#{target} is no anchor of the page");
        }
        // Each failure links each of its rules' entries.
        let shown = failures(&html);
        let expected: Vec<&ScenarioReport> = s
            .rules()
            .iter()
            .flat_map(|r| r.scenarios.clone())
            .filter(|s| s.status != Status::Passed)
            .collect();
        assert_eq!(shown.len(), expected.len());
        for (failure, scenario) in shown.iter().zip(&expected) {
            assert!(failure.contains(&scenario.name), "{failure}");
            let links = hrefs(failure);
            for rule in &scenario.rules {
                assert!(
                    links.contains(&format!("#{rule}").as_str()),
                    "{rule}: {failure}"
                );
            }
        }
        // The codes answered, in catalogue order, and only they.
        let errors = ErrorCatalogue::embedded();
        // Each where only it stands: in a message, the calls, a reason.
        let mut codes = vec![
            "ARGUMENTS_INVALID",
            "GATEWAY_FAULT",
            "UPSTREAM_STATUS",
            "UPSTREAM_TIMEOUT",
        ];
        codes.sort_by_key(|code| errors.codes.iter().position(|c| c.code == *code));
        assert_eq!(explained(&html), codes);
        for code in codes {
            let entry = errors.code(code).unwrap();
            let anchor = format!("code-{}", entry.anchor());
            // Linked from where it stands, and from the overview.
            let linked = format!("[<a class=\"code\" href=\"#{anchor}\">{code}</a>]");
            assert!(html.contains(&linked), "{code} unlinked");
            assert!(
                html.contains(&format!("<p>{}</p>", Inline(&entry.meaning))),
                "{code}"
            );
            for (who, what) in &entry.what_to_do {
                assert!(
                    html.contains(&format!("<li><b>{}</b>: {}</li>", Text(who), Inline(what))),
                    "{code}: {who}"
                );
            }
        }
        for not_a_code in ["[NOT_A_CODE]", "[credential]", "[BODY_EMPTY]"] {
            assert!(html.contains(not_a_code), "{not_a_code} shown as written");
        }
        // Each code's entry names the rules whose failures show it.
        let entry = html
            .split("data-code=\"ARGUMENTS_INVALID\"")
            .nth(1)
            .unwrap();
        let entry = entry.split("</article>").next().unwrap();
        assert_eq!(
            hrefs(entry),
            ["#TC-PROTO-005", "#TC-CHECK-001", "#TC-CHECK-002"],
            "{entry}"
        );
        // No code, no appendix.
        let plain_run = summary(vec![scenario(
            "TC-NAME-008",
            Level::Recommended,
            Status::NotMet,
        )]);
        let html = plain_run.html();
        assert!(explained(&html).is_empty() && !html.contains("id=\"codes\""));
        assert!(hrefs(failures(&html)[0]).contains(&"#TC-NAME-008"));
    }

    #[test]
    fn a_docs_url_links_rules_and_codes_to_the_site_too() {
        let s = coded_run();
        let docs: DocsUrl = "https://docs.example/kit/".parse().unwrap();
        let html = s.html_with(Some(&docs));
        assert_eq!(html, s.html_with(Some(&docs)), "deterministic");
        let site = "https://docs.example/kit/";
        for href in hrefs(&html) {
            assert!(href.starts_with('#') || href.starts_with(site), "{href}");
        }
        for failure in failures(&html) {
            let links = hrefs(failure);
            let rules: Vec<&str> = links
                .iter()
                .filter_map(|h| h.strip_prefix('#'))
                .filter(|h| h.starts_with("TC-"))
                .collect();
            assert!(!rules.is_empty(), "{failure}");
            for rule in rules {
                let on_site = format!("{site}rules.html#{rule}");
                assert!(links.contains(&on_site.as_str()), "{on_site}: {failure}");
            }
        }
        for code in explained(&html) {
            let entry = html.split(&format!("data-code=\"{code}\"")).nth(1).unwrap();
            let entry = entry.split("</article>").next().unwrap();
            let on_site = format!("{site}errors.html#{}", code.to_ascii_lowercase());
            assert!(hrefs(entry).contains(&on_site.as_str()), "{code}");
        }
        assert!(html.contains(&format!(
            "<a href=\"{site}rules.html\"><code>docs/rules.md</code></a>"
        )));
        // Without it, nothing leads off the page.
        assert!(!s.html().contains(site));
    }

    #[test]
    fn a_docs_url_is_a_site_address() {
        let url = |text: &str| text.parse::<DocsUrl>().map(|u| u.as_str().to_owned());
        assert_eq!(
            url(" https://example.org/kit/ ").unwrap(),
            "https://example.org/kit"
        );
        assert_eq!(
            url("HTTP://localhost:3000").unwrap(),
            "HTTP://localhost:3000"
        );
        assert_eq!(url("file:///home/me/book").unwrap(), "file:///home/me/book");
        for refused in [
            "",
            "docs.example",
            "javascript:alert(1)",
            "https://",
            "https://x/y?v=1",
            "https://x/#top",
            "https://x/a b",
            "https://x/\"onmouseover=\"",
        ] {
            let error = url(refused).unwrap_err();
            assert!(
                error.contains("https://example.org/conformance"),
                "{refused}: {error}"
            );
        }
    }

    /// A stale entry named by scenario links to the scenario's rule, one
    /// the page holds, never to an anchor that is not there.
    #[test]
    fn stale_entries_link_to_rules_on_the_page() {
        let mut s = summary(vec![scenario(
            "TC-NAME-005",
            Level::Required,
            Status::Passed,
        )]);
        s.expected_failures = vec![super::super::ExpectedEntry {
            key: "checks TC-NAME-005".into(),
            reason: "listed".into(),
            place: "known.txt:1".into(),
        }];
        let html = s.html();
        assert!(
            html.contains("<a href=\"#TC-NAME-005\"><b>checks TC-NAME-005</b></a> passes now"),
            "{html}"
        );
    }

    #[test]
    fn terminal_escapes_are_dropped_from_gateway_text() {
        assert_eq!(
            plain("\u{1b}[1;31mred\u{1b}[0m\r\nnext\u{0}"),
            "red\nnext\u{fffd}"
        );
    }
}
