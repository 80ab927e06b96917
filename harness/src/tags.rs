//! What a scenario's tags say, read the way Gherkin inherits them: a
//! scenario carries its feature's tags, its `Rule:` block's and its own, so
//! a rule ID written once on a `Rule:` block marks every scenario under it.

use cucumber::gherkin::{Feature, Rule, Scenario};

/// Tags that name a rule of the spec (`@TC-CHECK-004`).
pub const RULE_PREFIX: &str = "TC-";

/// The tag of a recommended rule's scenarios; every other one is required.
pub const RECOMMENDED_TAG: &str = "recommended";

/// Every tag a scenario carries, inherited ones first.
pub fn of<'a>(
    feature: &'a Feature,
    rule: Option<&'a Rule>,
    scenario: &'a Scenario,
) -> impl Iterator<Item = &'a String> + Clone + 'a {
    feature
        .tags
        .iter()
        .chain(rule.into_iter().flat_map(|rule| &rule.tags))
        .chain(&scenario.tags)
}

/// The rule IDs a scenario judges, sorted, each once.
pub fn rules_of(feature: &Feature, rule: Option<&Rule>, scenario: &Scenario) -> Vec<String> {
    let mut rules: Vec<String> = of(feature, rule, scenario)
        .filter(|tag| tag.starts_with(RULE_PREFIX))
        .cloned()
        .collect();
    rules.sort();
    rules.dedup();
    rules
}

#[cfg(test)]
mod tests {
    use cucumber::gherkin::GherkinEnv;

    use super::*;

    #[test]
    fn a_rule_blocks_tags_reach_its_scenarios_and_no_others() {
        let feature = Feature::parse(
            "@section\nFeature: F\n\n  @TC-A-001\n  Scenario: alone\n    Given x\n\n  \
             @TC-B-002\n  Rule: B\n\n    @recommended\n    Scenario: under B\n      Given y\n",
            GherkinEnv::default(),
        )
        .expect("the feature parses");
        let alone = &feature.scenarios[0];
        let rule = &feature.rules[0];
        let under = &rule.scenarios[0];
        assert_eq!(rules_of(&feature, None, alone), ["TC-A-001"]);
        assert_eq!(rules_of(&feature, Some(rule), under), ["TC-B-002"]);
        let tags: Vec<&String> = of(&feature, Some(rule), under).collect();
        assert_eq!(tags, ["section", "TC-B-002", "recommended"]);
    }
}
