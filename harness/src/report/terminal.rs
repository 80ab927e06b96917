//! The end of a run in the terminal: only what needs reading. Each failure
//! in full (rule, place, step, expected and got, what the upstream received,
//! the gateway's last words), then one line per section, then the verdict.

use std::fmt::Write as _;

use super::summary::{Failure, ScenarioReport, Status, Summary};
use crate::catalogue::{Catalogue, Level};

/// Lines of the gateway's stderr shown with a failure.
const STDERR_LINES: usize = 12;
/// Lines of one failure message shown in the terminal (the reports keep all).
const MESSAGE_LINES: usize = 40;

/// ANSI colours, when the output is a terminal that wants them.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub colour: bool,
}

impl Style {
    /// Colour on a terminal, unless `NO_COLOR` is set.
    pub fn detect() -> Self {
        use std::io::IsTerminal as _;
        Self {
            colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn status(self, status: Status) -> String {
        let code = match status {
            Status::Passed => "32",
            Status::Failed => "1;31",
            Status::Error => "1;35",
            Status::NotMet | Status::Expected => "33",
            Status::NotRun | Status::NotJudged => "2",
        };
        self.paint(code, &status.label().to_uppercase())
    }

    fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
}

/// The stderr tails a terminal report has shown, so that a gateway which
/// says the same at every launch is quoted once, not once per scenario.
#[derive(Debug, Default)]
pub struct TailsShown(Vec<(String, String)>);

impl TailsShown {
    /// The title of the scenario whose stderr tail read like `tail`, once
    /// numbers (times, ports, process IDs) are set aside; else `tail` is
    /// remembered as shown by `title`.
    fn shown_by(&mut self, tail: &str, title: &str) -> Option<String> {
        // A run of digits is one number whatever its length: a call that
        // took 32.1 ms under load reads like one that took 2.0 ms.
        let mut shape = String::with_capacity(tail.len());
        for c in tail.chars() {
            if !c.is_ascii_digit() {
                shape.push(c);
            } else if !shape.ends_with('#') {
                shape.push('#');
            }
        }
        match self.0.iter().find(|(seen, _)| *seen == shape) {
            Some((_, by)) => Some(by.clone()),
            None => {
                self.0.push((shape, title.to_owned()));
                None
            }
        }
    }
}

/// A failure's details, indented, without its heading: where, which step,
/// the message, the tool calls made and their answers, what the upstream
/// received, the gateway's stderr, how it was launched, where its files
/// were kept and how to rerun the scenario alone. With `tails`, a stderr
/// tail shown already is named instead of repeated.
pub fn failure_text(
    scenario: &ScenarioReport,
    failure: &Failure,
    tails: Option<&mut TailsShown>,
) -> String {
    let mut out = String::new();
    let _ = write!(out, "{} (over {})", scenario.place(), scenario.transport);
    if let Some(reason) = &scenario.expected {
        let _ = write!(out, "\nexpected failure: {reason}");
    }
    match (&failure.step, failure.step_line) {
        (Some(step), Some(line)) => {
            let _ = write!(out, "\nstep (line {line}): {step}");
        }
        (Some(step), None) => {
            let _ = write!(out, "\nstep: {step}");
        }
        _ => {}
    }
    let message = if failure.message.is_empty() {
        &failure.summary
    } else {
        &failure.message
    };
    out.push('\n');
    out.push_str(&indent(&clip_lines(message, MESSAGE_LINES), "  "));
    if !failure.calls.is_empty() {
        out.push_str("\nthe client called:");
        for call in &failure.calls {
            out.push('\n');
            out.push_str(&indent(&clip_lines(call, MESSAGE_LINES), "  "));
        }
    }
    if !failure.upstream.is_empty() {
        let _ = write!(
            out,
            "\nthe upstream received {} request(s):",
            failure.upstream.len()
        );
        for request in &failure.upstream {
            out.push('\n');
            out.push_str(&indent(request.trim_end(), "  "));
        }
    } else if scenario.status != Status::NotRun {
        out.push_str("\nthe upstream received nothing");
    }
    if !failure.stderr.trim().is_empty() {
        let lines: Vec<&str> = failure.stderr.trim_end().lines().collect();
        let tail = lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n");
        let shown_by = tails.and_then(|tails| tails.shown_by(&tail, &scenario.title()));
        match shown_by {
            Some(title) => {
                let _ = write!(
                    out,
                    "\ngateway stderr: ends as shown above for {title} (numbers aside; \
                     the JSON report has it whole)"
                );
            }
            None => {
                let _ = write!(
                    out,
                    "\ngateway stderr{}:\n{}",
                    if STDERR_LINES < lines.len() {
                        format!(" (last {STDERR_LINES} of {} lines)", lines.len())
                    } else {
                        String::new()
                    },
                    indent(&tail, "  ")
                );
            }
        }
    }
    if let Some(launch) = &failure.launch {
        let _ = write!(out, "\nlaunched as: {launch}");
        if let Some(environment) = &failure.environment {
            let _ = write!(out, "\n  with {environment}");
        }
    }
    if let Some(files) = &failure.files {
        let _ = write!(out, "\nits document and files: {files}");
    }
    if let Some(rerun) = &failure.rerun {
        let _ = write!(out, "\nrerun it alone: {rerun}");
    }
    out
}

fn indent(text: &str, by: &str) -> String {
    text.lines()
        .map(|line| format!("{by}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn clip_lines(text: &str, keep: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= keep {
        return text.to_owned();
    }
    let mut out = lines[..keep].join("\n");
    let _ = write!(
        out,
        "\n[… {} more lines in the JSON and HTML reports]",
        lines.len() - keep
    );
    out
}

impl Summary {
    /// What the terminal shows once every scenario has run.
    pub fn terminal(&self, style: Style) -> String {
        let mut out = String::new();
        // Errors of a gateway that never started share one cause, shown once.
        let never_started = |s: &ScenarioReport| {
            s.status == Status::Error
                && self
                    .never_started
                    .iter()
                    .any(|n| n.transport == s.transport)
        };
        let shown_in_full = |s: &&ScenarioReport| {
            s.status == Status::Failed
                || (s.status == Status::Error && !never_started(s))
                || (self.strict && s.status == Status::NotMet)
        };
        let mut full: Vec<&ScenarioReport> = self.scenarios.iter().filter(shown_in_full).collect();
        full.sort_by_key(|s| (s.status != Status::Failed, s.file.clone(), s.line));
        let mut tails = TailsShown::default();
        for scenario in full {
            let failure = scenario.failure.clone().unwrap_or_default();
            let _ = writeln!(
                out,
                "\n{} {}\n{}",
                style.status(scenario.status),
                style.bold(&scenario.title()),
                indent(&failure_text(scenario, &failure, Some(&mut tails)), "    ")
            );
        }

        let brief = |status: Status, heading: &str, out: &mut String| {
            let listed: Vec<_> = self
                .scenarios
                .iter()
                .filter(|s| s.status == status)
                .collect();
            if listed.is_empty() {
                return;
            }
            let _ = writeln!(out, "\n{heading}:");
            for s in listed {
                let why = match status {
                    Status::Expected => s.expected.as_deref().unwrap_or_default(),
                    _ => s.summary().unwrap_or_default(),
                };
                let _ = writeln!(
                    out,
                    "  {} {}\n      {}",
                    style.status(status),
                    s.title(),
                    style.dim(&format!("{} · {why}", s.place()))
                );
            }
        };
        if !self.strict {
            brief(
                Status::NotMet,
                "Recommended rules not met (reported apart; they fail a run only with --strict)",
                &mut out,
            );
        }
        brief(
            Status::Expected,
            "Expected failures (listed with --expected-failures)",
            &mut out,
        );
        brief(
            Status::NotJudged,
            "Not judged (their rule could not be seen; the rule named judges the cause)",
            &mut out,
        );
        self.not_run_lines(&mut out);
        for entry in self.stale() {
            let _ = writeln!(
                out,
                "\n{} {} passes now: remove it from {}",
                style.status(Status::Failed),
                entry.key,
                entry.place
            );
        }
        for problem in &self.problems {
            let _ = writeln!(out, "\n{} {problem}", style.status(Status::Error));
        }
        for cause in &self.never_started {
            let count = self
                .scenarios
                .iter()
                .filter(|s| s.transport == cause.transport && never_started(s))
                .count();
            let _ = writeln!(
                out,
                "\n{} {}\n{}\n{count} scenario(s) over {} not judged for this reason",
                style.status(Status::Error),
                cause.headline(),
                indent(&cause.details(), "    "),
                cause.transport
            );
        }
        if self.relaunched > 0 {
            let _ = writeln!(
                out,
                "\n{} launch(es) stayed silent through the start-up window and were made once \
                 more, with twice the window (a busy machine? see --start-timeout and --launches)",
                self.relaunched
            );
        }
        if self.launches > 0 {
            let _ = writeln!(
                out,
                "\n{} gateway launch(es) for {} scenario(s); {} served by a gateway kept from an \
                 earlier scenario with the same document (--isolate: one launch per scenario)",
                self.launches,
                self.scenarios.len(),
                self.reused
            );
        }
        out.push_str(&self.section_table(style));
        let verdict = self.verdict();
        let _ = writeln!(out, "\n{}", self.kit.describe());
        for reason in &verdict.reasons {
            let _ = writeln!(out, "run {}: {reason}", verdict.outcome);
        }
        out
    }

    /// Scenarios not run, counted by reason, not listed one by one.
    fn not_run_lines(&self, out: &mut String) {
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for scenario in self.scenarios.iter().filter(|s| s.status == Status::NotRun) {
            let reason = scenario.summary().unwrap_or("not run");
            match reasons.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, count)) => *count += 1,
                None => reasons.push((reason, 1)),
            }
        }
        for (reason, count) in reasons {
            let _ = writeln!(out, "\n{count} scenario(s) not run: {reason}");
        }
    }

