//! What the suite holds, as a reader sees it: the `list` and `show`
//! subcommands, and the check that a `--tags` expression names tags the
//! suite has and selects at least one scenario (a typo there would
//! otherwise run nothing, or everything).

use std::{
    collections::BTreeSet,
    fmt::Write as _,
    path::{Path, PathBuf},
    str::FromStr,
};

use anyhow::{bail, Context as _};
use cucumber::{feature::Ext as _, gherkin, gherkin::tagexpr::TagOperation, tag::Ext as _};
use serde_json::{json, Value};

use crate::{
    catalogue::{Catalogue, Level},
    kit,
    tags::{self, RECOMMENDED_TAG, RULE_PREFIX},
};

/// A `--tags` expression, with the text it was written as (for messages).
#[derive(Debug, Clone)]
pub struct TagFilter {
    pub text: String,
    pub expression: TagOperation,
}

impl FromStr for TagFilter {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let expression = text
            .parse()
            .map_err(|e| format!("not a tag expression ({e}); e.g. '@TC-NAME-007 or @http'"))?;
        Ok(Self {
            text: text.to_owned(),
            expression,
        })
    }
}

impl TagFilter {
    /// The tags the expression names, without `@`.
    fn tags(&self) -> Vec<&str> {
        let mut tags = Vec::new();
        let mut stack = vec![&self.expression];
        while let Some(operation) = stack.pop() {
            match operation {
                TagOperation::And(left, right) | TagOperation::Or(left, right) => {
                    stack.push(right);
                    stack.push(left);
                }
                TagOperation::Not(inner) => stack.push(inner),
                TagOperation::Tag(tag) => tags.push(tag.as_str()),
            }
        }
        tags
    }
}

/// One scenario as reports name it (outlines expanded, one per example).
#[derive(Debug, Clone)]
pub struct ListedScenario {
    pub name: String,
    /// The feature file as reports name it (`features/names.feature`).
    pub file: String,
    pub line: usize,
    /// Its feature's, rule's, own and examples' tags, without `@`.
    pub tags: Vec<String>,
    /// The rule IDs among its tags.
    pub rules: Vec<String>,
    /// Index of its text in [`Listing::texts`].
    text: usize,
}

/// A scenario or outline as written in its file, with the backgrounds that
/// run before it (its feature's, then its `Rule:` block's), by line.
#[derive(Debug, Clone)]
struct Text {
    file: String,
    line: usize,
    gherkin: String,
    backgrounds: Vec<(usize, String)>,
}

/// Every scenario of a features folder, with its text.
#[derive(Debug, Clone)]
pub struct Listing {
    /// Where the feature files were read.
    pub folder: PathBuf,
    /// Whether they are the ones built into the harness.
    pub embedded: bool,
    pub scenarios: Vec<ListedScenario>,
    texts: Vec<Text>,
}

impl Listing {
    /// The scenarios of `--features DIR`, or the built-in ones.
    pub fn of(features: Option<&Path>) -> anyhow::Result<Self> {
        match features {
            Some(folder) => Self::read(folder, false),
            None => Self::read(
                &kit::features_folder().context("cannot write the built-in scenarios to disk")?,
                true,
            ),
        }
    }

