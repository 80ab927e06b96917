//! Document schemas to self-contained JSON Schema 2020-12.
//!
//! Every local `$ref` is rewritten to `#/$defs/<key>`, and the schema it names is
//! translated once per document and copied into the `$defs` of each tool that
//! reaches it. Recursive schemas need nothing special: a definition refers to
//! itself by key.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{Map, Value};

use super::names::sanitize;
use crate::load::{local_pointer, Dialect, DocPath, Document, LoadError, RefProblem};

/// Deepest schema nesting translated. The parsers already stop at 128 levels; this
/// keeps the walk bounded on its own terms.
const MAX_DEPTH: usize = 160;

/// Keywords whose value is one schema.
const SCHEMA_KEYWORDS: [&str; 11] = [
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];

/// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYWORDS: [&str; 5] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// OpenAPI's own schema keywords, and identifiers that would move the base of the
/// rewritten `$ref`s: none of them belong in a tool's input schema.
const DROPPED_KEYWORDS: [&str; 9] = [
    "discriminator",
    "xml",
    "externalDocs",
    "$id",
    "$schema",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$vocabulary",
];

/// A translated schema and the document pointers it refers to directly.
#[derive(Debug)]
pub struct Translated {
    pub schema: Value,
    pub refs: Vec<String>,
}

/// One referenced schema, translated, under its `$defs` key.
#[derive(Debug)]
struct Definition {
    key: String,
    schema: Value,
    refs: Vec<String>,
}

/// Translates the schemas of one document, sharing referenced definitions across tools.
pub struct SchemaTranslator<'d> {
    document: &'d Document,
    /// `$defs` key of each pointer seen so far; one key per pointer for the whole document.
    keys: HashMap<String, String>,
    keys_taken: HashSet<String>,
    definitions: HashMap<String, Definition>,
}

/// Where one translation stands: the schema it started from (for messages), how
/// deep it is, and the pointers it has met.
struct Walk<'p> {
    at: &'p DocPath,
    depth: usize,
    refs: Vec<String>,
}

impl<'d> SchemaTranslator<'d> {
    pub fn new(document: &'d Document) -> Self {
        Self {
            document,
            keys: HashMap::new(),
            keys_taken: HashSet::new(),
            definitions: HashMap::new(),
        }
    }

    /// TC-SCHEMA-002..004: translate a schema found at `at`; its local `$ref`s are
    /// rewritten to `#/$defs/<key>`, and a `$ref` to a missing pointer is an error at `at`.
    pub fn translate(&mut self, schema: &Value, at: &DocPath) -> Result<Translated, LoadError> {
        let mut walk = Walk {
            at,
            depth: 0,
            refs: Vec::new(),
        };
        let schema = self.schema(schema, &mut walk)?;
        Ok(Translated {
            schema,
            refs: walk.refs,
        })
    }

    /// TC-SCHEMA-002: the `$defs` for schemas that refer to `roots`: every
    /// definition reachable from them, each once, in the order first reached.
    pub fn definitions_for(
        &mut self,
        roots: impl IntoIterator<Item = String>,
    ) -> Result<Map<String, Value>, LoadError> {
        let mut defs = Map::new();
        let mut seen = HashSet::new();
        let mut queue: VecDeque<String> = roots.into_iter().collect();
        while let Some(pointer) = queue.pop_front() {
            if !seen.insert(pointer.clone()) {
                continue;
            }
            let definition = self.define(&pointer)?;
            defs.insert(definition.key.clone(), definition.schema.clone());
            queue.extend(definition.refs.iter().cloned());
        }
        Ok(defs)
    }

    /// The translated definition behind `pointer`, made the first time it is asked for.
    fn define(&mut self, pointer: &str) -> Result<&Definition, LoadError> {
        let definition = match self.definitions.remove(pointer) {
            Some(definition) => definition,
            None => self.translate_definition(pointer)?,
        };
        Ok(self
            .definitions
            .entry(pointer.to_string())
            .or_insert(definition))
    }

