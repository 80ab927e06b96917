//! JUnit XML: one test suite per section, one test case per scenario, named
//! by its rule IDs so CI dashboards show which rule broke.
//!
//! Only a broken required rule is a `<failure>`; a scenario that could not be
//! judged (the gateway did not start) is an `<error>`. Recommended rules not
//! met, expected failures and scenarios not run are `<skipped>` with the
//! reason, so they never fail a CI job (with `--strict`, recommended misses
//! are failures).

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{ScenarioReport, Status, Summary};

impl Summary {
    /// The run as a JUnit XML document.
    pub fn junit(&self) -> anyhow::Result<String> {
        let mut report = Report::new(format!("{} {}", self.kit.name, self.kit.version));
        let mut suites: Vec<TestSuite> = Vec::new();
        for scenario in &self.scenarios {
            let mut case = TestCase::new(scenario.title(), self.junit_status(scenario));
            case.set_classname(format!("{}.{}", scenario.level.name(), scenario.section));
            case.set_time(std::time::Duration::from_secs_f64(
                scenario.seconds.max(0.0),
            ));
            let index = match suites
                .iter()
                .position(|s| s.name.as_str() == scenario.section)
            {
                Some(index) => index,
                None => {
                    suites.push(TestSuite::new(scenario.section.as_str()));
                    suites.len() - 1
                }
            };
            suites[index].add_test_case(case);
        }
        report.add_test_suites(suites);
        Ok(report.to_string()?)
    }

    fn junit_status(&self, scenario: &ScenarioReport) -> TestCaseStatus {
        let summary = scenario.summary().unwrap_or_default();
        let description = scenario
            .failure
            .as_ref()
            .map(|f| super::terminal::failure_text(scenario, f))
            .unwrap_or_default();
        let non_success = |kind: NonSuccessKind, label: &str| {
            let mut status = TestCaseStatus::non_success(kind);
            status
                .set_message(summary)
                .set_description(description.as_str())
                .set_type(label);
            status
        };
        let skipped = |message: String| {
            let mut status = TestCaseStatus::skipped();
            status.set_message(message);
            status
        };
        match scenario.status {
            Status::Passed => TestCaseStatus::success(),
            Status::Failed => non_success(NonSuccessKind::Failure, "failed"),
            Status::NotMet if self.strict => {
                non_success(NonSuccessKind::Failure, "recommended rule not met")
            }
            Status::NotMet => skipped(format!("recommended rule not met: {summary}")),
            Status::Error => non_success(NonSuccessKind::Error, "error"),
            Status::Expected => skipped(format!(
                "expected failure ({}): {summary}",
                scenario.expected.as_deref().unwrap_or_default()
            )),
            Status::NotRun => skipped(format!("not run: {summary}")),
            Status::NotJudged => skipped(summary.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::*;
    use crate::catalogue::Level;

    #[test]
    fn only_broken_required_rules_are_failures() {
        let mut s = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Passed),
            scenario("TC-NAME-002", Level::Required, Status::Failed),
            scenario("TC-NAME-008", Level::Recommended, Status::NotMet),
            scenario("TC-NAME-003", Level::Required, Status::Error),
            scenario("TC-NAME-004", Level::Required, Status::NotRun),
            scenario("TC-NAME-005", Level::Required, Status::NotJudged),
        ]);
        s.scenarios[1].failure.as_mut().unwrap().summary = "bad <name>".into();
        s.scenarios[5].failure.as_mut().unwrap().summary =
            "not judged: no extension names a tool; TC-NAME-003 judges that".into();
        let xml = s.junit().unwrap();
        assert_eq!(xml.matches("<testsuite ").count(), 1);
        assert_eq!(xml.matches("<testcase ").count(), 6);
        assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
        assert_eq!(xml.matches("<error").count(), 1, "{xml}");
        assert_eq!(xml.matches("<skipped").count(), 3, "{xml}");
        assert!(xml.contains("not judged: no extension names a tool; TC-NAME-003 judges that"));
        assert!(xml.contains(r#"name="TC-NAME-002: checks TC-NAME-002""#));
        assert!(xml.contains("bad &lt;name&gt;"));

        s.strict = true;
        assert_eq!(s.junit().unwrap().matches("<failure").count(), 2);
    }
}
