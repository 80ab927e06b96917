//! Looking into JSON the gateway sent: following pointers through `$ref`s,
//! comparing values as JSON Schema does, and showing them in messages.
//! Knows nothing of scenarios, so the world and the steps can both use it.

use std::fmt;

use anyhow::{bail, Context as _};
use percent_encoding::percent_decode_str;
use serde_json::{Number, Value};

/// Pretty JSON for failure messages.
pub fn show(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The names of listed tools, in order.
pub fn tool_names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or("<no name>").to_owned())
        .collect()
}

/// The name a JSON Pointer token stands for (`a~1b` is `a/b`).
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// The JSON Pointer token for `name` (`a/b` is `a~1b`).
pub fn escape_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The value at a JSON Pointer. In a JSON Schema, a `$ref` met on the way is
/// followed (within `root`) when the next token is not beside it, so checks
/// hold whether a gateway inlines referenced schemas or keeps them in `$defs`.
pub fn follow<'a>(root: &'a Value, pointer: &str) -> anyhow::Result<Option<&'a Value>> {
    if pointer.is_empty() {
        return Ok(Some(root));
    }
    let Some(tokens) = pointer.strip_prefix('/') else {
        bail!("{pointer:?} is not a JSON Pointer");
    };
    let mut here = root;
    for token in tokens.split('/') {
        let token = unescape_token(token);
        let mut hops = 0;
        loop {
            if let Some(next) = child(here, &token) {
                here = next;
                break;
            }
            match here.get("$ref").and_then(Value::as_str) {
                Some(reference) if hops < 32 => {
                    here = resolve(root, reference)?;
                    hops += 1;
                }
                _ => return Ok(None),
            }
        }
    }
    Ok(Some(here))
}

fn child<'a>(value: &'a Value, token: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map.get(token),
        Value::Array(items) => items.get(token.parse::<usize>().ok()?),
        _ => None,
    }
}

/// Resolves a `$ref` inside `root`; only same-document references qualify.
/// The fragment is a URI fragment, so it is percent-decoded first
/// (`#/$defs/Pet%20v1` names the key `Pet v1`). A reference that names
/// nothing fails with [`UnusableSchema`].
pub fn resolve<'a>(root: &'a Value, reference: &str) -> anyhow::Result<&'a Value> {
    let unusable = |why: &str| UnusableSchema(format!("$ref {reference:?} {why}"));
    let fragment = reference
        .strip_prefix('#')
        .with_context(|| unusable("points outside the schema"))?;
    let pointer =
        percent_decode(fragment).with_context(|| unusable("is not UTF-8 once decoded"))?;
    root.pointer(&pointer)
        .with_context(|| unusable("does not resolve inside the schema"))
}

/// Why a published schema cannot be applied as it is: a `$ref` that names
/// nothing inside it, references that lead only back to themselves, a
/// keyword a validator refuses. That is the matter of one rule, that input
/// schemas are self-contained JSON Schema a validator can use; a step that
/// meets this error elsewhere cannot see its own rule, so it is a type the
/// steps can tell from a verdict.
#[derive(Debug)]
pub struct UnusableSchema(pub String);

impl fmt::Display for UnusableSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UnusableSchema {}

/// `%XX` escapes decoded; anything else, a stray `%` included, kept.
pub fn percent_decode(text: &str) -> anyhow::Result<String> {
    Ok(percent_decode_str(text).decode_utf8()?.into_owned())
}

/// JSON values compared as JSON Schema compares them (`const`, `enum`):
/// numbers by their mathematical value, so `50` and `50.0` are equal, while
/// `1` and `true`, or `50` and `"50"`, are not. Object keys in any order.
pub fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(key, x)| ys.get(key).is_some_and(|y| same_json(x, y)))
        }
        _ => a == b,
    }
}

