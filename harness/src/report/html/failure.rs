//! A scenario that did not pass, on the page: its rules, why, the failing
//! step, the message, what the upstream received, the gateway's stderr, and
//! what it takes to see it again. The page's layout is the parent's.

use std::fmt::{self, Write as _};

use super::escape::{anchor, plain, Text};
use super::page::Page;
use crate::catalogue::Catalogue;
use crate::report::summary::{Failure, ScenarioReport, Status};

/// What the reader needs to act on a scenario that did not pass: its rules'
/// entries, and the codes its message and the gateway's answers show.
pub(super) fn write_failure(
    out: &mut String,
    page: &mut Page,
    rule: &str,
    scenario: &ScenarioReport,
    failure: &Failure,
) -> fmt::Result {
    out.push_str("<dl class=\"facts\">");
    write!(
        out,
        "<dt>Rule{}</dt><dd>",
        if scenario.rules.len() > 1 { "s" } else { "" }
    )?;
    for (index, id) in scenario.rules.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write!(
            out,
            "<a class=\"rule-link\" href=\"#{}\">{}</a>",
            Text(&anchor(id)),
            Text(id)
        )?;
        let catalogued = Catalogue::embedded().rule(id).is_some();
        if let Some(docs) = page.docs.filter(|_| catalogued) {
            write!(
                out,
                " <a class=\"docs\" href=\"{}\">in the rules</a>",
                Text(&docs.rule(id))
            )?;
        }
    }
    out.push_str("</dd>");
    if let Some(reason) = &scenario.expected {
        write!(
            out,
            "<dt>Expected failure</dt><dd>{}</dd>",
            Text(&plain(reason))
        )?;
    }
    let why = match scenario.status {
        Status::NotRun => Some("Not run"),
        Status::NotJudged => Some("Not judged"),
        Status::Error => Some("Could not be judged"),
        _ => None,
    };
    if let Some(why) = why {
        write!(out, "<dt>{why}</dt><dd>")?;
        page.write_coded(out, rule, &plain(&failure.summary))?;
        out.push_str("</dd>");
    }
    if let Some(step) = &failure.step {
        write!(out, "<dt>Failing step</dt><dd><code>{}</code>", Text(step))?;
        if let Some(line) = failure.step_line {
            write!(
                out,
                " <span class=\"muted\">at {}:{line}</span>",
                Text(&scenario.file)
            )?;
        }
        out.push_str("</dd>");
    }
    out.push_str("</dl>\n");
    // The message in full, unless it is the one line said already.
    let said_already = why.is_some() && failure.message == failure.summary;
    if !failure.message.is_empty() && !said_already {
        out.push_str("<h4>Message</h4>\n<pre class=\"message\">");
        page.write_coded(out, rule, &plain(&failure.message))?;
        out.push_str("</pre>\n");
    }
    if !failure.upstream.is_empty() {
        write!(
            out,
            "<h4>The upstream received {} request{}</h4>\n<ol class=\"requests\">",
            failure.upstream.len(),
            if failure.upstream.len() == 1 { "" } else { "s" }
        )?;
        for request in &failure.upstream {
            write!(
                out,
                "<li><pre>{}</pre></li>",
                Text(&plain(request.trim_end()))
            )?;
        }
        out.push_str("</ol>\n");
    } else if scenario.status != Status::NotRun {
        out.push_str("<p class=\"muted\">The upstream received nothing.</p>\n");
    }
    let stderr = plain(failure.stderr.trim_end());
    if !stderr.trim().is_empty() {
        let lines = stderr.lines().count();
        write!(
            out,
            "<h4>The end of the gateway&#39;s stderr <span class=\"muted\">({lines} line{})</span></h4>\n<pre class=\"stderr\">{}</pre>\n",
            if lines == 1 { "" } else { "s" },
            Text(&stderr)
        )?;
    }
    reproduce(out, page, rule, failure)
}

/// What a reader needs to see the failure again: the tool calls made and
/// their answers, the launch, the kept files and the command to rerun it.
fn reproduce(out: &mut String, page: &mut Page, rule: &str, failure: &Failure) -> fmt::Result {
    if !failure.calls.is_empty() {
        out.push_str("<h4>The client called</h4>\n<ol class=\"requests\">");
        for call in &failure.calls {
            out.push_str("<li><pre>");
            page.write_coded(out, rule, &plain(call))?;
            out.push_str("</pre></li>");
        }
        out.push_str("</ol>\n");
    }
    out.push_str("<dl class=\"facts\">");
    if let Some(launch) = &failure.launch {
        write!(out, "<dt>Launched as</dt><dd><code>{}</code>", Text(launch))?;
        if let Some(environment) = &failure.environment {
            write!(
                out,
                "<br><span class=\"muted\">with {}</span>",
                Text(environment)
            )?;
        }
        out.push_str("</dd>");
    }
    if let Some(files) = &failure.files {
        write!(
            out,
            "<dt>Its document and files</dt><dd><code>{}</code></dd>",
            Text(files)
        )?;
    }
    if let Some(rerun) = &failure.rerun {
        write!(
            out,
            "<dt>Rerun it alone</dt><dd><code>{}</code></dd>",
            Text(rerun)
        )?;
    }
    out.push_str("</dl>\n");
    Ok(())
}
