//! JUnit XML: one test suite per feature, one test case per scenario, named
//! by its rule IDs so CI dashboards show which rule broke.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{Outcome, Summary};

impl Summary {
    /// The run as a JUnit XML document.
    pub fn junit(&self) -> anyhow::Result<String> {
        let mut report = Report::new("hosted-mcp-conformance");
        let mut suites: Vec<TestSuite> = Vec::new();
        for scenario in &self.scenarios {
            let status = match &scenario.outcome {
                Outcome::Passed => TestCaseStatus::success(),
                Outcome::Failed(message) | Outcome::Skipped(message) => {
                    let mut status = TestCaseStatus::non_success(if scenario.recommended {
                        // A recommended rule is a warning unless the run is strict;
                        // `error` keeps it visible without reading as a broken requirement.
                        NonSuccessKind::Error
                    } else {
                        NonSuccessKind::Failure
                    });
                    status
                        .set_message(message.lines().next().unwrap_or_default())
                        .set_description(message.as_str())
                        .set_type(scenario.outcome.label());
                    status
                }
            };
            let mut case = TestCase::new(scenario.title(), status);
            case.set_classname(format!("{}.{}", scenario.level(), scenario.feature));
            let suite_name = scenario.file.as_deref().unwrap_or(&scenario.feature);
            let index = match suites.iter().position(|s| s.name.as_str() == suite_name) {
                Some(index) => index,
                None => {
                    suites.push(TestSuite::new(suite_name));
                    suites.len() - 1
                }
            };
            suites[index].add_test_case(case);
        }
        report.add_test_suites(suites);
        Ok(report.to_string()?)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ScenarioReport;
    use super::*;

    #[test]
    fn one_suite_per_feature_and_one_case_per_scenario() {
        let case = |file: &str, outcome| ScenarioReport {
            feature: "F".into(),
            file: Some(file.into()),
            name: "n".into(),
            line: 1,
            rules: vec!["TC-NAME-007".into()],
            recommended: false,
            outcome,
        };
        let summary = Summary {
            scenarios: vec![
                case("a.feature", Outcome::Passed),
                case("a.feature", Outcome::Failed("bad <name>".into())),
                case("b.feature", Outcome::Passed),
            ],
            parse_errors: vec![],
        };
        let xml = summary.junit().unwrap();
        assert_eq!(xml.matches("<testsuite ").count(), 2);
        assert_eq!(xml.matches("<testcase ").count(), 3);
        assert!(xml.contains(r#"name="TC-NAME-007: n""#));
        assert!(xml.contains("bad &lt;name&gt;"));
    }
}
