//! `docs/errors.md`, rendered from the catalogue for a writer to publish,
//! and the tests that keep it equal to the catalogue and tied to the rules.
//! Test code only: the gateway itself never renders the page.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::*;

/// The rules catalogue, read at build time so the docs link to the sections
/// the rules really live in.
const RULES_MARKDOWN: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/rules.md"));

/// Where a rule is described: the heading of its section in `rules.md`.
fn rule_section(rule: &str) -> Option<&'static str> {
    let mut heading = None;
    for line in RULES_MARKDOWN.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            heading = Some(title.trim());
        } else if line.starts_with(&rule_row(rule)) {
            return heading;
        }
    }
    None
}

/// How a rule's row in `rules.md` starts: its anchor, then its ID.
fn rule_row(rule: &str) -> String {
    format!("| <a id=\"{rule}\"></a>{rule} |")
}

/// The feature file a section names, e.g. ``(`features/checking.feature`)``.
fn feature_file(heading: &str) -> Option<&str> {
    let start = heading.find("`features/")? + 1;
    let end = heading[start..].find('`')? + start;
    Some(&heading[start..end])
}

/// Renders `docs/errors.md`.
fn catalogue_markdown() -> String {
    let mut page = String::new();
    let _ = write_catalogue(&mut page);
    page
}

fn write_catalogue(page: &mut String) -> std::fmt::Result {
    writeln!(page, "# Errors")?;
    writeln!(page)?;
    writeln!(
        page,
        "<!-- Generated from reference/src/errors.rs by `catalogue_markdown()`. Do not edit: \
         run `UPDATE_ERROR_DOCS=1 cargo test -p hosted-mcp-gateway --lib errors` to regenerate. -->"
    )?;
    writeln!(page)?;
    writeln!(
        page,
        "Every message an agent can get from the reference gateway starts with a stable code \
         in brackets, such as `[UPSTREAM_STATUS]`. Tool errors come back as a tool result with \
         `isError: true`; notes are part of a successful result; the one protocol error is a \
         JSON-RPC error. Text that came from the API, and the request's URL, never shows the \
         credential: it reads `[credential]`."
    )?;
    writeln!(page)?;
    writeln!(page, "| Code | Comes back as | Rules |")?;
    writeln!(page, "|---|---|---|")?;
    for code in ErrorCode::ALL {
        let delivery = match code.delivery() {
            Delivery::ProtocolError => "JSON-RPC error -32602",
            Delivery::ToolError => "tool error",
            Delivery::Note => "note",
            Delivery::HttpRefusal => "HTTP refusal",
        };
        let rules = if code.rules().is_empty() {
            "—".to_owned()
        } else {
            code.rules().join(", ")
        };
        writeln!(
            page,
            "| [`{name}`](#{slug}) | {delivery} | {rules} |",
            name = code.code(),
            slug = code.code().to_ascii_lowercase()
        )?;
    }
    for code in ErrorCode::ALL {
        writeln!(page)?;
        writeln!(page, "## {}", code.code())?;
        writeln!(page)?;
        writeln!(page, "{}", code.meaning())?;
        writeln!(page)?;
        writeln!(page, "Example:")?;
        writeln!(page)?;
        writeln!(page, "```text")?;
        writeln!(page, "{}", code.example().render())?;
        writeln!(page, "```")?;
        writeln!(page)?;
        writeln!(page, "What to do:")?;
        writeln!(page)?;
        writeln!(page, "- The agent: {}", code.agent_should())?;
        writeln!(page, "- The operator: {}", code.operator_should())?;
        writeln!(page)?;
        if let ProducedBy::Reference(why) = code.produced_by() {
            writeln!(page, "Produced by: no rule of the suite; {why}.")?;
            continue;
        }
        writeln!(page, "Produced by:")?;
        writeln!(page)?;
        for (rule, why) in code.reasons() {
            write!(page, "- [{rule}](rules.md#{rule}): {why}")?;
            if let Some(feature) = rule_section(rule).and_then(feature_file) {
                write!(
                    page,
                    " (scenarios tagged `@{rule}` in [{feature}](../{feature}))"
                )?;
            }
            writeln!(page)?;
        }
        writeln!(page)?;
        writeln!(
            page,
            "The scenarios that produced it against the reference, by rule: \
             [scenarios.md#{}](scenarios.md#{}).",
            code.code().to_ascii_lowercase(),
            code.code().to_ascii_lowercase()
        )?;
    }
    Ok(())
}

/// Error docs link every message to the scenarios that produce it, so
/// each code needs at least one rule, and every rule it names must exist;
/// a code of the reference's own names a test of the reference that exists.
#[test]
fn every_code_is_produced_by_a_catalogued_rule() {
    let rules = RULES_MARKDOWN;
    for code in ErrorCode::ALL {
        if let ProducedBy::Reference(why) = code.produced_by() {
            let test = why
                .split('`')
                .find(|part| part.starts_with("reference/"))
                .unwrap_or_else(|| panic!("{} names no test", code.code()));
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(test);
            assert!(
                path.is_file(),
                "{} names {test}, which is missing",
                code.code()
            );
            continue;
        }
        assert!(!code.rules().is_empty(), "{} has no rule", code.code());
        for (rule, why) in code.reasons() {
            assert!(
                rules.contains(&rule_row(rule)),
                "{} names {rule}, which docs/rules.md does not list",
                code.code()
            );
            assert!(
                !why.trim().is_empty(),
                "{} gives no reason for {rule}",
                code.code()
            );
        }
        let distinct: HashSet<&str> = code.rules().into_iter().collect();
        assert_eq!(
            distinct.len(),
            code.rules().len(),
            "{} names a rule twice",
            code.code()
        );
    }
}

#[test]
fn every_rule_named_exists_in_the_rules_catalogue() {
    for code in ErrorCode::ALL {
        for rule in code.rules() {
            assert!(
                rule_section(rule).is_some(),
                "{rule} is not in docs/rules.md"
            );
        }
    }
}

#[test]
fn sections_name_their_feature_file() {
    assert_eq!(
        feature_file("The request (`features/request.feature`)"),
        Some("features/request.feature")
    );
}

/// `docs/errors.md` is generated; set `UPDATE_ERROR_DOCS=1` to rewrite it.
#[test]
fn error_docs_match_the_catalogue() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/errors.md");
    let generated = catalogue_markdown();
    if std::env::var_os("UPDATE_ERROR_DOCS").is_some_and(|value| value == "1") {
        std::fs::write(path, &generated).expect("docs/errors.md is writable");
        return;
    }
    let written = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
            written == generated,
            "docs/errors.md differs from the error catalogue in reference/src/errors.rs; \
             regenerate it with `UPDATE_ERROR_DOCS=1 cargo test -p hosted-mcp-gateway --lib errors`"
        );
}
