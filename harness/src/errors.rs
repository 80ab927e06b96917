//! The error catalogue (`docs/errors.md`, embedded): each code that starts a
//! message of the reference gateway (`[ARGUMENTS_INVALID] the arguments ...`),
//! what it means and what to do about it. The HTML report explains with it
//! the codes seen in failures.
//!
//! It is read from the page the reference's catalogue generates, not from
//! the gateway crate: the harness checks any gateway and depends on none.
//! Another gateway's messages carry other texts; only the codes listed here
//! are codes to the report, never any other word in brackets.

use std::{collections::BTreeMap, ops::Range, sync::OnceLock};

use anyhow::bail;

/// One code of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorCode {
    /// As messages write it, without the brackets: `ARGUMENTS_INVALID`.
    pub code: String,
    /// What it means, in the catalogue's words (paragraphs apart by a blank
    /// line; `backticked` parts are code).
    pub meaning: String,
    /// What to do, for whom: `("The agent", "Fix the argument ...")`.
    pub what_to_do: Vec<(String, String)>,
}

impl ErrorCode {
    /// Its anchor in the error docs: the code in lower case, as a Markdown
    /// heading's (`#arguments_invalid`).
    pub fn anchor(&self) -> String {
        self.code.to_ascii_lowercase()
    }
}

/// Every code, in catalogue order.
#[derive(Debug, Clone, Default)]
pub struct ErrorCatalogue {
    pub codes: Vec<ErrorCode>,
    by_code: BTreeMap<String, usize>,
}

/// Where a code stands in a text: the code's bytes, brackets left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeAt<'c> {
    pub range: Range<usize>,
    pub code: &'c ErrorCode,
}

