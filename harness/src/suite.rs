//! The scenarios a folder of features holds, by name and rule: what a
//! baseline entry may name. Read before a run, so that a line naming
//! nothing is refused at once rather than after the run.

use std::{collections::BTreeSet, path::Path};

use anyhow::Context as _;
use cucumber::{feature::Ext as _, gherkin};

use crate::tags;

/// Scenario names (outlines expanded) and rule IDs of a suite.
#[derive(Debug, Clone, Default)]
pub struct Suite {
    pub scenarios: BTreeSet<String>,
    pub rules: BTreeSet<String>,
}

impl Suite {
    /// Every `.feature` file under `folder` (or the one file it names, as
    /// `--features` may), as cucumber reads them.
    pub fn read(folder: &Path) -> anyhow::Result<Self> {
        let mut suite = Self::default();
        if folder.is_file() {
            suite.read_file(folder)?;
        } else {
            suite.read_folder(folder)?;
        }
        Ok(suite)
    }

    fn read_folder(&mut self, folder: &Path) -> anyhow::Result<()> {
        let entries = std::fs::read_dir(folder)
            .with_context(|| format!("cannot read the features in {}", folder.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                self.read_folder(&path)?;
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("feature"))
            {
                self.read_file(&path)?;
            }
        }
        Ok(())
    }

    fn read_file(&mut self, path: &Path) -> anyhow::Result<()> {
        let feature = gherkin::Feature::parse_path(path, gherkin::GherkinEnv::default())
            .map_err(anyhow::Error::from)
            .and_then(|f| Ok(f.expand_examples()?))
            .with_context(|| format!("cannot read {}", path.display()))?;
        self.add(&feature);
        Ok(())
    }

    fn add(&mut self, feature: &gherkin::Feature) {
        let in_rules = feature
            .rules
            .iter()
            .flat_map(|rule| rule.scenarios.iter().map(move |s| (Some(rule), s)));
        for (rule, scenario) in feature.scenarios.iter().map(|s| (None, s)).chain(in_rules) {
            self.scenarios.insert(scenario.name.clone());
            self.rules.extend(tags::rules_of(feature, rule, scenario));
        }
    }

    /// Adds what reports hold (a suite read elsewhere, for `merge`).
    pub fn extend<'a>(&mut self, scenarios: impl IntoIterator<Item = (&'a str, &'a [String])>) {
        for (name, rules) in scenarios {
            self.scenarios.insert(name.to_owned());
            self.rules.extend(rules.iter().cloned());
        }
    }
}
