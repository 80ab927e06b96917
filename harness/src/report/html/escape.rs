//! A gateway's text made safe for the page, and the page's anchors.
//! Every text that comes from a gateway is hostile: terminal escapes are
//! dropped and every special character escaped.

use std::fmt::{self, Display};

use crate::errors::ErrorCode;

/// A rule's anchor: its ID, which is already a fine fragment.
pub(super) fn anchor(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// An error code's entry on the page: `code-arguments_invalid`.
pub(super) fn code_anchor(code: &ErrorCode) -> String {
    format!("code-{}", code.anchor())
}

/// A gateway's text as a page shows it: terminal escape sequences (colours
/// in logs) dropped, carriage returns dropped, other control characters
/// replaced by U+FFFD. Still to be escaped.
pub(super) fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                // CSI: ESC [ parameters, then one final byte in @..~.
                if chars.next_if_eq(&'[').is_some() {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            }
            '\r' => {}
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Text escaped for HTML, in element content and in quoted attributes.
pub(super) struct Text<'a>(pub(super) &'a str);

impl Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

/// A catalogue statement: escaped, with its `backticked` parts as code.
pub(super) struct Inline<'a>(pub(super) &'a str);

impl Display for Inline<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<&str> = self.0.split('`').collect();
        if parts.len().is_multiple_of(2) {
            // An unmatched backtick: show the text as written.
            return Text(self.0).fmt(f);
        }
        for (index, part) in parts.iter().enumerate() {
            if index % 2 == 1 {
                write!(f, "<code>{}</code>", Text(part))?;
            } else {
                Text(part).fmt(f)?;
            }
        }
        Ok(())
    }
}
