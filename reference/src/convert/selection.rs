//! Which tools an operator serves, beyond the rules: clients cap the tools
//! they take (VS Code at 128, Cursor at about 40), and Stripe alone has 464.
//!
//! With no selector every operation is a tool, as the rules say. Include
//! selectors are alternatives (a tool any of them names is kept); an exclude
//! selector always wins. Tags are the operation's `tags`; patterns are globs
//! (`*`, `?`, `[abc]`) over the tool's name as the naming rules give it, so
//! a name does not depend on which other tools are served.

use glob::Pattern;

/// The operator's selectors. Empty: every tool.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub include_tags: Vec<String>,
    pub exclude_tags: Vec<String>,
    pub include_tools: Vec<Pattern>,
    pub exclude_tools: Vec<Pattern>,
}

impl Selection {
    /// Whether the tool named `name`, from an operation with `tags`, is
    /// served; `seen` records which selectors named it.
    pub(super) fn keeps(&self, name: &str, tags: &[String], seen: &mut Matched) -> bool {
        let tagged = |wanted: &[String], hits: &mut [bool]| {
            let mut any = false;
            for (hit, tag) in hits.iter_mut().zip(wanted) {
                if tags.contains(tag) {
                    *hit = true;
                    any = true;
                }
            }
            any
        };
        let named = |patterns: &[Pattern], hits: &mut [bool]| {
            let mut any = false;
            for (hit, pattern) in hits.iter_mut().zip(patterns) {
                if pattern.matches(name) {
                    *hit = true;
                    any = true;
                }
            }
            any
        };
        let included = tagged(&self.include_tags, &mut seen.include_tags)
            | named(&self.include_tools, &mut seen.include_tools);
        let excluded = tagged(&self.exclude_tags, &mut seen.exclude_tags)
            | named(&self.exclude_tools, &mut seen.exclude_tools);
        let no_includes = self.include_tags.is_empty() && self.include_tools.is_empty();
        (included || no_includes) && !excluded
    }

    pub(super) fn matched(&self) -> Matched {
        Matched {
            include_tags: vec![false; self.include_tags.len()],
            exclude_tags: vec![false; self.exclude_tags.len()],
            include_tools: vec![false; self.include_tools.len()],
            exclude_tools: vec![false; self.exclude_tools.len()],
        }
    }

    /// The selectors that named no operation, as an operator wrote them
    /// (`--include-tags billing`), for a warning: a typo selects nothing.
    pub(super) fn unmatched(&self, seen: &Matched) -> Vec<String> {
        fn unseen<'a>(
            option: &str,
            written: impl Iterator<Item = &'a str>,
            hits: &[bool],
        ) -> Vec<String> {
            written
                .zip(hits)
                .filter(|(_, hit)| !**hit)
                .map(|(text, _)| format!("--{option} {text}"))
                .collect()
        }
        [
            unseen(
                "include-tags",
                self.include_tags.iter().map(String::as_str),
                &seen.include_tags,
            ),
            unseen(
                "exclude-tags",
                self.exclude_tags.iter().map(String::as_str),
                &seen.exclude_tags,
            ),
            unseen(
                "include-tools",
                self.include_tools.iter().map(Pattern::as_str),
                &seen.include_tools,
            ),
            unseen(
                "exclude-tools",
                self.exclude_tools.iter().map(Pattern::as_str),
                &seen.exclude_tools,
            ),
        ]
        .concat()
    }
}

/// Which selectors named at least one operation, in the order written.
#[derive(Debug)]
pub(super) struct Matched {
    include_tags: Vec<bool>,
    exclude_tags: Vec<bool>,
    include_tools: Vec<bool>,
    exclude_tools: Vec<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(include: &[&str], exclude_tags: &[&str], exclude: &[&str]) -> Selection {
        Selection {
            include_tags: Vec::new(),
            exclude_tags: exclude_tags.iter().map(|t| t.to_string()).collect(),
            include_tools: include.iter().map(|p| Pattern::new(p).unwrap()).collect(),
            exclude_tools: exclude.iter().map(|p| Pattern::new(p).unwrap()).collect(),
        }
    }

    #[test]
    fn no_selector_keeps_everything() {
        let all = Selection::default();
        assert!(all.keeps("anything", &[], &mut all.matched()));
    }

    #[test]
    fn includes_are_alternatives_and_an_exclude_wins() {
        let chosen = selection(&["Get*", "PostCharges"], &["internal"], &["*Secret*"]);
        let mut seen = chosen.matched();
        let tags = |t: &[&str]| t.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert!(chosen.keeps("GetCharges", &tags(&["charges"]), &mut seen));
        assert!(chosen.keeps("PostCharges", &[], &mut seen));
        assert!(!chosen.keeps("DeleteCharges", &[], &mut seen));
        assert!(!chosen.keeps("GetSecretKeys", &[], &mut seen));
        assert!(!chosen.keeps("GetAudit", &tags(&["internal"]), &mut seen));
        assert!(chosen.unmatched(&seen).is_empty());
    }

    #[test]
    fn a_selector_that_names_nothing_is_reported_as_written() {
        let chosen = Selection {
            include_tags: vec!["biling".into()],
            ..selection(&["Get*"], &[], &["Nothing*"])
        };
        let mut seen = chosen.matched();
        assert!(chosen.keeps("GetCharges", &[], &mut seen));
        assert_eq!(
            chosen.unmatched(&seen),
            ["--include-tags biling", "--exclude-tools Nothing*"]
        );
    }
}