/// Two numbers of equal value: integers exactly (also when one is written
/// as a float with no fraction), floats as floats.
fn same_number(a: &Number, b: &Number) -> bool {
    match (integral(a), integral(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => a.as_f64() == b.as_f64(),
        // A number with a fraction never equals an integer.
        _ => false,
    }
}

/// The number's value when it is a whole number.
fn integral(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    // Every whole f64 below 2^127 converts to i128 exactly.
    (f.fract() == 0.0 && f.abs() < 1.7e38).then_some(f as i128)
}

/// Every `$ref` string anywhere in `value`.
pub fn refs(value: &Value) -> Vec<&str> {
    match value {
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, v)| match (key.as_str(), v) {
                ("$ref", Value::String(r)) => vec![r.as_str()],
                _ => refs(v),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(refs).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn follows_refs_along_a_pointer() {
        let schema = json!({
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"properties": {"kids": {"items": {"$ref": "#/$defs/Node"}}, "a/b": {"type": "string"}}}}
        });
        assert_eq!(
            follow(
                &schema,
                "/properties/node/properties/kids/items/properties/a~1b/type"
            )
            .unwrap(),
            Some(&json!("string"))
        );
        assert_eq!(
            follow(&schema, "/properties/node/$ref").unwrap(),
            Some(&json!("#/$defs/Node"))
        );
        assert_eq!(follow(&schema, "/properties/missing").unwrap(), None);
        assert_eq!(refs(&schema), ["#/$defs/Node", "#/$defs/Node"]);
        assert!(resolve(&schema, "#/components/schemas/X").is_err());
        assert!(resolve(&schema, "other.json#/X").is_err());
    }

    #[test]
    fn a_reference_that_names_nothing_is_told_from_a_verdict() {
        let schema = json!({"properties": {"pet": {"$ref": "#/$defs/Pet"}}});
        let unusable = |found: anyhow::Result<Option<&Value>>| {
            let error = found.expect_err("the reference names nothing");
            // Steps add their own context; the kind must survive it.
            let error = error.context("in the input schema of \"addPet\"");
            error
                .downcast_ref::<UnusableSchema>()
                .map(ToString::to_string)
        };
        assert_eq!(
            unusable(follow(&schema, "/properties/pet/type")).as_deref(),
            Some("$ref \"#/$defs/Pet\" does not resolve inside the schema")
        );
        assert!(unusable(resolve(&schema, "other.json#/X").map(Some)).is_some());
        assert!(unusable(resolve(&schema, "#/$defs/%FF").map(Some)).is_some());
        // A pointer that finds nothing is an answer, not an unusable schema.
        assert_eq!(follow(&schema, "/properties/dog/type").unwrap(), None);
    }

    #[test]
    fn refs_are_uri_fragments() {
        let schema = json!({"$defs": {"Pet v1": {"type": "object"}, "a%b": {}}});
        assert_eq!(
            resolve(&schema, "#/$defs/Pet%20v1").unwrap(),
            &json!({"type": "object"})
        );
        assert!(resolve(&schema, "#/$defs/a%25b").is_ok());
        assert!(resolve(&schema, "#/$defs/Pet%20v2").is_err());
        assert_eq!(percent_decode("a%+5%2Fb%").unwrap(), "a%+5/b%");
    }

    #[test]
    fn numbers_compare_by_value_as_json_schema_does() {
        // The same number, written as an integer or a float: equal.
        assert!(same_json(&json!(50), &json!(50.0)));
        assert!(same_json(&json!(-3), &json!(-3.0)));
        assert!(same_json(&json!(0), &json!(-0.0)));
        assert!(same_json(
            &json!({"a": [1, {"b": 2}], "c": 0.5}),
            &json!({"c": 0.5, "a": [1.0, {"b": 2.0}]})
        ));
        // Another number, another type, another shape: not equal, so a
        // gateway that publishes the wrong bound still fails.
        assert!(!same_json(&json!(50), &json!(50.5)));
        assert!(!same_json(&json!(50), &json!(51.0)));
        assert!(!same_json(&json!(50), &json!("50")));
        assert!(!same_json(&json!(1), &json!(true)));
        assert!(!same_json(&json!(0), &json!(null)));
        assert!(!same_json(&json!([1, 2]), &json!([2, 1])));
        assert!(!same_json(&json!([1]), &json!([1, 1])));
        assert!(!same_json(&json!({"a": 1}), &json!({"a": 1, "b": 1})));
        assert!(!same_json(
            &json!(u64::MAX),
            &json!(1.8446744073709552e19 + 4096.0)
        ));
        assert!(!same_json(&json!(0.1), &json!(0.1000001)));
    }
}
