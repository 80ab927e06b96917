//! Text to JSON value: JSON or YAML, with the line and column of a syntax error.
//!
//! Both parsers stop at 128 levels of nesting, which bounds every recursive walk
//! over the value later on.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::error::{LoadError, TextPosition};

/// Parse a document, JSON or YAML (TC-LOAD-001, TC-LOAD-002). Text that starts
/// with `{` is read as JSON (exact positions in errors, and faster); everything
/// else, and JSON that turns out to be YAML flow style, as YAML.
pub fn parse(text: &str, origin: &str) -> Result<Value, LoadError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        match serde_json::from_str(text) {
            Ok(value) => Ok(value),
            Err(json_error) => parse_yaml(text, origin).map_err(|_| LoadError::Syntax {
                origin: origin.to_string(),
                format: "JSON",
                // serde_json counts columns from 1 but says 0 for an error
                // met right after a line break: that is the line's first column.
                position: TextPosition(Some((json_error.line(), json_error.column().max(1)))),
                message: json_message(&json_error),
            }),
        }
    } else {
        parse_yaml(text, origin)
    }
}

fn parse_yaml(text: &str, origin: &str) -> Result<Value, LoadError> {
    yaml_serde::from_str(text)
        .map(|YamlValue(value)| value)
        .map_err(|error| {
            let position = error.location().map(|at| (at.line(), at.column()));
            LoadError::Syntax {
                origin: origin.to_string(),
                format: "YAML",
                position: TextPosition(position),
                message: without_position(&error.to_string()),
            }
        })
}

/// serde_json's message without its trailing ` at line L column C`, which the
/// error already carries.
fn json_message(error: &serde_json::Error) -> String {
    without_position(&error.to_string())
}

fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_string(),
        None => message.to_string(),
    }
}

/// The line and column (both from 1, the column in characters) where a
/// `$ref`'s value starts in `text`: the `occurrence`-th (from 0) of the
/// `total` references written as `reference`, in document order. `None`
/// when the text does not show exactly `total` of them on lines with a
/// `$ref` (one in a comment, escaped, or folded onto the next line), since
/// then the count cannot tell which is which.
pub fn ref_position(
    text: &str,
    reference: &str,
    occurrence: usize,
    total: usize,
) -> Option<(usize, usize)> {
    if reference.is_empty() {
        return None;
    }
    let mut seen = 0;
    let mut found = None;
    for (index, line) in text.lines().enumerate() {
        let Some(start) = line.find("$ref") else {
            continue;
        };
        let starts: Vec<usize> = written_values(&line[start..], reference).collect();
        if found.is_none() && seen + starts.len() > occurrence {
            let byte = start + starts[occurrence - seen];
            found = Some((index + 1, line[..byte].chars().count() + 1));
        }
        seen += starts.len();
    }
    found.filter(|_| seen == total)
}

/// Where `value` is written whole in `line` (byte offsets), as a YAML or
/// JSON scalar: between quotes, or after a colon or a space and before a
/// quote, a comma, a brace, a space or the end.
fn written_values<'a>(line: &'a str, value: &'a str) -> impl Iterator<Item = usize> + 'a {
    line.match_indices(value)
        .filter(move |(at, _)| {
            let before = line[..*at].chars().next_back();
            let after = line[at + value.len()..].chars().next();
            before.is_some_and(|c| matches!(c, '\'' | '"' | ' ' | '\t' | ':'))
                && after.is_none_or(|c| matches!(c, '\'' | '"' | ' ' | '\t' | ',' | '}' | '\r'))
        })
        .map(|(at, _)| at)
}

/// A JSON value read from YAML. Unlike `serde_json::Value`'s own reader it takes
/// integers beyond 64 bits, which YAML hands over as 128-bit: they become the
/// nearest float, as a JSON parser would make them.
struct YamlValue(Value);

impl<'de> Deserialize<'de> for YamlValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(YamlValueVisitor)
            .map(YamlValue)
    }
}

struct YamlValueVisitor;

