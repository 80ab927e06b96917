//! The badge (`--badge FILE`): an SVG an implementer puts in a README, in
//! the shape of shields.io's flat badges so it sits beside the others. It
//! says only what a reader can check against the rules: required rules
//! passed of all the catalogue's, recommended ones met, and the rules
//! revision they were judged at.

use std::fmt::Write as _;

use super::summary::{Status, Summary};
use crate::catalogue::{Catalogue, Level};

/// Every required rule passed.
const GREEN: &str = "#3c9a1f";
/// A required rule did not pass (failed, not judged or not run).
const RED: &str = "#d9443a";
const GREY: &str = "#555";

impl Summary {
    /// The run's badge, as an SVG document.
    pub fn badge(&self) -> String {
        let share = |level: Level| {
            let of_level = Catalogue::embedded()
                .rules
                .iter()
                .filter(|rule| rule.level == level)
                .count();
            let passed = self
                .rules()
                .iter()
                .filter(|rule| rule.level == level && rule.status == Status::Passed)
                .count();
            (passed, of_level)
        };
        let (required, of_required) = share(Level::Required);
        let (recommended, of_recommended) = share(Level::Recommended);
        let revision = &self.kit.rules_revision;
        let value = format!(
            "{required}/{of_required} required · {recommended}/{of_recommended} recommended · rules {}",
            revision.get(..8).unwrap_or(revision)
        );
        let label = "OpenAPI→MCP conformance";
        let title = format!(
            "{}{label}: {required} of {of_required} required rules passed, {recommended} of \
             {of_recommended} recommended rules met, judged by {} at rules revision {revision}",
            self.gateway_name
                .as_deref()
                .map(|name| format!("{name}, "))
                .unwrap_or_default(),
            self.kit.describe(),
        );
        let colour = if required == of_required { GREEN } else { RED };
        svg(label, &value, &title, colour)
    }
}

/// A flat badge: the label on grey, the value on `colour`.
fn svg(label: &str, value: &str, title: &str, colour: &str) -> String {
    let (label_width, value_width) = (text_width(label), text_width(value));
    let (label_box, value_box) = (label_width + 10, value_width + 10);
    let width = label_box + value_box;
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{label}: {value}"><title>{title}</title><linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient><clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)"><rect width="{label_box}" height="20" fill="{GREY}"/><rect x="{label_box}" width="{value_box}" height="20" fill="{colour}"/><rect width="{width}" height="20" fill="url(#s)"/></g><g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11"><text x="{label_x}" y="14" textLength="{label_width}">{label}</text><text x="{value_x}" y="14" textLength="{value_width}">{value}</text></g></svg>"##,
        label = escape(label),
        value = escape(value),
        title = escape(title),
        label_x = label_box / 2,
        value_x = label_box + value_box / 2,
    );
    out.push('\n');
    out
}

/// About how wide Verdana at 11 px draws `text`; `textLength` fits the
/// glyphs to it, so a guess a few pixels out only spaces them a little.
fn text_width(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | '·' | ' ' | '\'' | '|' | '!' => 4,
            'f' | 't' | 'r' | '/' | '(' | ')' | '-' | 'I' => 5,
            'm' | 'w' | 'M' | 'W' | '→' => 10,
            'A'..='Z' => 8,
            _ => 7,
        })
        .sum()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::super::tests::{scenario, summary};
    use super::*;

    fn required_rules() -> Vec<&'static str> {
        Catalogue::embedded()
            .rules
            .iter()
            .filter(|rule| rule.level == Level::Required)
            .map(|rule| rule.id.as_str())
            .collect()
    }

    #[test]
    fn counts_each_required_rule_of_the_catalogue() {
        let all = required_rules();
        let mut scenarios: Vec<_> = all
            .iter()
            .map(|id| scenario(id, Level::Required, Status::Passed))
            .collect();
        let every = summary(scenarios.clone()).badge();
        assert!(
            every.contains(&format!("{0}/{0} required", all.len())),
            "{every}"
        );
        assert!(every.contains(GREEN), "{every}");

        scenarios[0].status = Status::NotJudged;
        let one_short = summary(scenarios).badge();
        assert!(
            one_short.contains(&format!("{}/{} required", all.len() - 1, all.len())),
            "{one_short}"
        );
        assert!(one_short.contains(RED), "{one_short}");
    }

    #[test]
    fn a_rule_the_run_left_out_is_not_passed() {
        let all = required_rules();
        let badge = summary(vec![scenario(all[0], Level::Required, Status::Passed)]).badge();
        assert!(
            badge.contains(&format!("1/{} required", all.len())),
            "{badge}"
        );
        assert!(badge.contains(RED), "{badge}");
    }

    #[test]
    fn names_the_gateway_and_the_rules_revision_and_escapes_them() {
        let mut s = summary(vec![]);
        s.gateway_name = Some("<gw> & co 1.0".into());
        let badge = s.badge();
        assert!(badge.starts_with("<svg "), "{badge}");
        assert!(badge.contains("&lt;gw&gt; &amp; co 1.0, "), "{badge}");
        assert!(badge.contains(&s.kit.rules_revision), "{badge}");
        assert!(!badge.contains("<gw>"), "{badge}");
    }
}