    fn translate_definition(&mut self, pointer: &str) -> Result<Definition, LoadError> {
        let key = self.key_of(pointer);
        // A pointer that only leads back to itself through `$ref`s constrains nothing.
        let target = self
            .document
            .at_pointer(pointer)
            .filter(|_| !self.ref_loop(pointer));
        let translated = match target {
            Some(target) => self.translate(target, &DocPath::from_pointer(pointer))?,
            None => Translated {
                schema: Value::Object(Map::new()),
                refs: Vec::new(),
            },
        };
        Ok(Definition {
            key,
            schema: translated.schema,
            refs: translated.refs,
        })
    }

    /// Whether following `$ref` after `$ref` from `pointer` comes back to a pointer
    /// already passed, without any other schema in between.
    fn ref_loop(&self, pointer: &str) -> bool {
        let mut passed = HashSet::new();
        let mut current = pointer.to_string();
        loop {
            if !passed.insert(current.clone()) {
                return true;
            }
            let next = self
                .document
                .at_pointer(&current)
                .and_then(|schema| schema.get("$ref"))
                .and_then(Value::as_str)
                .and_then(local_pointer);
            match next {
                Some(next) => current = next,
                None => return false,
            }
        }
    }

    fn schema(&mut self, schema: &Value, walk: &mut Walk) -> Result<Value, LoadError> {
        match schema {
            Value::Bool(_) => Ok(schema.clone()),
            Value::Object(members) => {
                if walk.depth >= MAX_DEPTH {
                    return Err(LoadError::Invalid {
                        origin: self.document.origin.clone(),
                        at: walk.at.clone(),
                        problem: format!("schema nested deeper than {MAX_DEPTH} levels"),
                    });
                }
                walk.depth += 1;
                let translated = self.object(members, walk);
                walk.depth -= 1;
                translated.map(Value::Object)
            }
            // Not a schema at all: it cannot constrain anything.
            _ => Ok(Value::Object(Map::new())),
        }
    }

    fn object(
        &mut self,
        members: &Map<String, Value>,
        walk: &mut Walk,
    ) -> Result<Map<String, Value>, LoadError> {
        let openapi30 = self.document.dialect == Dialect::OpenApi30;
        let exclusive_minimum = members.get("exclusiveMinimum") == Some(&Value::Bool(true));
        let exclusive_maximum = members.get("exclusiveMaximum") == Some(&Value::Bool(true));
        let tuple_items = members.get("items").is_some_and(Value::is_array);
        let mut out = Map::new();
        for (keyword, value) in members {
            let keyword = keyword.as_str();
            match keyword {
                "$ref" => {
                    if let Some(rewritten) = self.reference(value, walk)? {
                        out.insert(keyword.into(), Value::String(rewritten));
                    }
                }
                // TC-SCHEMA-004: `exclusiveMinimum: true` beside `minimum` is the
                // 2020-12 numeric `exclusiveMinimum`; a boolean is never valid there.
                "exclusiveMinimum" | "exclusiveMaximum" if value.is_boolean() => {}
                "minimum" if exclusive_minimum => {
                    out.insert("exclusiveMinimum".into(), value.clone());
                }
                "maximum" if exclusive_maximum => {
                    out.insert("exclusiveMaximum".into(), value.clone());
                }
                "nullable" if openapi30 => {}
                "example" => {}
                // A type named twice is one type, and 2020-12 wants the list
                // without repeats.
                "type" if value.is_array() => {
                    let mut types: Vec<Value> = Vec::new();
                    for kind in value.as_array().into_iter().flatten() {
                        if !types.contains(kind) {
                            types.push(kind.clone());
                        }
                    }
                    out.insert(keyword.into(), Value::Array(types));
                }
                "items" => {
                    // An array of schemas is the older tuple form of `prefixItems`.
                    if let Value::Array(tuple) = value {
                        out.insert("prefixItems".into(), self.schema_list(tuple, walk)?);
                    } else {
                        out.insert(keyword.into(), self.schema(value, walk)?);
                    }
                }
                // Beside the tuple form of `items`, `additionalItems` is about the
                // items after the tuple: what 2020-12 says with `items`.
                "additionalItems" if tuple_items => {
                    out.insert("items".into(), self.schema(value, walk)?);
                }
                _ if SCHEMA_KEYWORDS.contains(&keyword) => {
                    out.insert(keyword.into(), self.schema(value, walk)?);
                }
                _ if SCHEMA_LIST_KEYWORDS.contains(&keyword) => {
                    if let Value::Array(list) = value {
                        out.insert(keyword.into(), self.schema_list(list, walk)?);
                    }
                }
                _ if SCHEMA_MAP_KEYWORDS.contains(&keyword) => {
                    if let Value::Object(map) = value {
                        let mut translated = Map::new();
                        for (name, schema) in map {
                            translated.insert(name.clone(), self.schema(schema, walk)?);
                        }
                        out.insert(keyword.into(), Value::Object(translated));
                    }
                }
                _ if DROPPED_KEYWORDS.contains(&keyword) || keyword.starts_with("x-") => {}
                _ => {
                    out.insert(keyword.into(), value.clone());
                }
            }
        }
        if openapi30 && members.get("nullable") == Some(&Value::Bool(true)) {
            admit_null(&mut out);
        }
        if let Some(example) = members.get("example") {
            if !out.contains_key("examples") {
                out.insert("examples".into(), Value::Array(vec![example.clone()]));
            }
        }
        Ok(out)
    }

