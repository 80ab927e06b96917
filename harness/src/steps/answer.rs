//! Steps for TC-ANS-*: what the upstream answers (wiremock stubs and the mock
//! upstream's behaviours) and what the agent gets back from the call.

use std::time::Duration;

use cucumber::{gherkin::Step, given, then};
use mock_upstream::Behaviour;
use wiremock::{
    matchers::{method, path},
    Mock, ResponseTemplate,
};

use super::failure::{fail, StepResult};
use super::{
    call_support::{clip, clip_from, error_text, expand, result, success_text, Repeated},
    support::doc_string,
};
use crate::world::GatewayWorld;

/// Words of which a note about a cut body must say at least one.
const CUT_WORDS: &[&str] = &["truncat", "cut", "1 mb", "1048576", "1,048,576", "limit"];

async fn stub(world: &GatewayWorld, verb: &str, route: &str, response: ResponseTemplate) {
    Mock::given(method(verb))
        .and(path(route))
        .respond_with(response)
        .mount(world.upstream().stubs())
        .await;
}

/// A body of exactly these bytes, sent in one piece with no `Content-Type`.
fn without_content_type(world: &GatewayWorld, route: &str, status: u16, body: Vec<u8>) {
    world.upstream().set_behaviour(
        route,
        Behaviour::Chunked {
            status,
            content_type: String::new(),
            chunks: vec![body],
            pause: Duration::ZERO,
        },
    );
}

/// `size` bytes that are not UTF-8 (a PNG signature, then every byte value
/// in turn) with `marker` in the middle.
fn binary(size: usize, marker: &str) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    let cycle = (0..=255u8).cycle();
    bytes.extend(cycle.take(size.saturating_sub(bytes.len() + marker.len())));
    let middle = bytes.len() / 2;
    bytes.splice(middle..middle, marker.bytes());
    bytes.truncate(size);
    bytes
}

#[given(expr = "the upstream answers {word} {string} with status {int}")]
async fn answers_status(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
) -> StepResult {
    stub(world, &verb, &route, ResponseTemplate::new(status)).await;
    Ok(())
}

#[given(expr = "the upstream answers {word} {string} with status {int} and the {string} body:")]
async fn answers_body(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    step: &Step,
) -> StepResult {
    let body = expand(world, doc_string(step)?);
    let response = ResponseTemplate::new(status).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and the {string} body {string}"
)]
async fn answers_inline_body(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    body: String,
) -> StepResult {
    let body = expand(world, &body);
    let response = ResponseTemplate::new(status).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and the {string} header {string}"
)]
async fn answers_header(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    name: String,
    value: String,
) -> StepResult {
    let response =
        ResponseTemplate::new(status).insert_header(name.as_str(), expand(world, &value));
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and a {string} body of {repeated}"
)]
async fn answers_long_body(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    long: Repeated,
) -> StepResult {
    let body = long.text(world);
    let response = ResponseTemplate::new(status).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

/// Bytes written as hexadecimal pairs separated by spaces: `"F0 90 80 80"`.
fn hex_bytes(text: &str) -> anyhow::Result<Vec<u8>> {
    text.split_whitespace()
        .map(|pair| {
            u8::from_str_radix(pair, 16)
                .map_err(|_| anyhow::anyhow!("`{pair}` is not a byte in hexadecimal"))
        })
        .collect()
}

#[given(
    expr = "the upstream answers {word} {string} with a {string} body of {string} repeated {int} times followed by the bytes {string}"
)]
async fn answers_long_body_with_bytes(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    content_type: String,
    unit: String,
    count: usize,
    tail: String,
) -> StepResult {
    let mut body = unit.repeat(count).into_bytes();
    body.extend(hex_bytes(&tail)?);
    let response = ResponseTemplate::new(200).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and a {string} body of {int} bytes that are not UTF-8, holding {string}"
)]
async fn answers_binary(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    size: usize,
    marker: String,
) -> StepResult {
    let response = ResponseTemplate::new(status).set_body_raw(binary(size, &marker), &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {string} with status {int}, no content type and the body {string}"
)]
async fn answers_untyped_text(
    world: &mut GatewayWorld,
    route: String,
    status: u16,
    body: String,
) -> StepResult {
    let body = expand(world, &body).into_bytes();
    without_content_type(world, &route, status, body);
    Ok(())
}

