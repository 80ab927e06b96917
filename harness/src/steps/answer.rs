//! Steps for TC-ANS-*: what the agent gets back from the call (how the
//! upstream answers is set up in [`super::upstream`]).

use cucumber::{gherkin::Step, then};

use super::failure::{fail, StepResult};
use super::written::Written;
use super::{
    call_support::{clip, clip_from, error_text, expand, result, success_text, Repeated},
    support::doc_string,
};
use crate::world::GatewayWorld;

/// Words of which a note about a cut body must say at least one.
const CUT_WORDS: &[&str] = &["truncat", "cut", "1 mb", "1048576", "1,048,576", "limit"];

/// The words of [`CUT_WORDS`] that say a cut outright. The size alone does
/// not, where a body that fits is let by: a gateway that shows the answer's
/// headers shows `content-length: 1048576` for a body of exactly that size.
const CUT_SAID: &[&str] = &["truncat", "cut", "limit"];

/// The body as text, character for character: nothing added, nothing
/// trimmed (a final line break included).
#[then("the call succeeds with exactly the text:")]
async fn succeeds_with_text(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let expected = expand(world, doc_string(step)?);
    exactly(success_text(world)?, &expected)
}

#[then(expr = "the call succeeds with exactly the text {string}")]
async fn succeeds_with_text_inline(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    exactly(success_text(world)?, &expected)
}

/// The rule asks for the same JSON pretty-printed, with any indentation and
/// every number digit for digit: the text must hold, over several lines, a
/// JSON value equal to the expected one, its numbers written as they are in
/// the expected one (object members may come in any order).
#[then("the call succeeds with the JSON, pretty-printed:")]
async fn succeeds_with_pretty_json(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let expected = expand(world, doc_string(step)?);
    holds_pretty_json(success_text(world)?, &expected)?;
    Ok(())
}

fn holds_pretty_json(text: &str, expected: &str) -> anyhow::Result<()> {
    let wanted = Written::parse_all(expected)
        .ok_or_else(|| anyhow::anyhow!("not JSON in the feature file: {expected}"))?;
    let mut one_line = false;
    for (start, _) in text.match_indices(['{', '[']) {
        let Some((value, end)) = Written::parse_at(text, start) else {
            continue;
        };
        if value.same(&wanted) {
            if text[start..end].contains('\n') {
                return Ok(());
            }
            one_line = true;
        }
    }
    if one_line {
        fail!(
            "the JSON came back on one line, not pretty-printed:\n{}",
            clip(text)
        );
    }
    fail!(
        "expected the result to hold this JSON, pretty-printed (any indentation, every number as written):\n{expected}\ngot:\n{}",
        clip(text)
    )
}

#[then(expr = "the call succeeds with a text containing {string}")]
async fn succeeds_containing_inline(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    contains(success_text(world)?, &expected)
}

#[then(expr = "the call succeeds with a text containing {repeated}")]
async fn succeeds_containing_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let expected = long.text(world);
    contains(success_text(world)?, &expected)
}

/// The status as a number of its own: `500` in "answered 500" but not in
/// the port of "127.0.0.1:45001" (TC-ANS-008, TC-ANS-010).
#[then(expr = "the call fails with a text naming the status {int}")]
async fn fails_naming_status(world: &mut GatewayWorld, status: u16) -> StepResult {
    names_number(error_text(world)?, status)
}

#[then(expr = "the call succeeds with a text naming the status {int}")]
async fn succeeds_naming_status(world: &mut GatewayWorld, status: u16) -> StepResult {
    names_number(success_text(world)?, status)
}

fn names_number(text: &str, number: u16) -> StepResult {
    if !has_whole_number(text, number) {
        fail!(
            "expected the text to name the status {number} (as a number of its own), got:\n{}",
            clip(text)
        );
    }
    Ok(())
}

/// Whether `number` occurs in `text` with no digit right before or after it.
fn has_whole_number(text: &str, number: u16) -> bool {
    let digits = number.to_string();
    let bytes = text.as_bytes();
    text.match_indices(&digits).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + digits.len()).copied();
        !before.is_some_and(|b| b.is_ascii_digit()) && !after.is_some_and(|b| b.is_ascii_digit())
    })
}

#[then(expr = "the call fails with a text containing {string}")]
async fn fails_containing(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    contains(error_text(world)?, &expected)
}

/// Where a masking scenario needs a part of the answer shown, and showing
/// it is the rule named's matter: a result without it is not judged.
#[then(regex = r#"^the result shows "(.*)", which (TC-[A-Z]+-\d+) requires$"#)]
async fn result_shows(world: &mut GatewayWorld, part: String, rule: String) -> StepResult {
    let part = expand(world, &part);
    let (_, text) = result(world)?;
    if !text.contains(&part) {
        let text = clip(text);
        return Err(world
            .not_judged(&rule, format!("the result does not show {part:?}:\n{text}"))
            .into());
    }
    Ok(())
}

#[then(expr = "the call fails with a text containing {repeated}")]
async fn fails_containing_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let expected = long.text(world);
    contains(error_text(world)?, &expected)
}

#[then(expr = "the result contains {string}")]
async fn result_contains(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    contains(result(world)?.1, &expected)
}

