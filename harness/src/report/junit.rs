//! JUnit XML: one test suite per section, one test case per scenario, named
//! by its rule IDs so CI dashboards show which rule broke.
//!
//! Only a broken required rule is a `<failure>`; a scenario that could not be
//! judged (the gateway did not start) is an `<error>`. Recommended rules not
//! met, expected failures and scenarios not run are `<skipped>` with the
//! reason, so they never fail a CI job (with `--strict`, recommended misses
//! are failures).

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::summary::{ScenarioReport, Status, Summary};

impl Summary {
    /// The run as a JUnit XML document.
    pub fn junit(&self) -> anyhow::Result<String> {
        let mut report = Report::new(format!("{} {}", self.kit.name, self.kit.version));
        let mut suites: Vec<TestSuite> = Vec::new();
        let started = self
            .started
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
        for scenario in &self.scenarios {
            let mut case = TestCase::new(self.case_name(scenario), self.junit_status(scenario));
            case.set_classname(format!("{}.{}", scenario.level.name(), scenario.section));
            case.set_time(std::time::Duration::from_secs_f64(
                scenario.seconds.max(0.0),
            ));
            // Where CI tools link a test case to its source.
            case.extra
                .insert("file".into(), scenario.file.as_str().into());
            case.extra
                .insert("line".into(), scenario.line.to_string().into());
            let index = match suites
                .iter()
                .position(|s| s.name.as_str() == scenario.section)
            {
                Some(index) => index,
                None => {
                    let mut suite = TestSuite::new(scenario.section.as_str());
                    // The Ant/Jenkins schema has a timestamp per suite only.
                    if let Some(started) = started {
                        suite.set_timestamp(started);
                    }
                    suites.push(suite);
                    suites.len() - 1
                }
            };
            suites[index].add_test_case(case);
        }
        for suite in &mut suites {
            let seconds = suite.test_cases.iter().filter_map(|c| c.time).sum();
            suite.set_time(seconds);
        }
        let seconds = suites.iter().filter_map(|s| s.time).sum();
        report.set_time(seconds);
        report.add_test_suites(suites);
        Ok(without_root_skipped(&report.to_string()?))
    }

    /// A test case's name, unique in the report as CI tools need: the title,
    /// with its place and transport when another scenario has the same title
    /// (the examples of an outline whose name has no placeholder, or one
    /// scenario run over both transports).
    fn case_name(&self, scenario: &ScenarioReport) -> String {
        let title = scenario.title();
        let shared = self
            .scenarios
            .iter()
            .filter(|s| s.title() == title)
            .nth(1)
            .is_some();
        if shared {
            format!("{title} ({} over {})", scenario.place(), scenario.transport)
        } else {
            title
        }
    }

    fn junit_status(&self, scenario: &ScenarioReport) -> TestCaseStatus {
        let summary = scenario.summary().unwrap_or_default();
        let description = scenario
            .failure
            .as_ref()
            .map(|f| super::terminal::failure_text(scenario, f, None))
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

/// quick-junit writes `skipped` on `<testsuites>`, which the Ant/Jenkins
/// schema (`tests/junit/junit-9.xsd`) does not allow there; the counts stay
/// on each `<testsuite>`.
fn without_root_skipped(xml: &str) -> String {
    let Some(start) = xml.find("<testsuites") else {
        return xml.to_owned();
    };
    let end = xml[start..].find('>').map_or(xml.len(), |e| start + e);
    let root = &xml[start..end];
    let Some(at) = root.find(" skipped=\"") else {
        return xml.to_owned();
    };
    let value_end = root[at + 10..]
        .find('"')
        .map_or(root.len(), |e| at + 10 + e + 1);
    format!(
        "{}{}{}",
        &xml[..start + at],
        &root[value_end..],
        &xml[end..]
    )
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
