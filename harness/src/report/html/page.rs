//! What the page keeps while it is written: where it links outside
//! itself, and the error codes its failures showed, for the appendix.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use super::docs_url::DocsUrl;
use super::escape::{code_anchor, Text};
use crate::errors::{ErrorCatalogue, ErrorCode};

/// What the page links besides its own entries: the documentation site,
/// and the error codes the failures showed, for the appendix.
pub(super) struct Page<'a> {
    pub(super) docs: Option<&'a DocsUrl>,
    pub(super) errors: &'static ErrorCatalogue,
    /// Each code linked, with the rules whose failures showed it, in page order.
    pub(super) seen: BTreeMap<&'static str, Vec<String>>,
}

impl Page<'_> {
    /// A gateway's text, escaped, each code of the catalogue in brackets a
    /// link to its entry, recorded as seen in a failure of `rule`.
    pub(super) fn write_coded(&mut self, out: &mut String, rule: &str, text: &str) -> fmt::Result {
        let mut done = 0;
        for found in self.errors.find(text) {
            write!(
                out,
                "{}<a class=\"code\" href=\"#{}\">{}</a>",
                Text(&text[done..found.range.start]),
                Text(&code_anchor(found.code)),
                Text(&found.code.code)
            )?;
            done = found.range.end;
            let rules = self.seen.entry(found.code.code.as_str()).or_default();
            if !rules.iter().any(|r| r == rule) {
                rules.push(rule.to_owned());
            }
        }
        write!(out, "{}", Text(&text[done..]))
    }

    /// The codes seen, in catalogue order, each with the rules that showed it.
    pub(super) fn codes_seen(&self) -> Vec<(&'static ErrorCode, &[String])> {
        self.errors
            .codes
            .iter()
            .filter_map(|code| Some((code, self.seen.get(code.code.as_str())?.as_slice())))
            .collect()
    }
}