impl ErrorCatalogue {
    /// The catalogue embedded in this build.
    pub fn embedded() -> &'static ErrorCatalogue {
        static CATALOGUE: OnceLock<ErrorCatalogue> = OnceLock::new();
        CATALOGUE.get_or_init(|| {
            ErrorCatalogue::parse(crate::kit::errors_text())
                .expect("the embedded error catalogue parses (a test checks it)")
        })
    }

    /// Reads the catalogue's Markdown: one `## CODE` section per code, its
    /// meaning the paragraphs before `Example:`, then `What to do:` and its
    /// bullets `- The agent: ...`. Fenced blocks (the examples) are skipped;
    /// a `##` heading that is no code (capitals, digits, `_`) is prose. The
    /// table of codes at the top may list only codes that have a section.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut catalogue = Self::default();
        // The section being read: its code, the line of its heading, and
        // whether its meaning is over and its advice begun.
        let mut open: Option<(ErrorCode, usize)> = None;
        let mut part = Part::Meaning;
        let mut fenced = false;
        let mut listed = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                continue;
            }
            if fenced {
                continue;
            }
            if let Some(heading) = line.strip_prefix("## ") {
                if let Some((code, at)) = open.take() {
                    catalogue.add(code, at)?;
                }
                let heading = heading.trim();
                if is_code(heading) {
                    open = Some((
                        ErrorCode {
                            code: heading.to_owned(),
                            meaning: String::new(),
                            what_to_do: Vec::new(),
                        },
                        number,
                    ));
                    part = Part::Meaning;
                }
                continue;
            }
            let Some((code, _)) = &mut open else {
                // Before the sections: the table's rows, `| [`CODE`](#code) | ... |`.
                if let Some(cell) = line.strip_prefix("| [`") {
                    if let Some((code, _)) = cell.split_once('`') {
                        listed.push((code.to_owned(), number));
                    }
                }
                continue;
            };
            let line = line.trim();
            match (part, line) {
                (_, "Example:") => part = Part::Example,
                (_, "What to do:") => part = Part::WhatToDo,
                (Part::Meaning, "") => {
                    if !code.meaning.is_empty() && !code.meaning.ends_with("\n\n") {
                        code.meaning.push_str("\n\n");
                    }
                }
                (Part::Meaning, line) => {
                    if !code.meaning.is_empty() && !code.meaning.ends_with('\n') {
                        code.meaning.push(' ');
                    }
                    code.meaning.push_str(line);
                }
                (Part::WhatToDo, "") => {}
                (Part::WhatToDo, line) => match line.strip_prefix("- ") {
                    Some(bullet) => {
                        let Some((who, what)) = bullet.split_once(": ") else {
                            bail!(
                                "docs/errors.md:{number}: {}'s advice {bullet:?} says for whom \
                                 it is as `- The agent: ...`",
                                code.code
                            );
                        };
                        code.what_to_do
                            .push((who.trim().to_owned(), what.trim().to_owned()));
                    }
                    // `Produced by:` and what follows: not for the report.
                    None => part = Part::Rest,
                },
                (Part::Example | Part::Rest, _) => {}
            }
        }
        if fenced {
            bail!("docs/errors.md: a fenced block is never closed");
        }
        if let Some((code, at)) = open.take() {
            catalogue.add(code, at)?;
        }
        if catalogue.codes.is_empty() {
            bail!("docs/errors.md holds no `## CODE` section");
        }
        for (code, number) in listed {
            if catalogue.code(&code).is_none() {
                bail!("docs/errors.md:{number}: the table lists {code}, which has no `## {code}` section");
            }
        }
        Ok(catalogue)
    }

    fn add(&mut self, mut code: ErrorCode, heading: usize) -> anyhow::Result<()> {
        code.meaning = code.meaning.trim_end().to_owned();
        if code.meaning.is_empty() {
            bail!(
                "docs/errors.md:{heading}: {} says nothing of what it means before `Example:`",
                code.code
            );
        }
        if code.what_to_do.is_empty() {
            bail!(
                "docs/errors.md:{heading}: {} has no `What to do:` bullets",
                code.code
            );
        }
        if self
            .by_code
            .insert(code.code.clone(), self.codes.len())
            .is_some()
        {
            bail!("docs/errors.md:{heading}: {} has two sections", code.code);
        }
        self.codes.push(code);
        Ok(())
    }

    /// The entry of this code (`ARGUMENTS_INVALID`).
    pub fn code(&self, code: &str) -> Option<&ErrorCode> {
        self.by_code.get(code).map(|&index| &self.codes[index])
    }

    /// Each code of the catalogue that stands in brackets in `text`, where
    /// it stands, in order: `[ARGUMENTS_INVALID]` anywhere (a gateway's
    /// answer quoted inside a message too), but not `[credential]` nor
    /// `[NOT_A_CODE]`.
    pub fn find<'c>(&'c self, text: &str) -> Vec<CodeAt<'c>> {
        let mut found = Vec::new();
        for (at, _) in text.match_indices('[') {
            let start = at + 1;
            let rest = &text[start..];
            let length = rest
                .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                .unwrap_or(rest.len());
            if !rest[length..].starts_with(']') {
                continue;
            }
            if let Some(code) = self.code(&rest[..length]) {
                found.push(CodeAt {
                    range: start..start + length,
                    code,
                });
            }
        }
        found
    }
}

/// Where a code's section is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Meaning,
    Example,
    WhatToDo,
    Rest,
}

