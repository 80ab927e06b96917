//! What a run found, per scenario and per rule, and what it means for the
//! exit status. Kept apart from the steps: the [`Recorder`] watches
//! cucumber's events, and a [`Summary`] renders them.

mod junit;
mod recorder;

use std::{collections::BTreeMap, fmt::Write as _};

use serde_json::{json, Value};

pub use recorder::Recorder;

/// The tag that marks a recommended rule's scenario.
const RECOMMENDED_TAG: &str = "recommended";
/// Rule IDs are tags with this prefix (`@TC-NAME-007`).
const RULE_PREFIX: &str = "TC-";

/// How one scenario ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// A step or hook failed, with its message.
    Failed(String),
    /// A step had no definition, so the scenario proved nothing.
    Skipped(String),
}

impl Outcome {
    fn label(&self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed(_) => "failed",
            Self::Skipped(_) => "skipped",
        }
    }

    fn message(&self) -> Option<&str> {
        match self {
            Self::Passed => None,
            Self::Failed(m) | Self::Skipped(m) => Some(m),
        }
    }
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioReport {
    /// The feature's name.
    pub feature: String,
    /// The feature file, as cucumber found it.
    pub file: Option<String>,
    /// The scenario's name (outline placeholders filled in).
    pub name: String,
    pub line: usize,
    /// Rule IDs from its tags, e.g. `TC-NAME-007`.
    pub rules: Vec<String>,
    /// Tagged `@recommended`: failing it fails a run only with `--strict`.
    pub recommended: bool,
    pub outcome: Outcome,
}

impl ScenarioReport {
    pub(crate) fn new(
        feature: &cucumber::gherkin::Feature,
        scenario: &cucumber::gherkin::Scenario,
    ) -> Self {
        let tags = || feature.tags.iter().chain(&scenario.tags);
        let mut rules: Vec<String> = tags()
            .filter(|t| t.starts_with(RULE_PREFIX))
            .cloned()
            .collect();
        rules.sort();
        rules.dedup();
        Self {
            feature: feature.name.clone(),
            file: feature.path.as_ref().map(|p| p.display().to_string()),
            name: scenario.name.clone(),
            line: scenario.position.line,
            rules,
            recommended: tags().any(|t| t == RECOMMENDED_TAG),
            outcome: Outcome::Passed,
        }
    }

    fn level(&self) -> &'static str {
        if self.recommended {
            "recommended"
        } else {
            "required"
        }
    }

    /// How the scenario is named in reports: its rules, then its name.
    fn title(&self) -> String {
        if self.rules.is_empty() {
            self.name.clone()
        } else {
            format!("{}: {}", self.rules.join(" "), self.name)
        }
    }
}

/// Everything a run found.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub scenarios: Vec<ScenarioReport>,
    /// Feature files that could not be read or parsed.
    pub parse_errors: Vec<String>,
}

/// One rule's result, over all its scenarios.
struct RuleReport<'a> {
    id: &'a str,
    recommended: bool,
    scenarios: Vec<&'a ScenarioReport>,
}

impl RuleReport<'_> {
    fn passed(&self) -> bool {
        self.scenarios.iter().all(|s| s.outcome == Outcome::Passed)
    }

    fn level(&self) -> &'static str {
        if self.recommended {
            "recommended"
        } else {
            "required"
        }
    }
}

impl Summary {
    pub fn passed(&self) -> usize {
        self.scenarios
            .iter()
            .filter(|s| s.outcome == Outcome::Passed)
            .count()
    }

    /// Failed and skipped scenarios.
    pub fn failed(&self) -> usize {
        self.scenarios.len() - self.passed()
    }

    /// Why the run fails, if it does; empty means success.
    pub fn verdict(&self, strict: bool) -> Vec<String> {
        let mut reasons = Vec::new();
        if !self.parse_errors.is_empty() {
            reasons.push(format!(
                "{} feature file(s) could not be parsed",
                self.parse_errors.len()
            ));
        }
        if self.scenarios.is_empty() {
            reasons.push("no scenario ran".to_owned());
        }
        let skipped = self
            .scenarios
            .iter()
            .filter(|s| matches!(s.outcome, Outcome::Skipped(_)))
            .count();
        let failed = |recommended: bool| {
            self.scenarios
                .iter()
                .filter(|s| s.recommended == recommended && matches!(s.outcome, Outcome::Failed(_)))
                .count()
        };
        if skipped > 0 {
            reasons.push(format!(
                "{skipped} scenario(s) skipped: a step has no definition"
            ));
        }
        if failed(false) > 0 {
            reasons.push(format!("{} required scenario(s) failed", failed(false)));
        }
        if strict && failed(true) > 0 {
            reasons.push(format!(
                "{} recommended scenario(s) failed (--strict)",
                failed(true)
            ));
        }
        reasons
    }

