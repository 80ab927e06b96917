//! `--expected-failures FILE`: failures a gateway's maintainers know of and
//! accept for now, each with a reason. Listed failures do not fail the run;
//! a listed one that passes fails it as stale, so the list only shrinks.
//!
//! The file has one entry per line, `KEY -- REASON`, where KEY is a rule ID
//! (`TC-ANS-002`, covering all its scenarios) or a scenario's name exactly
//! as reports show it. `#` starts a comment line; blank lines are ignored.
//! An entry covers its scenarios that fail and those that could not be
//! judged (the gateway did not start on their document, say). A key that
//! names no rule and no scenario of the suite is refused, as a typo would
//! otherwise hide a failure for good.
//!
//! A shard (`--shard`) calls an entry stale only when every scenario the
//! entry covers ran in it; `merge` judges the others.

use std::path::Path;

use anyhow::{bail, Context as _};

use super::summary::{ExpectedEntry, ScenarioReport, Status, Summary};
use crate::{
    catalogue::{Catalogue, Level},
    suite::Suite,
};

/// The separator between an entry's key and its reason.
const SEPARATOR: &str = " -- ";

/// A parsed expected-failures file.
#[derive(Debug, Clone, Default)]
pub struct ExpectedFailures {
    pub entries: Vec<ExpectedEntry>,
}

impl ExpectedFailures {
    pub fn read(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the expected failures {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    pub fn parse(text: &str, origin: &str) -> anyhow::Result<Self> {
        let catalogue = Catalogue::embedded();
        let mut entries: Vec<ExpectedEntry> = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let place = format!("{origin}:{}", number + 1);
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key, reason)) = line.split_once(SEPARATOR) else {
                bail!("{place}: write `KEY -- REASON` (a rule ID or a scenario name, then why it fails)");
            };
            let (key, reason) = (key.trim(), reason.trim());
            if reason.is_empty() {
                bail!("{place}: {key} needs a reason after `--`");
            }
            if key.starts_with("TC-") && !key.contains(' ') && catalogue.rule(key).is_none() {
                bail!("{place}: {key} is not a rule of this kit's catalogue");
            }
            if let Some(earlier) = entries.iter().find(|e| e.key == key) {
                bail!("{place}: {key} is listed already at {}", earlier.place);
            }
            entries.push(ExpectedEntry {
                key: key.to_owned(),
                reason: reason.to_owned(),
                place,
            });
        }
        Ok(Self { entries })
    }

    /// Refuses an entry whose key names no rule and no scenario of `suite`.
    pub fn check(&self, suite: &Suite) -> anyhow::Result<()> {
        for entry in &self.entries {
            if !suite.rules.contains(&entry.key) && !suite.scenarios.contains(&entry.key) {
                bail!(
                    "{}: {:?} names no rule and no scenario of the suite (a scenario is named exactly as reports show it)",
                    entry.place,
                    entry.key
                );
            }
        }
        Ok(())
    }
}

impl Summary {
    /// Marks the listed failures as expected, and keeps the list so that
    /// stale entries fail the run (see [`Summary::stale`]).
    /// Judges the run again against `expected` alone, in place of the
    /// expected failures it was judged with: each scenario they listed shows
    /// what it observed again, then `expected` lists what it covers. So an
    /// edited baseline can be checked on a run without running it again.
    pub fn rebaseline(&mut self, expected: &[ExpectedEntry]) {
        for scenario in &mut self.scenarios {
            if scenario.status == Status::Expected {
                scenario.status = scenario.observed.take().unwrap_or(match scenario.level {
                    // Reports written before `observed` was kept.
                    Level::Recommended => Status::NotMet,
                    Level::Required => Status::Failed,
                });
                scenario.expected = None;
            }
        }
        self.expected_failures.clear();
        self.apply_expected(expected);
    }

    pub fn apply_expected(&mut self, expected: &[ExpectedEntry]) {
        for entry in expected {
            if !self.expected_failures.contains(entry) {
                self.expected_failures.push(entry.clone());
            }
        }
        for scenario in &mut self.scenarios {
            expect(&self.expected_failures, scenario);
        }
    }

    /// Judges a scenario that just finished against the expected failures,
    /// as the end of the run will, so the live progress agrees with it.
    pub(crate) fn expect(&self, scenario: &mut ScenarioReport) {
        expect(&self.expected_failures, scenario);
    }
}

