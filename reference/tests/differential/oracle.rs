//! An input schema reduced to what the checker checks, for a general
//! validator to judge instances by.
//!
//! The reduction keeps the checked keywords and drops the rest (`pattern`,
//! `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`, `if`, `uniqueItems`,
//! formats other than the four, ...). Depth belongs to the instance, not to
//! the schema: a `$defs` entry reached at depth 2 and at depth 8 must be
//! checked fully in the first place and without its children's schemas in the
//! second. So every schema reached through a `$ref` is copied once per depth
//! it is reached at, into a `$defs` entry of its own (`n0`, `n1`, ...), and
//! the schemas of values deeper than `MAX_CHECKED_DEPTH` become `true`.
//!
//! Two reductions bound what the checker may answer: what the `exact` one
//! accepts the checker must accept, and what the `lenient` one refuses the
//! checker must refuse. They differ only where the checker is lenient by
//! design: a member whose name some `patternProperties` pattern may match is
//! not additional (TC-CHECK-016), and since the checker reads patterns
//! without a regular-expression engine, it may let through a name the
//! pattern does not match. The lenient reduction drops
//! `additionalProperties` beside `patternProperties`.

use std::collections::HashMap;

use hosted_mcp_gateway::check::MAX_CHECKED_DEPTH;
use serde_json::{json, Map, Value};

/// The checked formats; the checker ignores every other name.
const FORMATS: [&str; 4] = ["date-time", "date", "email", "uuid"];

/// The JSON Schema type names; the checker ignores any other.
const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// A reduced schema, and where each of its `$defs` entries came from.
pub struct Reduced {
    pub schema: Value,
    /// For `$defs/n{i}`: the JSON Pointer of its schema in the input schema,
    /// and the depth it is checked at.
    pub origins: Vec<(String, usize)>,
}

impl Reduced {
    /// `#/$defs/n3/properties/x` told in the input schema's terms.
    pub fn describe(&self, pointer: &str) -> String {
        let origin = pointer
            .strip_prefix("#/$defs/n")
            .and_then(|rest| {
                let digits = rest.find('/').unwrap_or(rest.len());
                let index: usize = rest[..digits].parse().ok()?;
                self.origins
                    .get(index)
                    .map(|(at, depth)| format!(" (n{index} is #{at} at depth {depth})"))
            })
            .unwrap_or_default();
        format!("{pointer}{origin}")
    }
}

pub fn reduce(input_schema: &Map<String, Value>, lenient: bool) -> Reduced {
    let root = Value::Object(input_schema.clone());
    let mut reducer = Reducer {
        root: &root,
        lenient,
        defs: Map::new(),
        names: HashMap::new(),
        origins: Vec::new(),
    };
    let mut schema = reducer.reduce(&root, 0);
    if let Value::Object(keywords) = &mut schema {
        if !reducer.defs.is_empty() {
            keywords.insert("$defs".to_owned(), Value::Object(reducer.defs));
        }
    }
    Reduced {
        schema,
        origins: reducer.origins,
    }
}

struct Reducer<'s> {
    root: &'s Value,
    lenient: bool,
    defs: Map<String, Value>,
    /// (pointer into the input schema, depth) to the `$defs` entry's name.
    names: HashMap<(String, usize), String>,
    origins: Vec<(String, usize)>,
}