    fn schema_list(&mut self, list: &[Value], walk: &mut Walk) -> Result<Value, LoadError> {
        list.iter()
            .map(|schema| self.schema(schema, walk))
            .collect::<Result<_, _>>()
            .map(Value::Array)
    }

    /// The rewritten `$ref`, or `None` when it is dropped: an external reference is
    /// never fetched and leaves the schema unconstrained (TC-LOAD-004), and so does
    /// one that is not a string or names the whole document.
    fn reference(&mut self, value: &Value, walk: &mut Walk) -> Result<Option<String>, LoadError> {
        let Some(reference) = value.as_str() else {
            return Ok(None);
        };
        let Some(pointer) = local_pointer(reference).filter(|pointer| !pointer.is_empty()) else {
            return Ok(None);
        };
        if !self.keys.contains_key(&pointer) && self.document.at_pointer(&pointer).is_none() {
            return Err(self.broken(walk.at, reference));
        }
        let key = self.key_of(&pointer);
        walk.refs.push(pointer);
        Ok(Some(format!("#/$defs/{key}")))
    }

    /// The `$defs` key of `pointer`: the schema's name under `components.schemas`, or
    /// the whole pointer, after the tool-name character rule (so it needs no
    /// escaping in a `$ref`), numbered when another pointer already has it.
    fn key_of(&mut self, pointer: &str) -> String {
        if let Some(key) = self.keys.get(pointer) {
            return key.clone();
        }
        let named = pointer
            .strip_prefix("/components/schemas/")
            .unwrap_or(pointer.trim_start_matches('/'));
        let readable = DocPath::from_pointer(&format!("/{named}"));
        let base = match sanitize(readable.as_str()) {
            base if base.is_empty() => "schema".to_string(),
            base => base,
        };
        let mut key = base.clone();
        let mut counter = 2_u64;
        while !self.keys_taken.insert(key.clone()) {
            key = format!("{base}_{counter}");
            counter += 1;
        }
        self.keys.insert(pointer.to_string(), key.clone());
        key
    }

    fn broken(&self, at: &DocPath, reference: &str) -> LoadError {
        LoadError::BrokenRef {
            origin: self.document.origin.clone(),
            at: at.clone(),
            reference: reference.to_string(),
            problem: RefProblem::Missing,
        }
    }
}

/// TC-SCHEMA-003: OpenAPI 3.0 `nullable: true` lets `null` through the type, and
/// through the `enum` when there is one.
fn admit_null(schema: &mut Map<String, Value>) {
    match schema.get_mut("type") {
        Some(Value::String(single)) => {
            let single = std::mem::take(single);
            schema.insert(
                "type".into(),
                Value::Array(vec![Value::String(single), Value::from("null")]),
            );
        }
        Some(Value::Array(types)) if !types.contains(&Value::from("null")) => {
            types.push(Value::from("null"));
        }
        _ => {}
    }
    if let Some(Value::Array(allowed)) = schema.get_mut("enum") {
        if !allowed.contains(&Value::Null) {
            allowed.push(Value::Null);
        }
    }
}