#[then(expr = "the result does not contain {string}")]
async fn result_lacks(world: &mut GatewayWorld, unwanted: String) -> StepResult {
    let unwanted = expand(world, &unwanted);
    lacks(result(world)?.1, &unwanted)
}

#[then(expr = "the result does not contain {repeated}")]
async fn result_lacks_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let unwanted = long.text(world);
    lacks(result(world)?.1, &unwanted)
}

#[then("the result notes that the body was cut")]
async fn notes_cut(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    if !super::call_support::says_one_of(text, CUT_WORDS) {
        fail!(
            "expected a note that the body was cut (one of {CUT_WORDS:?}):\n{}",
            clip(text)
        );
    }
    Ok(())
}

#[then("the result has no note that the body was cut")]
async fn no_cut_note(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    if super::call_support::says_one_of(text, CUT_SAID) {
        fail!(
            "the whole body fits, yet the result speaks of a cut:\n{}",
            clip(text)
        );
    }
    Ok(())
}

#[then("the result contains no replacement character")]
async fn no_replacement(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    if let Some(at) = text.find('\u{FFFD}') {
        fail!(
            "the result has U+FFFD at byte {at}: a character was cut in two:\n{}",
            clip_from(text, at, 40)
        );
    }
    Ok(())
}

fn exactly(text: &str, expected: &str) -> StepResult {
    if text != expected {
        fail!(
            "expected the text to be exactly {expected:?}\ngot {text:?}",
            expected = clip(expected),
            text = clip(text)
        );
    }
    Ok(())
}

fn contains(text: &str, expected: &str) -> StepResult {
    if !text.contains(expected) {
        fail!(
            "expected the result to contain {}\ngot:\n{}",
            clip(expected),
            clip(text)
        );
    }
    Ok(())
}

fn lacks(text: &str, unwanted: &str) -> StepResult {
    if let Some(at) = text.find(unwanted) {
        fail!(
            "the result contains {} at byte {at}:\n{}",
            clip(unwanted),
            clip_from(text, at, 200)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_a_number_of_its_own() {
        assert!(has_whole_number("upstream answered 500: down", 500));
        assert!(has_whole_number("500", 500));
        assert!(has_whole_number("HTTP 204 (no content)", 204));
        // Inside a port or a longer number, it is not the status.
        assert!(!has_whole_number(
            "GET http://127.0.0.1:45001/pets failed",
            500
        ));
        assert!(!has_whole_number("took 5000 ms", 500));
        assert!(!has_whole_number("id 1500", 500));
    }

    const BODY: &str = r#"{"id": 7, "price": 0.10000000000000000555, "big": 123456789012345678901234567890, "tags": ["a", "é"], "owner": {"name": "Ada", "none": null, "ok": true}}"#;

    #[test]
    fn pretty_json_with_any_indentation_passes() {
        let two = "{\n  \"id\": 7,\n  \"price\": 0.10000000000000000555,\n  \"big\": 123456789012345678901234567890,\n  \"tags\": [\n    \"a\",\n    \"é\"\n  ],\n  \"owner\": {\n    \"name\": \"Ada\",\n    \"none\": null,\n    \"ok\": true\n  }\n}";
        assert!(holds_pretty_json(two, BODY).is_ok());
        let tab = two.replace("  ", "\t");
        assert!(holds_pretty_json(&tab, BODY).is_ok());
        let four = format!("HTTP 200\n{}\n(end)", two.replace("  ", "    "));
        assert!(holds_pretty_json(&four, BODY).is_ok());
        // Escapes that decode to the same string, members in another order.
        let other = "{\n\"owner\": {\"ok\": true, \"none\": null, \"name\": \"Ada\"},\n\"tags\": [\"a\", \"\\u00e9\"], \"big\": 123456789012345678901234567890,\n\"price\": 0.10000000000000000555, \"id\": 7}";
        assert!(holds_pretty_json(other, BODY).is_ok());
    }

    #[test]
    fn json_that_is_not_pretty_or_not_the_same_fails() {
        // The body as it came, on one line: not pretty-printed.
        assert!(holds_pretty_json(BODY, BODY).is_err());
        // A number that lost digits on the way through a float.
        let lossy = BODY
            .replace("0.10000000000000000555", "0.1")
            .replace(", ", ",\n");
        assert!(holds_pretty_json(&lossy, BODY).is_err());
        let rounded = BODY
            .replace("123456789012345678901234567890", "1.2345678901234568e29")
            .replace(", ", ",\n");
        assert!(holds_pretty_json(&rounded, BODY).is_err());
        // Another value, a missing member, an extra item.
        let changed = BODY.replace("\"Ada\"", "\"Bob\"").replace(", ", ",\n");
        assert!(holds_pretty_json(&changed, BODY).is_err());
        let missing = BODY.replace(", \"ok\": true", "").replace(", ", ",\n");
        assert!(holds_pretty_json(&missing, BODY).is_err());
        let extra = BODY.replace("\"é\"]", "\"é\", \"b\"]").replace(", ", ",\n");
        assert!(holds_pretty_json(&extra, BODY).is_err());
        assert!(holds_pretty_json("no JSON here", BODY).is_err());
    }
}