/// Marks `scenario` an expected failure when an entry covers it and it did
/// not pass.
fn expect(entries: &[ExpectedEntry], scenario: &mut ScenarioReport) {
    // A listed scenario that could not be judged is covered too: a gateway
    // that crashes on one kind of document is not judged on the scenarios
    // that need it, and its maintainers list those.
    if !matches!(
        scenario.status,
        Status::Failed | Status::NotMet | Status::Expected | Status::Error
    ) {
        return;
    }
    if let Some(entry) = entries.iter().find(|e| e.matches(scenario)) {
        if scenario.status != Status::Expected {
            scenario.observed = Some(scenario.status);
        }
        scenario.status = Status::Expected;
        scenario.expected = Some(entry.reason.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::super::EXIT_FAILED;
    use super::super::EXIT_PASSED;
    use super::*;

    #[test]
    fn reads_keys_and_reasons() {
        let list = ExpectedFailures::parse(
            "# FastMCP\n\nTC-ANS-002 -- returns the body as sent\nA JSON body -- x -- y\n",
            "fastmcp.txt",
        )
        .unwrap();
        assert_eq!(list.entries.len(), 2);
        assert_eq!(list.entries[0].key, "TC-ANS-002");
        assert_eq!(list.entries[0].place, "fastmcp.txt:3");
        assert_eq!(list.entries[1].reason, "x -- y");
    }

    #[test]
    fn refuses_entries_without_reason_unknown_rules_and_repeats() {
        for text in [
            "TC-ANS-002",
            "TC-ANS-002 -- ",
            "TC-NOPE-001 -- why",
            "TC-ANS-002 -- a\nTC-ANS-002 -- b",
        ] {
            assert!(ExpectedFailures::parse(text, "f").is_err(), "{text}");
        }
    }

    #[test]
    fn listed_failures_pass_the_run_and_stale_ones_fail_it() {
        let list = ExpectedFailures::parse("TC-NAME-001 -- known", "f").unwrap();
        let mut s = summary(vec![scenario(
            "TC-NAME-001",
            Level::Required,
            Status::Failed,
        )]);
        s.apply_expected(&list.entries);
        assert_eq!(s.scenarios[0].status, Status::Expected);
        assert_eq!(s.scenarios[0].expected.as_deref(), Some("known"));
        assert_eq!(s.verdict().exit_code, EXIT_PASSED);

        let mut fixed = summary(vec![scenario(
            "TC-NAME-001",
            Level::Required,
            Status::Passed,
        )]);
        fixed.apply_expected(&list.entries);
        assert_eq!(fixed.stale().len(), 1);
        assert_eq!(fixed.verdict().exit_code, EXIT_FAILED);
        assert!(fixed.verdict().reasons[0].contains("TC-NAME-001"));

        // A listed rule that did not run in this shard is not stale.
        let mut elsewhere = summary(vec![scenario(
            "TC-NAME-002",
            Level::Required,
            Status::Passed,
        )]);
        elsewhere.apply_expected(&list.entries);
        assert!(elsewhere.stale().is_empty());
    }

    #[test]
    fn a_run_is_judged_again_against_another_list_alone() {
        let old = ExpectedFailures::parse("TC-NAME-001 -- old\nTC-DESC-005 -- old", "a").unwrap();
        let new = ExpectedFailures::parse("TC-NAME-002 -- new", "b").unwrap();
        let mut s = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Failed),
            scenario("TC-DESC-005", Level::Recommended, Status::NotMet),
            scenario("TC-NAME-002", Level::Required, Status::Failed),
        ]);
        s.apply_expected(&old.entries);
        let json = serde_json::to_string(&s.scenarios).unwrap();
        s.scenarios = serde_json::from_str(&json).unwrap();
        s.rebaseline(&new.entries);
        let statuses: Vec<Status> = s.scenarios.iter().map(|s| s.status).collect();
        assert_eq!(
            statuses,
            [Status::Failed, Status::NotMet, Status::Expected],
            "what each observed, then the new list"
        );
        assert_eq!(s.scenarios[0].expected, None);
        assert_eq!(s.scenarios[2].expected.as_deref(), Some("new"));
        assert_eq!(s.expected_failures, new.entries);
        assert_eq!(s.verdict().exit_code, EXIT_FAILED);
    }

    /// Issue 18: the rule's failing scenario ran in the other shard.
    #[test]
    fn a_shard_calls_an_entry_stale_only_when_it_ran_all_the_entry_covers() {
        let list = ExpectedFailures::parse("TC-NAME-001 -- known", "f").unwrap();
        let mut shard = summary(vec![scenario(
            "TC-NAME-001",
            Level::Required,
            Status::Passed,
        )]);
        shard.in_other_shards.push(super::super::Elsewhere {
            name: "fails over stdio".into(),
            rules: vec!["TC-NAME-001".into()],
        });
        shard.apply_expected(&list.entries);
        assert!(shard.stale().is_empty());
        assert_eq!(shard.verdict().exit_code, EXIT_PASSED);
        shard.in_other_shards[0].rules = vec!["TC-NAME-002".into()];
        assert_eq!(shard.stale().len(), 1);
    }

    #[test]
    fn refuses_keys_that_name_nothing_in_the_suite() {
        let suite = Suite {
            scenarios: ["A body comes back whole".to_owned()].into(),
            rules: ["TC-ANS-002".to_owned()].into(),
        };
        let good = "TC-ANS-002 -- a\nA body comes back whole -- b";
        assert!(ExpectedFailures::parse(good, "f")
            .unwrap()
            .check(&suite)
            .is_ok());
        let typo = ExpectedFailures::parse("TC-ANS-002 -- a\nA body comes back -- b", "f.txt")
            .unwrap()
            .check(&suite)
            .unwrap_err()
            .to_string();
        assert!(typo.starts_with("f.txt:2: "), "{typo}");
    }

    #[test]
    fn a_listed_scenario_that_could_not_be_judged_is_expected() {
        let list = ExpectedFailures::parse("TC-CHECK-003 -- crashes on false", "f").unwrap();
        let mut s = summary(vec![scenario(
            "TC-CHECK-003",
            Level::Required,
            Status::Error,
        )]);
        s.apply_expected(&list.entries);
        assert_eq!(s.scenarios[0].status, Status::Expected);
        assert_eq!(s.verdict().exit_code, EXIT_PASSED);
    }

    #[test]
    fn a_scenario_name_covers_that_scenario_only() {
        let list = ExpectedFailures::parse("checks TC-NAME-001 -- known", "f").unwrap();
        let mut s = summary(vec![
            scenario("TC-NAME-001", Level::Required, Status::Failed),
            scenario("TC-NAME-002", Level::Required, Status::Failed),
        ]);
        s.apply_expected(&list.entries);
        assert_eq!(s.scenarios[0].status, Status::Expected);
        assert_eq!(s.scenarios[1].status, Status::Failed);
    }
}