impl<'de> Visitor<'de> for YamlValueVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a YAML value that JSON can hold")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_i128<E>(self, value: i128) -> Result<Value, E> {
        Ok(Number::from_i128(value).map_or_else(|| float(value as f64), Value::Number))
    }

    fn visit_u128<E>(self, value: u128) -> Result<Value, E> {
        Ok(Number::from_u128(value).map_or_else(|| float(value as f64), Value::Number))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(float(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_string()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        YamlValue::deserialize(deserializer).map(|YamlValue(value)| value)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(YamlValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    /// Keys of any scalar type (`200:`, `true:`) are read as the text they are written as.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some((key, YamlValue(value))) = map.next_entry::<String, YamlValue>()? {
            members.insert(key, value);
        }
        Ok(Value::Object(members))
    }
}

/// JSON has no NaN or infinity: such a YAML float becomes `null`.
fn float(value: f64) -> Value {
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn yaml_keys_of_any_scalar_become_strings() {
        let value = parse(
            "responses:\n  200:\n    description: ok\n  true: x\n",
            "t.yaml",
        );
        assert_eq!(
            value.ok(),
            Some(json!({"responses": {"200": {"description": "ok"}, "true": "x"}}))
        );
    }

    #[test]
    fn yaml_integers_beyond_64_bits_become_floats() {
        let value = parse(
            "min: -9223372036854776000\nmax: 99999999999999999999\nnan: .nan\n",
            "t.yaml",
        );
        assert_eq!(
            value.ok(),
            Some(json!({"min": -9223372036854776000.0_f64, "max": 1e20, "nan": null}))
        );
    }

    #[test]
    fn json_with_a_byte_order_mark_parses() {
        assert_eq!(
            parse("\u{feff}{\"openapi\": \"3.1.0\"}", "t.json").ok(),
            Some(json!({"openapi": "3.1.0"}))
        );
    }

    #[test]
    fn yaml_flow_mapping_is_not_mistaken_for_broken_json() {
        assert_eq!(
            parse("{openapi: 3.0.3, paths: {}}", "t.yaml").ok(),
            Some(json!({"openapi": "3.0.3", "paths": {}}))
        );
    }

    #[test]
    fn bad_yaml_names_file_line_and_column() {
        let error = parse("openapi: 3.0.0\npaths:\n  /a: [\n", "bad.yaml")
            .err()
            .map(|e| e.to_string());
        let message = error.unwrap_or_default();
        assert!(
            message.starts_with("bad.yaml:4:1: not valid YAML: "),
            "{message}"
        );
        assert!(!message.contains(" at line "), "{message}");
    }

    #[test]
    fn bad_json_names_file_line_and_column() {
        let error = parse(
            "{\n  \"openapi\": \"3.0.0\",\n  \"paths\": {,}\n}",
            "bad.json",
        )
        .err()
        .map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("bad.json:3:13: not valid JSON: key must be a string")
        );
    }

    #[test]
    fn a_reference_is_found_on_its_line_and_column_by_its_rank() {
        let yaml = "a:\n  $ref: 'Pet.yaml'\nb: {$ref: NewPet.yaml}\nc:\n  - $ref: \"Pet.yaml\"\n";
        assert_eq!(ref_position(yaml, "Pet.yaml", 0, 2), Some((2, 10)));
        assert_eq!(ref_position(yaml, "Pet.yaml", 1, 2), Some((5, 12)));
        assert_eq!(ref_position(yaml, "NewPet.yaml", 0, 1), Some((3, 11)));
        let json = "{\"a\": {\"$ref\": \"x.json\"}, \"b\": {\"$ref\": \"x.json\"}}";
        assert_eq!(ref_position(json, "x.json", 0, 2), Some((1, 17)));
        assert_eq!(ref_position(json, "x.json", 1, 2), Some((1, 42)));
        // Columns count characters, not bytes.
        let wide = "é: {$ref: Pet.yaml}\n";
        assert_eq!(ref_position(wide, "Pet.yaml", 0, 1), Some((1, 11)));
    }

    #[test]
    fn a_reference_the_text_does_not_show_one_for_one_has_no_position() {
        let commented = "# $ref: Pet.yaml\na: {$ref: Pet.yaml}\n";
        assert_eq!(ref_position(commented, "Pet.yaml", 0, 1), None);
        let folded = "a:\n  $ref: >-\n    Pet.yaml\n";
        assert_eq!(ref_position(folded, "Pet.yaml", 0, 1), None);
        assert_eq!(ref_position("$ref: ''", "", 0, 1), None);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep_json = format!("{{\"a\": {}{}}}", "[".repeat(1_000), "]".repeat(1_000));
        assert!(matches!(
            parse(&deep_json, "deep.json"),
            Err(LoadError::Syntax { format: "JSON", .. })
        ));
        let deep_yaml = format!("a: {}{}", "[".repeat(1_000), "]".repeat(1_000));
        assert!(matches!(
            parse(&deep_yaml, "deep.yaml"),
            Err(LoadError::Syntax { .. })
        ));
    }
}
