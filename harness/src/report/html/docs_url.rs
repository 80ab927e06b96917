//! `--docs-url`: the kit's documentation site, which the page links each
//! failure's rule and each error code to besides its own entries.

use std::str::FromStr;

use super::escape::anchor;
use crate::errors::ErrorCode;

/// The kit's documentation site (`--docs-url`): the `docs/` folder built
/// with mdBook, where `rules.html#TC-CHECK-001` is a rule's entry and
/// `errors.html#arguments_invalid` a code's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocsUrl(String);

impl DocsUrl {
    /// The site's address, without a trailing `/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A rule's entry on the site.
    pub(super) fn rule(&self, id: &str) -> String {
        format!("{}/rules.html#{}", self.0, anchor(id))
    }

    /// A code's entry on the site.
    pub(super) fn code(&self, code: &ErrorCode) -> String {
        format!("{}/errors.html#{}", self.0, code.anchor())
    }
}

impl FromStr for DocsUrl {
    type Err = String;

    /// An `https://`, `http://` or `file://` address, with no query or
    /// fragment (the pages' names are put after it).
    fn from_str(text: &str) -> Result<Self, String> {
        let url = text.trim().trim_end_matches('/');
        let lower = url.to_ascii_lowercase();
        let rest = ["https://", "http://", "file://"]
            .into_iter()
            .find_map(|scheme| lower.strip_prefix(scheme));
        let odd = |c: char| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, '?' | '#' | '"' | '\'' | '<' | '>' | '`')
        };
        match rest {
            Some(rest) if !rest.is_empty() && !url.contains(odd) => Ok(Self(url.to_owned())),
            _ => Err(format!(
                "{text:?} is not the documentation site's address: one that starts with https://, \
                 http:// or file://, with no spaces, query (?) or fragment (#), such as \
                 https://example.org/conformance"
            )),
        }
    }
}