impl Reducer<'_> {
    /// The schema checked against a value at `depth`.
    fn reduce(&mut self, schema: &Value, depth: usize) -> Value {
        let keywords = match schema {
            Value::Bool(_) => return schema.clone(),
            Value::Object(keywords) => keywords,
            // The checker reads a schema of any other kind as no constraint.
            _ => return Value::Bool(true),
        };
        let mut reduced = Map::new();
        for (keyword, value) in keywords {
            let kept = match keyword.as_str() {
                "$ref" => value
                    .as_str()
                    .and_then(|reference| self.reference(reference, depth)),
                "type" => types(value),
                "required" => value.as_array().map(|names| {
                    names
                        .iter()
                        .filter(|name| name.is_string())
                        .cloned()
                        .collect()
                }),
                "enum" => value.is_array().then(|| value.clone()),
                "const" => Some(value.clone()),
                "minLength" | "maxLength" | "minItems" | "maxItems" => {
                    is_count(value).then(|| value.clone())
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    value.is_number().then(|| value.clone())
                }
                "format" => value
                    .as_str()
                    .filter(|name| FORMATS.contains(name))
                    .map(|_| value.clone()),
                "properties" => value.as_object().map(|properties| {
                    properties
                        .iter()
                        .map(|(name, schema)| (name.clone(), self.child(schema, depth)))
                        .collect()
                }),
                "additionalProperties" => match value {
                    Value::Bool(false) => Some(Value::Bool(false)),
                    Value::Object(_) => Some(self.child(value, depth)),
                    _ => None,
                },
                // The patterns' schemas and the prefix schemas are not checked;
                // only how many there are, and which names, is.
                "patternProperties" => value.as_object().map(|patterns| {
                    patterns
                        .keys()
                        .map(|pattern| (pattern.clone(), Value::Bool(true)))
                        .collect()
                }),
                "prefixItems" => value
                    .as_array()
                    .map(|prefix| json!(vec![true; prefix.len()])),
                "items" => match value {
                    Value::Object(_) | Value::Bool(_) => Some(self.child(value, depth)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(kept) = kept {
                reduced.insert(keyword.clone(), kept);
            }
        }
        // A malformed `prefixItems` leaves no telling where `items` starts,
        // so the checker checks neither.
        if keywords.contains_key("prefixItems") && !reduced.contains_key("prefixItems") {
            reduced.remove("items");
        }
        // An OpenAPI 3.0 boolean bound left in place keeps its 3.0 meaning.
        for (exclusive, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if keywords.get(exclusive) == Some(&Value::Bool(true)) {
                if let Some(value) = reduced.remove(bound) {
                    reduced.insert(exclusive.to_owned(), value);
                }
            }
        }
        let has_patterns = reduced
            .get("patternProperties")
            .and_then(Value::as_object)
            .is_some_and(|patterns| !patterns.is_empty());
        if self.lenient && has_patterns {
            reduced.remove("additionalProperties");
            reduced.remove("patternProperties");
        }
        Value::Object(reduced)
    }

    /// The schema of a child (a member or an item) of a value at `depth`:
    /// past the checked depth, anything goes.
    fn child(&mut self, schema: &Value, depth: usize) -> Value {
        if depth < MAX_CHECKED_DEPTH {
            self.reduce(schema, depth + 1)
        } else {
            Value::Bool(true)
        }
    }

    /// A local `$ref`, as a reference to its copy for this depth; `None` for
    /// one the checker cannot follow (it is not checked).
    fn reference(&mut self, reference: &str, depth: usize) -> Option<Value> {
        let fragment = reference.strip_prefix('#')?;
        let pointer = percent_encoding::percent_decode_str(fragment)
            .decode_utf8()
            .ok()?
            .into_owned();
        let target = self.root.pointer(&pointer)?;
        let key = (pointer, depth);
        let name = match self.names.get(&key) {
            Some(name) => name.clone(),
            None => {
                let name = format!("n{}", self.origins.len());
                self.origins.push(key.clone());
                self.names.insert(key, name.clone());
                let reduced = self.reduce(target, depth);
                self.defs.insert(name.clone(), reduced);
                name
            }
        };
        Some(Value::String(format!("#/$defs/{name}")))
    }
}

/// The known type names of a `type` keyword, or `None` if it names none.
fn types(value: &Value) -> Option<Value> {
    let named: Vec<&str> = match value {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut known: Vec<&str> = TYPES
        .into_iter()
        .filter(|kind| named.contains(kind))
        .collect();
    match known.len() {
        0 => None,
        1 => known.pop().map(Value::from),
        _ => Some(json!(known)),
    }
}

/// A non-negative integer, as JSON Schema counts them: `2.0` is one.
fn is_count(value: &Value) -> bool {
    value.as_u64().is_some() || value.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0)
}