#[given(
    expr = "the upstream answers {string} with status {int}, no content type and {int} bytes that are not UTF-8, holding {string}"
)]
async fn answers_untyped_binary(
    world: &mut GatewayWorld,
    route: String,
    status: u16,
    size: usize,
    marker: String,
) -> StepResult {
    without_content_type(world, &route, status, binary(size, &marker));
    Ok(())
}

#[given(expr = "the upstream answers {string} with an endless {string} body of {string}")]
async fn answers_endless(
    world: &mut GatewayWorld,
    route: String,
    content_type: String,
    unit: String,
) -> StepResult {
    let chunk = unit.repeat(8192 / unit.len().max(1)).into_bytes();
    world.upstream().set_behaviour(
        &route,
        Behaviour::Endless {
            content_type,
            chunk,
        },
    );
    Ok(())
}

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

/// A JSON value that keeps each number as it was written.
#[derive(Debug)]
enum Written {
    Null,
    Bool(bool),
    /// The literal, exponent marker in lower case and without a `+`.
    Number(String),
    String(String),
    Array(Vec<Written>),
    Object(Vec<(String, Written)>),
}

impl Written {
    /// The value that is the whole of `text` (blanks around it allowed).
    fn parse_all(text: &str) -> Option<Self> {
        let start = text.len() - text.trim_start().len();
        let (value, end) = Self::parse_at(text, start)?;
        text[end..].trim().is_empty().then_some(value)
    }

    /// The value starting at byte `at`, and the byte after it.
    fn parse_at(text: &str, at: usize) -> Option<(Self, usize)> {
        let mut parser = WrittenParser { text, at };
        let value = parser.value()?;
        Some((value, parser.at))
    }

    fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Null, Self::Null) => true,
            (Self::Bool(a), Self::Bool(b)) => a == b,
            (Self::Number(a), Self::Number(b)) | (Self::String(a), Self::String(b)) => a == b,
            (Self::Array(a), Self::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (Self::Object(a), Self::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(key, x)| b.iter().any(|(other, y)| key == other && x.same(y)))
            }
            _ => false,
        }
    }
}

struct WrittenParser<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> WrittenParser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn blanks(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.blanks();
        let found = self.rest().starts_with(token);
        if found {
            self.at += token.len();
        }
        found
    }

    fn value(&mut self) -> Option<Written> {
        self.blanks();
        let first = self.rest().chars().next()?;
        match first {
            '{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat("}") {
                    return Some(Written::Object(members));
                }
                loop {
                    self.blanks();
                    let Written::String(key) = self.string()? else {
                        return None;
                    };
                    if !self.eat(":") {
                        return None;
                    }
                    members.push((key, self.value()?));
                    if self.eat("}") {
                        return Some(Written::Object(members));
                    }
                    if !self.eat(",") {
                        return None;
                    }
                }
            }
            '[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat("]") {
                    return Some(Written::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.eat("]") {
                        return Some(Written::Array(items));
                    }
                    if !self.eat(",") {
                        return None;
                    }
                }
            }
            '"' => self.string(),
            't' if self.eat("true") => Some(Written::Bool(true)),
            'f' if self.eat("false") => Some(Written::Bool(false)),
            'n' if self.eat("null") => Some(Written::Null),
            '-' | '0'..='9' => self.number(),
            _ => None,
        }
    }

    fn string(&mut self) -> Option<Written> {
        let rest = self.rest();
        if !rest.starts_with('"') {
            return None;
        }
        let mut escaped = false;
        for (i, c) in rest.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    let literal = &rest[..=i];
                    self.at += i + 1;
                    return serde_json::from_str(literal).ok().map(Written::String);
                }
                _ => {}
            }
        }
        None
    }

    fn number(&mut self) -> Option<Written> {
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
            .unwrap_or(rest.len());
        let literal = &rest[..end];
        // Only a valid JSON number counts; serde_json knows the grammar.
        serde_json::from_str::<serde_json::Number>(literal).ok()?;
        self.at += end;
        let normal = literal.to_ascii_lowercase().replace("e+", "e");
        Some(Written::Number(normal))
    }
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
    if super::call_support::says_one_of(text, CUT_WORDS) {
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

    #[test]
    fn numbers_keep_their_digits() {
        let parse = |text| Written::parse_all(text).unwrap();
        assert!(parse("1e2").same(&parse("1E+2")));
        assert!(!parse("1.0").same(&parse("1")));
        assert!(!parse("1.50").same(&parse("1.5")));
        assert!(Written::parse_all("01").is_none());
        assert!(Written::parse_all("[1,]").is_none());
    }
}