/// Whether a heading is a code: a capital, then capitals, digits and `_`.
fn is_code(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_catalogue_parses_whole() {
        let catalogue = ErrorCatalogue::embedded();
        assert!(catalogue.codes.len() >= 10, "{:?}", catalogue.codes);
        let code = catalogue.code("ARGUMENTS_INVALID").unwrap();
        assert!(
            code.meaning.starts_with("The arguments do not match"),
            "{}",
            code.meaning
        );
        assert!(!code.meaning.contains("Example"), "{}", code.meaning);
        let whom: Vec<&str> = code.what_to_do.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(whom, ["The agent", "The operator"]);
        assert!(code.what_to_do[0].1.starts_with("Fix the argument"));
        assert_eq!(code.anchor(), "arguments_invalid");
        // Every code of the table has its section, with both kinds of advice.
        for code in &catalogue.codes {
            assert!(is_code(&code.code), "{}", code.code);
            assert_eq!(code.what_to_do.len(), 2, "{}", code.code);
            assert!(!code.meaning.contains('\n'), "{}", code.code);
            assert!(
                crate::kit::errors_text().contains(&format!("(#{})", code.anchor())),
                "{}",
                code.code
            );
        }
    }

    const ONE: &str = "# Errors\n\n| Code | Comes back as | Rules |\n|---|---|---|\n\
        | [`A_CODE`](#a_code) | tool error | TC-X-1 |\n\n## A_CODE\n\nIt means\nthis.\n\n\
        Second paragraph.\n\nExample:\n\n```text\n[A_CODE] the message\n- /x: not advice\n```\n\n\
        What to do:\n\n- The agent: Call again: once.\n- The operator: Nothing.\n\n\
        Produced by:\n\n- [TC-X-1](rules.md#TC-X-1): why\n";

    #[test]
    fn reads_meaning_and_advice_past_the_example() {
        let catalogue = ErrorCatalogue::parse(ONE).unwrap();
        assert_eq!(catalogue.codes.len(), 1);
        let code = &catalogue.codes[0];
        assert_eq!(code.code, "A_CODE");
        assert_eq!(code.meaning, "It means this.\n\nSecond paragraph.");
        assert_eq!(
            code.what_to_do,
            [
                ("The agent".to_owned(), "Call again: once.".to_owned()),
                ("The operator".to_owned(), "Nothing.".to_owned())
            ]
        );
        // Prose sections are no codes.
        let prose = format!("{ONE}\n## How codes are written\n\nSome words.\n");
        assert_eq!(ErrorCatalogue::parse(&prose).unwrap().codes.len(), 1);
    }

    #[test]
    fn refuses_a_broken_catalogue() {
        let refused = |text: &str, says: &str| {
            let error = ErrorCatalogue::parse(text).unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        };
        refused("# Errors\n\nNo codes.\n", "no `## CODE` section");
        refused(
            &ONE.replace("It means\nthis.\n\nSecond paragraph.\n\n", ""),
            "docs/errors.md:7: A_CODE says nothing of what it means",
        );
        refused(
            &ONE.replace(
                "- The agent: Call again: once.\n- The operator: Nothing.\n",
                "",
            ),
            "A_CODE has no `What to do:` bullets",
        );
        refused(
            &ONE.replace("- The operator: Nothing.", "- Nothing."),
            "docs/errors.md:24: A_CODE's advice \"Nothing.\"",
        );
        refused(
            &format!("{ONE}\n## A_CODE\n\nAgain.\n\nWhat to do:\n\n- Who: x\n"),
            "A_CODE has two sections",
        );
        refused(
            &ONE.replace("## A_CODE", "## B_CODE"),
            "docs/errors.md:5: the table lists A_CODE, which has no `## A_CODE` section",
        );
        refused(&ONE.replace("```\n\nWhat", "\nWhat"), "never closed");
    }

    #[test]
    fn finds_only_catalogue_codes_in_brackets() {
        let catalogue = ErrorCatalogue::embedded();
        let text = "got: {\"text\":\"[ARGUMENTS_INVALID] the arguments\"}\n[UPSTREAM_STATUS] 503\n\
                    [credential] [NOT_A_CODE] [ARGUMENTS_INVALID ARGUMENTS_INVALID] [BODY_EMPTY";
        let found: Vec<(&str, &str)> = catalogue
            .find(text)
            .iter()
            .map(|at| (&text[at.range.clone()], at.code.code.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("ARGUMENTS_INVALID", "ARGUMENTS_INVALID"),
                ("UPSTREAM_STATUS", "UPSTREAM_STATUS")
            ]
        );
        assert!(catalogue.find("[]] [[[ é[").is_empty());
    }
}
