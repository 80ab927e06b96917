//! The rules catalogue and the scenarios agree: every rule of `docs/rules.md`
//! has at least one scenario, every rule tag on a scenario is catalogued, and a
//! scenario is tagged `@recommended` exactly when its rule is recommended (the
//! reports count that tag when they decide whether a failure fails the run).
//! Every rule's row is its own anchor, and every link to a rule finds it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use hosted_mcp_conformance::catalogue::Catalogue;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn rules_text() -> String {
    std::fs::read_to_string(workspace().join("docs/rules.md")).expect("docs/rules.md")
}

/// Rule ID to its level, read by the parser the harness itself uses.
fn catalogue() -> BTreeMap<String, String> {
    Catalogue::parse(&rules_text())
        .expect("docs/rules.md parses")
        .rules
        .into_iter()
        .map(|rule| (rule.id, rule.level.name().to_owned()))
        .collect()
}

/// Each tag line of every feature file: its rule IDs and whether it says `@recommended`.
fn tag_lines() -> Vec<(String, BTreeSet<String>, bool)> {
    let mut lines = Vec::new();
    let features = std::fs::read_dir(workspace().join("features")).expect("features/");
    for entry in features {
        let path = entry.expect("a directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("feature") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a readable feature file");
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if !line.starts_with('@') {
                continue;
            }
            let tags: Vec<&str> = line.split_whitespace().collect();
            let rules = tags
                .iter()
                .filter_map(|t| t.strip_prefix('@'))
                .filter(|t| t.starts_with("TC-"))
                .map(str::to_string)
                .collect();
            let place = format!("{}:{}", path.display(), number + 1);
            lines.push((place, rules, tags.contains(&"@recommended")));
        }
    }
    lines
}

#[test]
fn every_rule_has_a_scenario_and_every_tag_a_rule() {
    let rules = catalogue();
    assert!(rules.len() > 50, "the catalogue looks unread: {rules:?}");
    let lines = tag_lines();
    let tagged: BTreeSet<&String> = lines.iter().flat_map(|(_, ids, _)| ids).collect();

    let without_scenario: Vec<&String> = rules.keys().filter(|id| !tagged.contains(id)).collect();
    assert!(
        without_scenario.is_empty(),
        "rules without a scenario: {without_scenario:?}"
    );

    let uncatalogued: Vec<&&String> = tagged
        .iter()
        .filter(|id| !rules.contains_key(**id))
        .collect();
    assert!(
        uncatalogued.is_empty(),
        "tags with no rule in docs/rules.md: {uncatalogued:?}"
    );
}

#[test]
fn recommended_tags_match_the_catalogue() {
    let rules = catalogue();
    for (place, ids, recommended) in tag_lines() {
        for id in ids {
            let level = rules.get(&id).map(String::as_str).unwrap_or("uncatalogued");
            assert_eq!(
                recommended,
                level == "recommended",
                "{place}: {id} is {level}, but the scenario is {}tagged @recommended",
                if recommended { "" } else { "not " }
            );
        }
    }
}

/// `rules.md#TC-X-1` links (from the error docs, the README, the rules
/// themselves) land on the rule's row; a row without its anchor, or a link
/// to a rule that has none, fails.
#[test]
fn every_rule_has_its_anchor_and_every_link_to_a_rule_lands() {
    let text = rules_text();
    let rules = catalogue();
    let anchors: BTreeSet<String> = text
        .split("<a id=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(id, _)| id.to_owned()))
        .collect();
    let without: Vec<&String> = rules.keys().filter(|id| !anchors.contains(*id)).collect();
    assert!(without.is_empty(), "rules without an anchor: {without:?}");

    let mut pages = vec![("README.md".to_owned(), workspace().join("README.md"))];
    for entry in std::fs::read_dir(workspace().join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push((
                format!("docs/{}", path.file_name().unwrap().to_string_lossy()),
                path,
            ));
        }
    }
    let mut links = 0;
    for (name, path) in pages {
        let page = std::fs::read_to_string(&path).expect("a readable page");
        for (at, _) in page.match_indices("rules.md#") {
            let target: String = page[at + "rules.md#".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if target.starts_with("TC-") {
                links += 1;
                assert!(
                    anchors.contains(&target),
                    "{name} links to rules.md#{target}, which is no rule's anchor"
                );
            }
        }
    }
    assert!(
        links > 20,
        "only {links} links to rules found; the check reads nothing"
    );
}

/// The error docs link each code to its scenarios in `docs/scenarios.md`
/// (written by the conformance test from a run); each link lands on a code.
#[test]
fn every_link_to_a_code_s_scenarios_lands() {
    let errors = std::fs::read_to_string(workspace().join("docs/errors.md")).expect("errors.md");
    let scenarios =
        std::fs::read_to_string(workspace().join("docs/scenarios.md")).expect("scenarios.md");
    let headings: BTreeSet<String> = scenarios
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(|code| code.trim().to_ascii_lowercase())
        .collect();
    let mut links = 0;
    for (at, _) in errors.match_indices("](scenarios.md#") {
        let target: String = errors[at + "](scenarios.md#".len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        links += 1;
        assert!(
            headings.contains(&target),
            "docs/errors.md links to scenarios.md#{target}, which names no code"
        );
    }
    assert!(links >= 10, "only {links} links to scenarios found");
}
