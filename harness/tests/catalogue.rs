//! The rules catalogue and the scenarios agree: every rule of `docs/rules.md`
//! has at least one scenario, every rule tag on a scenario is catalogued, and a
//! scenario is tagged `@recommended` exactly when its rule is recommended (the
//! reports count that tag when they decide whether a failure fails the run).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Rule ID to its level, from the catalogue's tables.
fn catalogue() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(workspace().join("docs/rules.md")).expect("docs/rules.md");
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            match cells.as_slice() {
                ["", id, level, _, _, ""] if id.starts_with("TC-") => {
                    Some((id.to_string(), level.to_string()))
                }
                _ => None,
            }
        })
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