    /// Every `.feature` file under `folder`, in path order.
    pub fn read(folder: &Path, embedded: bool) -> anyhow::Result<Self> {
        let mut listing = Self {
            folder: folder.to_path_buf(),
            embedded,
            scenarios: Vec::new(),
            texts: Vec::new(),
        };
        let mut files = Vec::new();
        feature_files(folder, &mut files)?;
        files.sort();
        for path in files {
            listing
                .read_file(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
        }
        Ok(listing)
    }

    fn read_file(&mut self, path: &Path) -> anyhow::Result<()> {
        let source = std::fs::read_to_string(path)?;
        let feature = gherkin::Feature::parse(&source, gherkin::GherkinEnv::default())?;
        let file = kit::display_path(path, &self.folder, self.embedded);
        let lines: Vec<&str> = source.lines().collect();
        let mut starts: Vec<usize> = feature.background.iter().map(|b| b.position.line).collect();
        for rule in &feature.rules {
            starts.push(rule.position.line);
            starts.extend(rule.background.iter().map(|b| b.position.line));
            starts.extend(rule.scenarios.iter().map(|s| s.position.line));
        }
        starts.extend(feature.scenarios.iter().map(|s| s.position.line));
        starts.sort_unstable();

        let in_rules = feature
            .rules
            .iter()
            .flat_map(|rule| rule.scenarios.iter().map(move |s| (Some(rule), s)));
        for (rule, scenario) in feature.scenarios.iter().map(|s| (None, s)).chain(in_rules) {
            let backgrounds = feature
                .background
                .iter()
                .chain(rule.and_then(|r| r.background.as_ref()))
                .map(|b| (b.position.line, block(&lines, &starts, b.position.line)))
                .collect();
            self.texts.push(Text {
                file: file.clone(),
                line: scenario.position.line,
                gherkin: block(&lines, &starts, scenario.position.line),
                backgrounds,
            });
            // Expanded on its own, so each example maps to this text.
            let mut alone = feature.clone();
            alone.rules.clear();
            alone.scenarios = vec![scenario.clone()];
            for expanded in alone.expand_examples()?.scenarios {
                let tags: Vec<String> = tags::of(&feature, rule, &expanded).cloned().collect();
                self.scenarios.push(ListedScenario {
                    rules: tags
                        .iter()
                        .filter(|t| t.starts_with(RULE_PREFIX))
                        .cloned()
                        .collect(),
                    name: expanded.name,
                    file: file.clone(),
                    line: expanded.position.line,
                    tags,
                    text: self.texts.len() - 1,
                });
            }
        }
        Ok(())
    }

    /// The scenarios `filter` selects (all without one).
    pub fn matching<'a>(
        &'a self,
        filter: Option<&'a TagFilter>,
    ) -> impl Iterator<Item = &'a ListedScenario> + 'a {
        self.scenarios
            .iter()
            .filter(move |s| filter.is_none_or(|f| f.expression.eval(&s.tags)))
    }

    /// Refuses a tag expression that names a tag no scenario carries, or
    /// that selects no scenario, naming the nearest tags.
    pub fn check(&self, filter: &TagFilter) -> anyhow::Result<()> {
        let known: BTreeSet<&str> = self
            .scenarios
            .iter()
            .flat_map(|s| s.tags.iter().map(String::as_str))
            .collect();
        let mut problems = Vec::new();
        for tag in filter.tags() {
            if known.contains(tag) {
                continue;
            }
            let mut problem = format!("no scenario carries @{tag}");
            let near = nearest(tag, known.iter().copied());
            if !near.is_empty() {
                let near: Vec<String> = near.iter().map(|t| format!("@{t}")).collect();
                let _ = write!(problem, "; did you mean {}?", near.join(" or "));
            }
            problems.push(problem);
        }
        if problems.is_empty() && self.matching(Some(filter)).next().is_none() {
            problems.push("no scenario matches it".to_owned());
        }
        if problems.is_empty() {
            return Ok(());
        }
        bail!(
            "--tags '{}': {} (`hosted-mcp-conformance list` shows every rule and tag)",
            filter.text,
            problems.join("; ")
        )
    }

