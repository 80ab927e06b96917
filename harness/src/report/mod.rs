//! What a run found, per scenario and per rule, and what it means for the
//! exit status. Kept apart from the steps: the [`Recorder`] watches
//! cucumber's events and fills a [`Summary`]; the renderers (terminal,
//! JUnit, JSON, HTML) only read it. The JSON report is a `Summary` written
//! out, so shards of a run can be read back and merged.

mod badge;
mod expected;
pub mod field;
mod html;
mod json;
mod junit;
mod markdown;
mod merge;
pub mod recorder;
pub(crate) mod summary;
pub mod terminal;

pub use expected::ExpectedFailures;
pub use html::DocsUrl;
pub use recorder::{Progress, Recorder};
pub use summary::{
    Counts, Elsewhere, ExpectedEntry, Failure, KitInfo, NeverStarted, RuleReport, ScenarioReport,
    Shard, Status, Summary, Verdict, EXIT_ERROR, EXIT_FAILED, EXIT_PASSED, EXIT_USAGE,
};

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::catalogue::Level;

    pub fn scenario(rule: &str, level: Level, status: Status) -> ScenarioReport {
        ScenarioReport {
            section: "Tools and their names".into(),
            file: "features/names.feature".into(),
            line: 3,
            name: format!("checks {rule}"),
            rules: vec![rule.into()],
            level,
            transport: "http".into(),
            status,
            failure: (status != Status::Passed).then(|| Failure {
                summary: "went wrong".into(),
                ..Failure::default()
            }),
            expected: None,
            observed: None,
            seconds: 0.1,
            codes: Vec::new(),
        }
    }

    pub fn summary(scenarios: Vec<ScenarioReport>) -> Summary {
        let mut summary = Summary::new(BTreeMap::new(), false);
        summary.scenarios = scenarios;
        summary
    }

    #[test]
    fn a_masked_summary_shows_the_secret_nowhere() {
        let mut failed = scenario("TC-REQ-009", Level::Required, Status::Failed);
        if let Some(failure) = failed.failure.as_mut() {
            failure.summary = "upstream got Bearer AGENT-CLIENT-42".into();
        }
        let mut s = summary(vec![failed]);
        s.gateway
            .insert("http".into(), "gw --key AGENT-CLIENT-42".into());
        let masked = s.masked("AGENT-CLIENT-42", "[client credential]").unwrap();
        let text = masked.json().to_string();
        assert!(!text.contains("AGENT-CLIENT-42"), "{text}");
        assert!(
            text.contains("upstream got Bearer [client credential]"),
            "{text}"
        );
        assert_eq!(masked.scenarios.len(), 1);
    }

    #[test]
    fn zero_scenarios_are_an_error_never_a_pass() {
        let verdict = summary(vec![]).verdict();
        assert_eq!(verdict.exit_code, EXIT_ERROR);
        assert_eq!(verdict.reasons, ["no scenario ran"]);
        let only_not_run = summary(vec![scenario(
            "TC-PROTO-001",
            Level::Required,
            Status::NotRun,
        )]);
        assert_eq!(only_not_run.verdict().exit_code, EXIT_ERROR);
    }

    #[test]
    fn recommended_misses_fail_only_when_strict() {
        let mut s = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Passed),
            scenario("TC-NAME-008", Level::Recommended, Status::NotMet),
        ]);
        assert_eq!(s.verdict().exit_code, EXIT_PASSED);
        assert_eq!(s.last_line(), "1 passed, 0 failed, 1 recommended not met");
        s.strict = true;
        assert_eq!(s.verdict().exit_code, EXIT_FAILED);
        assert_eq!(s.last_line(), "1 passed, 1 failed");
    }

    #[test]
    fn failures_outrank_errors_and_errors_outrank_passes() {
        let failed = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Failed),
            scenario("TC-NAME-002", Level::Required, Status::Error),
        ]);
        assert_eq!(failed.verdict().exit_code, EXIT_FAILED);
        let errored = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Passed),
            scenario("TC-NAME-002", Level::Required, Status::Error),
        ]);
        assert_eq!(errored.verdict().exit_code, EXIT_ERROR);
        assert_eq!(errored.verdict().outcome, "error");
    }

    #[test]
    fn not_judged_is_counted_apart_and_fails_nothing() {
        let s = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Passed),
            scenario("TC-NAME-004", Level::Required, Status::NotJudged),
        ]);
        assert_eq!(s.counts().not_judged, 1);
        assert_eq!(s.last_line(), "1 passed, 0 failed, 1 not judged");
        assert_eq!(s.verdict().exit_code, EXIT_PASSED);
        let rules = s.rules();
        assert_eq!(rules[1].status, Status::NotJudged);
        // A run that judged nothing has not passed.
        let nothing = summary(vec![scenario(
            "TC-NAME-004",
            Level::Required,
            Status::NotJudged,
        )]);
        assert_eq!(nothing.verdict().exit_code, EXIT_ERROR);
        assert_eq!(nothing.verdict().reasons, ["no scenario was judged"]);
    }

    #[test]
    fn a_rule_with_a_scenario_not_run_has_not_passed() {
        let mut stdio = scenario("TC-PROTO-001", Level::Required, Status::NotRun);
        stdio.line = 30;
        let s = summary(vec![
            scenario("TC-PROTO-001", Level::Required, Status::Passed),
            stdio,
        ]);
        let rules = s.rules();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].status, Status::NotRun);
        assert_eq!(rules[0].section(), "Protocol");
        // Not run is reported, not a failure: the run itself passes.
        assert_eq!(s.verdict().exit_code, EXIT_PASSED);
    }
}
