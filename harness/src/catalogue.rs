//! The rules catalogue (`docs/rules.md`, embedded): each rule's level, the
//! section it belongs to, its wording and where it comes from in the spec.

use std::{collections::BTreeMap, sync::OnceLock};

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};

/// Whether breaking a rule fails a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Stated by the spec or settled by the clarifications: breaking it fails.
    Required,
    /// What the reference does beyond the spec: reported apart, fails only
    /// with `--strict`.
    Recommended,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::Recommended => "recommended",
        }
    }
}

/// One rule of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub id: String,
    pub level: Level,
    /// The catalogue's section, e.g. "The answer".
    pub section: String,
    /// The rule in the catalogue's words.
    pub statement: String,
    /// Where it comes from: sections of `tool-calls.md` and `clarifications.md`.
    pub source: String,
}

/// A section of the catalogue and the feature file that holds its scenarios.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub name: String,
    /// The feature file's name, e.g. `answer.feature`.
    pub feature: String,
}

/// Every rule, in catalogue order, and the sections.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    pub rules: Vec<Rule>,
    pub sections: Vec<Section>,
    by_id: BTreeMap<String, usize>,
}

impl Catalogue {
    /// The catalogue embedded in this build.
    pub fn embedded() -> &'static Catalogue {
        static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
        CATALOGUE.get_or_init(|| {
            Catalogue::parse(crate::kit::rules_text())
                .expect("the embedded rules catalogue parses (a test checks it)")
        })
    }

    /// Reads the catalogue's Markdown: `## Section (`features/x.feature`)`
    /// headings, each followed by a table `| ID | Level | Rule | Source |`
    /// whose ID cells may open with the row's anchor (`<a id="TC-X-1"></a>`).
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut catalogue = Self::default();
        for (number, line) in text.lines().enumerate() {
            if let Some(heading) = line.strip_prefix("## ") {
                let (name, feature) = match heading.split_once(" (`features/") {
                    Some((name, rest)) => (name, rest.trim_end_matches(")").trim_end_matches('`')),
                    None => (heading, ""),
                };
                catalogue.sections.push(Section {
                    name: name.trim().to_owned(),
                    feature: feature.to_owned(),
                });
                continue;
            }
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let ["", id, level, statement, source, ""] = cells.as_slice() else {
                continue;
            };
            // The ID cell may open with the row's anchor, `<a id="TC-X-1"></a>`,
            // which must name the row's own rule.
            let (anchor, id) = match id
                .strip_prefix("<a id=\"")
                .and_then(|r| r.split_once("\"></a>"))
            {
                Some((anchor, id)) => (Some(anchor), id.trim()),
                None => (None, *id),
            };
            if !id.starts_with("TC-") {
                continue;
            }
            if anchor.is_some_and(|anchor| anchor != id) {
                bail!("docs/rules.md:{}: {id}'s anchor is {anchor:?}", number + 1);
            }
            let level = match *level {
                "required" => Level::Required,
                "recommended" => Level::Recommended,
                other => bail!("docs/rules.md:{}: {id} has level {other:?}", number + 1),
            };
            let section = catalogue
                .sections
                .last()
                .with_context(|| format!("docs/rules.md:{}: {id} is in no section", number + 1))?
                .name
                .clone();
            if catalogue
                .by_id
                .insert(id.to_string(), catalogue.rules.len())
                .is_some()
            {
                bail!("docs/rules.md:{}: {id} appears twice", number + 1);
            }
            catalogue.rules.push(Rule {
                id: id.to_string(),
                level,
                section,
                statement: statement.to_string(),
                source: source.to_string(),
            });
        }
        if catalogue.rules.is_empty() {
            bail!("docs/rules.md holds no rule");
        }
        Ok(catalogue)
    }

    /// The rule with this ID.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.by_id.get(id).map(|&index| &self.rules[index])
    }

    /// The section whose scenarios live in `feature_file` (a path or name).
    pub fn section_of_file(&self, feature_file: &str) -> Option<&Section> {
        let name = feature_file.rsplit('/').next().unwrap_or(feature_file);
        self.sections.iter().find(|s| s.feature == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_catalogue_parses_whole() {
        let catalogue = Catalogue::embedded();
        assert!(catalogue.rules.len() > 100);
        assert_eq!(catalogue.sections.len(), 13);
        let rule = catalogue.rule("TC-ANS-008").unwrap();
        assert_eq!(rule.level, Level::Required);
        assert_eq!(rule.section, "The answer");
        assert!(rule.source.contains("tool-calls: The answer"));
        assert_eq!(
            catalogue
                .section_of_file("features/answer.feature")
                .unwrap()
                .name,
            "The answer"
        );
        assert!(catalogue.rules.iter().all(|r| !r.source.is_empty()));
    }

    #[test]
    fn refuses_a_broken_catalogue() {
        assert!(Catalogue::parse("no rules").is_err());
        assert!(
            Catalogue::parse("## S (`features/s.feature`)\n| TC-A-1 | maybe | x | y |").is_err()
        );
        let anchored =
            "## S (`features/s.feature`)\n| <a id=\"TC-A-1\"></a>TC-A-1 | required | x | y |";
        assert_eq!(Catalogue::parse(anchored).unwrap().rules[0].id, "TC-A-1");
        let misanchored =
            "## S (`features/s.feature`)\n| <a id=\"TC-A-2\"></a>TC-A-1 | required | x | y |";
        assert!(Catalogue::parse(misanchored).is_err());
        let twice = "## S (`features/s.feature`)\n| TC-A-1 | required | x | y |\n| TC-A-1 | required | x | y |";
        assert!(Catalogue::parse(twice).is_err());
    }
}