    /// The rules to list: the catalogue's, then any other rule ID the
    /// scenarios carry. With `filter`, only rules with a scenario it selects.
    fn rules<'a>(
        &'a self,
        catalogue: &'a Catalogue,
        filter: Option<&'a TagFilter>,
    ) -> Vec<ListedRule<'a>> {
        let selected: Vec<&ListedScenario> = self.matching(filter).collect();
        let scenarios_of = |id: &str| -> Vec<&'a ListedScenario> {
            selected
                .iter()
                .copied()
                .filter(|s| s.rules.iter().any(|r| r == id))
                .collect()
        };
        let mut rules: Vec<ListedRule<'a>> = catalogue
            .rules
            .iter()
            .map(|rule| ListedRule {
                id: rule.id.clone(),
                level: rule.level,
                section: Some(&rule.section),
                statement: Some(&rule.statement),
                source: Some(&rule.source),
                scenarios: scenarios_of(&rule.id),
            })
            .collect();
        let others: BTreeSet<&str> = self
            .scenarios
            .iter()
            .flat_map(|s| s.rules.iter().map(String::as_str))
            .filter(|id| catalogue.rule(id).is_none())
            .collect();
        for id in others {
            let scenarios = scenarios_of(id);
            let recommended = self
                .scenarios
                .iter()
                .filter(|s| s.rules.iter().any(|r| r == id))
                .any(|s| s.tags.iter().any(|t| t == RECOMMENDED_TAG));
            rules.push(ListedRule {
                id: id.to_owned(),
                level: if recommended {
                    Level::Recommended
                } else {
                    Level::Required
                },
                section: None,
                statement: None,
                source: None,
                scenarios,
            });
        }
        if filter.is_some() {
            rules.retain(|r| !r.scenarios.is_empty());
        }
        rules
    }

    /// Where the scenarios come from, for the top of a listing.
    fn origin(&self) -> String {
        if self.embedded {
            format!(
                "the built-in scenarios (kit {}, rules revision {}), written to {}: \
                 copy that folder, edit it and run it with --features DIR",
                kit::VERSION,
                kit::RULES_REVISION,
                self.folder.display()
            )
        } else {
            format!("the scenarios in {}", self.folder.display())
        }
    }

    /// The readable listing: rules (level, wording) and, under each, its
    /// scenarios (`file:line`, name, tags); or only one of the two.
    pub fn text(&self, catalogue: &Catalogue, part: Part, filter: Option<&TagFilter>) -> String {
        let mut out = format!("# {}\n", self.origin());
        if part == Part::Scenarios {
            for scenario in self.matching(filter) {
                let _ = writeln!(out, "{}", scenario_line(scenario));
            }
            return out;
        }
        let mut section = None;
        for rule in self.rules(catalogue, filter) {
            if rule.section != section {
                section = rule.section;
                let _ = writeln!(
                    out,
                    "\n## {}",
                    section.map_or("Other rules", String::as_str)
                );
            }
            let statement = rule.statement.map_or("(not in the rules catalogue)", |s| s);
            let _ = writeln!(out, "{}  {:<11}  {statement}", rule.id, rule.level.name());
            if part == Part::Rules {
                continue;
            }
            if rule.scenarios.is_empty() {
                let _ = writeln!(out, "    (no scenario in {})", self.folder.display());
            }
            for scenario in rule.scenarios {
                let _ = writeln!(out, "    {}", scenario_line(scenario));
            }
        }
        out
    }

    /// The listing as data: the rules, each with its scenarios, and every
    /// scenario with its tags.
    pub fn json(&self, catalogue: &Catalogue, filter: Option<&TagFilter>) -> Value {
        let rules: Vec<Value> = self
            .rules(catalogue, filter)
            .iter()
            .map(|rule| {
                json!({
                    "id": rule.id,
                    "level": rule.level,
                    "section": rule.section,
                    "statement": rule.statement,
                    "source": rule.source,
                    "scenarios": rule.scenarios.iter().map(|s| format!("{}:{}", s.file, s.line)).collect::<Vec<_>>(),
                })
            })
            .collect();
        let scenarios: Vec<Value> = self
            .matching(filter)
            .map(|s| {
                json!({
                    "name": s.name,
                    "file": s.file,
                    "line": s.line,
                    "tags": s.tags.iter().map(|t| format!("@{t}")).collect::<Vec<_>>(),
                    "rules": s.rules,
                })
            })
            .collect();
        json!({
            "kit": {"version": kit::VERSION, "rules_revision": kit::RULES_REVISION},
            "features": self.folder,
            "embedded": self.embedded,
            "rules": rules,
            "scenarios": scenarios,
        })
    }

    /// One rule: its level, wording and source, then the full text of each
    /// of its scenarios (outlines once, with their examples) at `file:line`.
    pub fn show(&self, catalogue: &Catalogue, id: &str) -> anyhow::Result<String> {
        let id = id.trim().trim_start_matches('@').to_ascii_uppercase();
        let rules = self.rules(catalogue, None);
        let Some(rule) = rules.iter().find(|r| r.id == id) else {
            let near = nearest(&id, rules.iter().map(|r| r.id.as_str()));
            let hint = if near.is_empty() {
                String::new()
            } else {
                format!("; did you mean {}?", near.join(" or "))
            };
            bail!("no rule {id} in the catalogue or the scenarios{hint} (`hosted-mcp-conformance list --rules` shows them all)");
        };
        let mut out = format!("{}  {}", rule.id, rule.level.name());
        if let Some(section) = rule.section {
            let _ = write!(out, "  ({section})");
        }
        let _ = writeln!(
            out,
            "\n{}",
            rule.statement.map_or("(not in the rules catalogue)", |s| s)
        );
        if let Some(source) = rule.source {
            let _ = writeln!(out, "Source: {source}");
        }
        let mut shown: Vec<usize> = rule.scenarios.iter().map(|s| s.text).collect();
        shown.dedup();
        let _ = writeln!(
            out,
            "{} scenario(s) in {} text(s), from {}",
            rule.scenarios.len(),
            shown.len(),
            self.origin()
        );
        let mut backgrounds_shown = BTreeSet::new();
        for text in shown.iter().filter_map(|&i| self.texts.get(i)) {
            for (line, background) in &text.backgrounds {
                if backgrounds_shown.insert((&text.file, *line)) {
                    let _ = write!(
                        out,
                        "\n# {}:{line} (runs before each scenario below it)\n{background}\n",
                        text.file
                    );
                }
            }
            let _ = write!(out, "\n# {}:{}\n{}\n", text.file, text.line, text.gherkin);
        }
        Ok(out)
    }
}