    fn rules(&self) -> Vec<RuleReport<'_>> {
        let mut rules: BTreeMap<&str, RuleReport<'_>> = BTreeMap::new();
        for scenario in &self.scenarios {
            for id in &scenario.rules {
                let rule = rules.entry(id).or_insert_with(|| RuleReport {
                    id,
                    recommended: false,
                    scenarios: Vec::new(),
                });
                rule.recommended |= scenario.recommended;
                rule.scenarios.push(scenario);
            }
        }
        rules.into_values().collect()
    }

    /// The per-rule table printed at the end of a run.
    pub fn table(&self, strict: bool) -> String {
        let mut out = String::new();
        let rules = self.rules();
        let _ = writeln!(
            out,
            "\n{:<16} {:<12} {:<8} scenarios passed",
            "rule", "level", "result"
        );
        for rule in &rules {
            let passed = rule
                .scenarios
                .iter()
                .filter(|s| s.outcome == Outcome::Passed)
                .count();
            let _ = writeln!(
                out,
                "{:<16} {:<12} {:<8} {passed}/{}",
                rule.id,
                rule.level(),
                if rule.passed() { "passed" } else { "FAILED" },
                rule.scenarios.len()
            );
        }
        let unruled = self.scenarios.iter().filter(|s| s.rules.is_empty()).count();
        if unruled > 0 {
            let _ = writeln!(out, "({unruled} scenario(s) carry no rule ID)");
        }
        let failing: Vec<_> = self
            .scenarios
            .iter()
            .filter(|s| s.outcome != Outcome::Passed)
            .collect();
        for (heading, recommended) in [("Required", false), ("Recommended", true)] {
            let list: Vec<_> = failing
                .iter()
                .filter(|s| s.recommended == recommended)
                .collect();
            if list.is_empty() {
                continue;
            }
            let note = if recommended && !strict {
                " (reported apart; they fail the run only with --strict)"
            } else {
                ""
            };
            let _ = writeln!(out, "\n{heading} scenarios not passing{note}:");
            for s in list {
                let first_line = s
                    .outcome
                    .message()
                    .and_then(|m| m.lines().next())
                    .unwrap_or("");
                let _ = writeln!(
                    out,
                    "  {} [{}] {}:{}\n      {first_line}",
                    s.title(),
                    s.outcome.label(),
                    s.file.as_deref().unwrap_or(&s.feature),
                    s.line
                );
            }
        }
        for error in &self.parse_errors {
            let _ = writeln!(out, "\nfeature file error: {error}");
        }
        out
    }

    /// The JSON report: counts, verdict, and each rule with its scenarios.
    pub fn json(&self, strict: bool) -> Value {
        let scenario = |s: &ScenarioReport| {
            json!({
                "feature": s.feature,
                "file": s.file,
                "name": s.name,
                "line": s.line,
                "level": s.level(),
                "status": s.outcome.label(),
                "message": s.outcome.message(),
            })
        };
        let verdict = self.verdict(strict);
        json!({
            "passed": self.passed(),
            "failed": self.failed(),
            "strict": strict,
            "success": verdict.is_empty(),
            "reasons": verdict,
            "rules": self.rules().iter().map(|rule| json!({
                "id": rule.id,
                "level": rule.level(),
                "status": if rule.passed() { "passed" } else { "failed" },
                "scenarios": rule.scenarios.iter().map(|s| scenario(s)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "scenarios_without_rule": self.scenarios.iter().filter(|s| s.rules.is_empty()).map(scenario).collect::<Vec<_>>(),
            "parse_errors": self.parse_errors,
        })
    }

    /// The last line of a run, for CI to read.
    pub fn last_line(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(rule: &str, recommended: bool, outcome: Outcome) -> ScenarioReport {
        ScenarioReport {
            feature: "Names".into(),
            file: Some("features/names.feature".into()),
            name: format!("checks {rule}"),
            line: 3,
            rules: vec![rule.into()],
            recommended,
            outcome,
        }
    }

    fn summary(scenarios: Vec<ScenarioReport>) -> Summary {
        Summary {
            scenarios,
            parse_errors: vec![],
        }
    }

    #[test]
    fn zero_scenarios_fail_the_run() {
        assert_eq!(summary(vec![]).verdict(false), ["no scenario ran"]);
        assert_eq!(summary(vec![]).last_line(), "0 passed, 0 failed");
    }

    #[test]
    fn recommended_failures_fail_only_when_strict() {
        let s = summary(vec![
            scenario("TC-NAME-001", false, Outcome::Passed),
            scenario("TC-NAME-008", true, Outcome::Failed("boom".into())),
        ]);
        assert!(s.verdict(false).is_empty());
        assert_eq!(
            s.verdict(true),
            ["1 recommended scenario(s) failed (--strict)"]
        );
        assert_eq!(s.last_line(), "1 passed, 1 failed");
        assert!(s.table(false).contains("only with --strict"));
    }

    #[test]
    fn required_failures_and_skips_fail_the_run() {
        let failed = summary(vec![scenario(
            "TC-NAME-001",
            false,
            Outcome::Failed("x".into()),
        )]);
        assert_eq!(failed.verdict(false), ["1 required scenario(s) failed"]);
        let skipped = summary(vec![scenario(
            "TC-NAME-008",
            true,
            Outcome::Skipped("no step".into()),
        )]);
        assert_eq!(
            skipped.verdict(false),
            ["1 scenario(s) skipped: a step has no definition"]
        );
    }

    #[test]
    fn json_groups_scenarios_by_rule() {
        let mut both = scenario("TC-ARG-001", false, Outcome::Passed);
        both.rules.push("TC-ARG-002".into());
        let s = summary(vec![
            both,
            scenario("TC-ARG-002", false, Outcome::Failed("bad".into())),
        ]);
        let json = s.json(false);
        assert_eq!(json["rules"][0]["id"], "TC-ARG-001");
        assert_eq!(json["rules"][0]["status"], "passed");
        assert_eq!(json["rules"][1]["status"], "failed");
        assert_eq!(
            json["rules"][1]["scenarios"].as_array().map(Vec::len),
            Some(2)
        );
        assert_eq!(json["success"], false);
    }
}
