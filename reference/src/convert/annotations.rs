//! What a client is told about a tool besides its arguments: description, title, hints.

use super::catalogue::Hints;
use crate::load::{Method, Operation};

/// Longest summary, in characters, that still serves as a title.
const MAX_TITLE_CHARS: usize = 80;

/// TC-DESC-001, TC-DESC-002, TC-DESC-003: summary, a blank line, then
/// description; either alone when the other is missing; nothing when both are.
/// Blank text counts as missing.
pub fn description(operation: &Operation) -> Option<String> {
    match (present(&operation.summary), present(&operation.description)) {
        (Some(summary), Some(description)) => Some(format!("{summary}\n\n{description}")),
        (Some(only), None) | (None, Some(only)) => Some(only.to_string()),
        (None, None) => None,
    }
}

/// TC-DESC-004, TC-DESC-005: the summary, when it is one line of at most 80 characters.
pub fn title(operation: &Operation) -> Option<String> {
    present(&operation.summary)
        .filter(|summary| !summary.contains(['\n', '\r']))
        .filter(|summary| summary.chars().count() <= MAX_TITLE_CHARS)
        .map(str::to_string)
}

/// The three hints, from the method alone. `mcp::mcp_tool` writes all three
/// out for every tool (TC-HINT-001).
pub fn hints(method: Method) -> Hints {
    use Method::*;
    Hints {
        // TC-HINT-002: the methods that only read.
        read_only: matches!(method, Get | Head | Options),
        // TC-HINT-003: the methods that replace or remove.
        destructive: matches!(method, Delete | Put | Patch),
        // TC-HINT-004: all but POST and PATCH may be repeated to no new effect.
        idempotent: !matches!(method, Post | Patch),
    }
}

fn present(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|text| !text.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;
    use crate::load::DocPath;

    fn described(summary: Option<&str>, description: Option<&str>) -> Operation {
        Operation {
            method: Method::Get,
            path: "/".into(),
            at: DocPath::root(),
            operation_id: None,
            x_agentify: None,
            x_mcp: None,
            summary: summary.map(str::to_string),
            description: description.map(str::to_string),
            deprecated: false,
            tags: Vec::new(),
            parameters: Vec::new(),
            request_body: None,
        }
    }

    #[rstest]
    #[case::both(
        Some("List pets"),
        Some("All of them."),
        Some("List pets\n\nAll of them.")
    )]
    #[case::summary_only(Some("List pets"), None, Some("List pets"))]
    #[case::description_only(None, Some("All of them.\n"), Some("All of them.\n"))]
    #[case::neither(None, None, None)]
    #[case::blank_counts_as_missing(Some("  "), Some("Only this."), Some("Only this."))]
    #[case::both_blank(Some(""), Some("\n"), None)]
    fn descriptions(
        #[case] summary: Option<&str>,
        #[case] body: Option<&str>,
        #[case] expected: Option<&str>,
    ) {
        assert_eq!(description(&described(summary, body)).as_deref(), expected);
    }

    #[rstest]
    #[case::short(Some("List pets".into()), true)]
    #[case::exactly_80_chars(Some("é".repeat(80)), true)]
    #[case::chars_81(Some("a".repeat(81)), false)]
    #[case::two_lines(Some("List\npets".into()), false)]
    #[case::carriage_return(Some("List\rpets".into()), false)]
    #[case::missing(None, false)]
    #[case::blank(Some(" ".into()), false)]
    fn titles(#[case] summary: Option<String>, #[case] is_title: bool) {
        let operation = described(summary.as_deref(), Some("d"));
        let expected = if is_title { summary } else { None };
        assert_eq!(title(&operation), expected);
    }

    #[rstest]
    #[case(Method::Get, true, false, true)]
    #[case(Method::Put, false, true, true)]
    #[case(Method::Post, false, false, false)]
    #[case(Method::Delete, false, true, true)]
    #[case(Method::Options, true, false, true)]
    #[case(Method::Head, true, false, true)]
    #[case(Method::Patch, false, true, false)]
    #[case(Method::Trace, false, false, true)]
    fn hints_by_method(
        #[case] method: Method,
        #[case] read_only: bool,
        #[case] destructive: bool,
        #[case] idempotent: bool,
    ) {
        assert_eq!(
            hints(method),
            Hints {
                read_only,
                destructive,
                idempotent
            }
        );
    }
}