/// Which part of the suite `list` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Rules, each followed by its scenarios.
    Both,
    Rules,
    Scenarios,
}

/// A rule as listed: from the catalogue, or only a tag of the scenarios.
struct ListedRule<'a> {
    id: String,
    level: Level,
    section: Option<&'a String>,
    statement: Option<&'a String>,
    source: Option<&'a String>,
    scenarios: Vec<&'a ListedScenario>,
}

fn scenario_line(scenario: &ListedScenario) -> String {
    let tags: Vec<String> = scenario.tags.iter().map(|t| format!("@{t}")).collect();
    format!(
        "{}:{}  {}  {}",
        scenario.file,
        scenario.line,
        scenario.name,
        tags.join(" ")
    )
}

/// The text of the block that starts at `line` (1-based): its tag lines
/// above, down to the next block, without the blank, comment and tag lines
/// that lead into the next one.
fn block(lines: &[&str], starts: &[usize], line: usize) -> String {
    let end = starts
        .iter()
        .copied()
        .find(|&s| s > line)
        .unwrap_or(lines.len() + 1);
    let mut first = line.saturating_sub(1);
    while first > 0 && lines[first - 1].trim_start().starts_with('@') {
        first -= 1;
    }
    let mut last = (end - 1).min(lines.len());
    while last > line {
        let trimmed = lines[last - 1].trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('@') {
            last -= 1;
        } else {
            break;
        }
    }
    lines.get(first..last).unwrap_or_default().join("\n")
}

fn feature_files(folder: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    // `--features` may name one file.
    if folder.is_file() {
        files.push(folder.to_path_buf());
        return Ok(());
    }
    let entries = std::fs::read_dir(folder)
        .with_context(|| format!("cannot read the features in {}", folder.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            feature_files(&path, files)?;
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("feature"))
        {
            files.push(path);
        }
    }
    Ok(())
}

/// The candidates closest to `word` by edit distance, ignoring case: the
/// few at the smallest distance, if it is small enough to be a typo.
fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let word = word.to_ascii_uppercase();
    let scored: Vec<(usize, &str)> = candidates
        .map(|c| (strsim::levenshtein(&word, &c.to_ascii_uppercase()), c))
        .collect();
    let Some(best) = scored.iter().map(|(d, _)| *d).min() else {
        return Vec::new();
    };
    if best > (word.len() / 3).max(2) {
        return Vec::new();
    }
    let mut near: Vec<&str> = scored
        .into_iter()
        .filter(|(d, _)| *d == best)
        .map(|(_, c)| c)
        .collect();
    near.sort_unstable();
    near.dedup();
    near.truncate(3);
    near
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_nearest_rule_ids() {
        let ids = ["TC-NAME-007", "TC-NAME-001", "TC-ANS-007"];
        assert_eq!(nearest("TC-NAME-07", ids.into_iter()), ["TC-NAME-007"]);
        assert_eq!(nearest("tc-name-007", ids.into_iter()), ["TC-NAME-007"]);
        assert!(nearest("something-else", ids.into_iter()).is_empty());
    }

    #[test]
    fn cuts_a_block_before_the_next_ones_tags() {
        let lines = [
            "Feature: f",
            "  @A",
            "  Scenario: one",
            "    Given x",
            "",
            "  # why",
            "  @B",
            "  Scenario: two",
            "    Given y",
        ];
        assert_eq!(
            block(&lines, &[3, 8], 3),
            "  @A\n  Scenario: one\n    Given x"
        );
        assert_eq!(
            block(&lines, &[3, 8], 8),
            "  @B\n  Scenario: two\n    Given y"
        );
    }

    #[test]
    fn lists_the_built_in_scenarios_with_their_rules() {
        let listing = Listing::of(None).unwrap();
        let catalogue = Catalogue::embedded();
        let filter: TagFilter = "@TC-NAME-007".parse().unwrap();
        listing.check(&filter).unwrap();
        let rules = listing.rules(catalogue, Some(&filter));
        assert_eq!(rules.len(), 1);
        assert!(rules[0]
            .scenarios
            .iter()
            .all(|s| s.file == "features/names.feature"));
        let typo: TagFilter = "@TC-NAME-07".parse().unwrap();
        let error = listing.check(&typo).unwrap_err().to_string();
        assert!(error.contains("did you mean @TC-NAME-007?"), "{error}");
    }
}