    /// One line per section: rules passed, by level, and what else happened.
    fn section_table(&self, style: Style) -> String {
        let rules = self.rules();
        let mut out = format!(
            "\n{:<28} {:>9} {:>12}  {}\n",
            "section", "required", "recommended", "not passing"
        );
        let mut sections: Vec<String> = Catalogue::embedded()
            .sections
            .iter()
            .map(|s| s.name.clone())
            .collect();
        for rule in &rules {
            if !sections.iter().any(|s| s == rule.section()) {
                sections.push(rule.section().to_owned());
            }
        }
        for section in sections {
            let in_section: Vec<_> = rules.iter().filter(|r| r.section() == section).collect();
            if in_section.is_empty() {
                continue;
            }
            let share = |level: Level| {
                let of_level: Vec<_> = in_section.iter().filter(|r| r.level == level).collect();
                let passed = of_level
                    .iter()
                    .filter(|r| r.status == Status::Passed)
                    .count();
                if of_level.is_empty() {
                    "-".to_owned()
                } else {
                    format!("{passed}/{}", of_level.len())
                }
            };
            let not_passing: Vec<String> = in_section
                .iter()
                .filter(|r| r.status != Status::Passed)
                .map(|r| format!("{} {}", r.id, style.status(r.status).to_lowercase()))
                .collect();
            let _ = writeln!(
                out,
                "{:<28} {:>9} {:>12}  {}",
                section,
                share(Level::Required),
                share(Level::Recommended),
                not_passing.join(", ")
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::*;

    #[test]
    fn shows_failures_in_full_and_the_rest_in_brief() {
        let mut failed = scenario("TC-NAME-001", Level::Required, Status::Failed);
        failed.failure = Some(Failure {
            summary: "expected the tools [\"a\"]".into(),
            step: Some("Then the tools are, in order:".into()),
            step_line: Some(9),
            message: "expected the tools [\"a\"], the gateway lists [\"b\"]".into(),
            upstream: vec!["GET /pets\naccept: */*".into()],
            stderr: (1..=30).map(|n| format!("log {n}\n")).collect(),
            ..Failure::default()
        });
        let s = summary(vec![
            failed,
            scenario("TC-NAME-008", Level::Recommended, Status::NotMet),
            scenario("TC-PROTO-001", Level::Required, Status::NotRun),
        ]);
        let text = s.terminal(Style { colour: false });
        assert!(
            text.contains("FAILED TC-NAME-001: checks TC-NAME-001"),
            "{text}"
        );
        assert!(text.contains("features/names.feature:3 (over http)"));
        assert!(text.contains("step (line 9): Then the tools are, in order:"));
        assert!(text.contains("the gateway lists [\"b\"]"));
        assert!(text.contains("the upstream received 1 request(s):"));
        assert!(text.contains("(last 12 of 30 lines)"));
        assert!(text.contains("log 30") && !text.contains("log 18\n"));
        assert!(text.contains("Recommended rules not met"));
        assert!(text.contains("1 scenario(s) not run: went wrong"));
        assert!(text.contains("Tools and their names"));
        assert!(!text.contains("\x1b["));
    }

    #[test]
    fn a_stderr_tail_is_the_same_whatever_its_numbers() {
        let mut tails = TailsShown::default();
        let first = "2026-12-03T10:36:39.685542Z INFO call status=500 ms=2.0";
        let slower = "2026-12-03T10:36:40.702505Z INFO call status=500 ms=32.1";
        assert_eq!(tails.shown_by(first, "first"), None);
        assert_eq!(tails.shown_by(slower, "second").as_deref(), Some("first"));
        let other = "2026-12-03T10:36:40.702505Z WARN call status=500 ms=32.1";
        assert_eq!(tails.shown_by(other, "third"), None);
    }
}
