//! Document schemas to self-contained JSON Schema 2020-12.
//!
//! Every local `$ref` is rewritten to `#/$defs/<key>`, and the schema it names is
//! translated once per document and copied into the `$defs` of each tool that
//! reaches it. Recursive schemas need nothing special: a definition refers to
//! itself by key.
//!
//! A referenced schema can be needed in up to four forms, each its own `$defs`
//! entry: as written; as a request body sees it, without its `readOnly`
//! properties (TC-SCHEMA-007), when that leaves anything out; and either of
//! those admitting `null` too, where `nullable` sits beside the `$ref`
//! (TC-SCHEMA-003). A schema shared by a parameter and a request body is so
//! changed only in the body's copy.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{json, Map, Value};

use super::names::sanitize;
use crate::load::{local_pointer, schema_name, DocPath, Document, LoadError, RefProblem};

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

/// Keywords whose value maps names to schemas (`properties` has an arm of
/// its own, for read-only properties).
const SCHEMA_MAP_KEYWORDS: [&str; 4] = [
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// OpenAPI's own schema keywords (TC-SCHEMA-006), and identifiers that would move
/// the base of the rewritten `$ref`s: none of them belong in a tool's input schema.
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

/// How many `$ref`s or `allOf`s deep a property is looked into to tell whether
/// it is `readOnly`.
const MAX_READ_ONLY_HOPS: usize = 32;

/// A translated schema and the definitions it refers to directly, once per `$ref`.
#[derive(Debug)]
pub struct Translated {
    pub schema: Value,
    pub refs: Vec<Reference>,
}

/// One `$defs` entry: the schema at a document pointer, in one of its forms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    pointer: String,
    /// Without the `readOnly` properties (TC-SCHEMA-007): only used when the
    /// schema, or one it reaches, has any.
    request_body: bool,
    /// Admitting `null` as well (TC-SCHEMA-003).
    nullable: bool,
}

impl Reference {
    fn plain(pointer: String) -> Reference {
        Reference {
            pointer,
            request_body: false,
            nullable: false,
        }
    }
}

/// One referenced schema, translated, under its `$defs` key.
#[derive(Debug)]
struct Definition {
    key: String,
    schema: Value,
    refs: Vec<Reference>,
}

/// What translating a referenced schema for a request body does to it, not
/// following its `$ref`s: whether it leaves anything out, and which pointers
/// it refers to.
#[derive(Debug, Clone)]
struct BodyProbe {
    changed: bool,
    pointers: Vec<String>,
}

/// Translates the schemas of one document, sharing referenced definitions across tools.
pub struct SchemaTranslator<'d> {
    document: &'d Document,
    /// `$defs` key of each definition seen so far; one key each for the whole document.
    keys: HashMap<Reference, String>,
    /// The definition behind each key.
    by_key: HashMap<String, Reference>,
    keys_taken: HashSet<String>,
    definitions: HashMap<Reference, Definition>,
    /// Each pointer's [`BodyProbe`], made once.
    probes: HashMap<String, BodyProbe>,
    /// Whether a request body needs its own form of the schema at a pointer:
    /// whether it, or a schema it reaches, has a `readOnly` property.
    body_forms: HashMap<String, bool>,
}

/// Where one translation stands: the schema it started from (for messages), how
/// deep it is, and the definitions it has met.
struct Walk<'p> {
    at: &'p DocPath,
    depth: usize,
    refs: Vec<Reference>,
    /// Inside a request body: `readOnly` properties are left out.
    request_body: bool,
    /// Only finding out what leaving them out changes: references keep their
    /// plain form, and nothing is asked of the schemas they name.
    probing: bool,
    /// Something was left out.
    changed: bool,
}

impl<'p> Walk<'p> {
    fn new(at: &'p DocPath, request_body: bool) -> Walk<'p> {
        Walk {
            at,
            depth: 0,
            refs: Vec::new(),
            request_body,
            probing: false,
            changed: false,
        }
    }
}

impl<'d> SchemaTranslator<'d> {
    pub fn new(document: &'d Document) -> Self {
        Self {
            document,
            keys: HashMap::new(),
            by_key: HashMap::new(),
            keys_taken: HashSet::new(),
            definitions: HashMap::new(),
            probes: HashMap::new(),
            body_forms: HashMap::new(),
        }
    }

    /// TC-SCHEMA-002: translate a schema found at `at`; its local `$ref`s are
    /// rewritten to `#/$defs/<key>`, and a `$ref` to a missing pointer is an error at `at`.
    pub fn translate(&mut self, schema: &Value, at: &DocPath) -> Result<Translated, LoadError> {
        self.translate_as(schema, Walk::new(at, false))
    }

    /// Like [`translate`](Self::translate), for a request body's schema: its
    /// `readOnly` properties, and those of the schemas it refers to, are left
    /// out, and out of `required` (TC-SCHEMA-007).
    pub fn translate_request_body(
        &mut self,
        schema: &Value,
        at: &DocPath,
    ) -> Result<Translated, LoadError> {
        self.translate_as(schema, Walk::new(at, true))
    }

    fn translate_as(&mut self, schema: &Value, mut walk: Walk) -> Result<Translated, LoadError> {
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
        roots: impl IntoIterator<Item = Reference>,
    ) -> Result<Map<String, Value>, LoadError> {
        let mut defs = Map::new();
        let mut seen = HashSet::new();
        let mut queue: VecDeque<Reference> = roots.into_iter().collect();
        while let Some(reference) = queue.pop_front() {
            if !seen.insert(reference.clone()) {
                continue;
            }
            let definition = self.define(&reference)?;
            defs.insert(definition.key.clone(), definition.schema.clone());
            queue.extend(definition.refs.iter().cloned());
        }
        Ok(defs)
    }

    /// The translated definition behind `reference`, made the first time it is asked for.
    fn define(&mut self, reference: &Reference) -> Result<&Definition, LoadError> {
        let definition = match self.definitions.remove(reference) {
            Some(definition) => definition,
            None => self.translate_definition(reference)?,
        };
        Ok(self
            .definitions
            .entry(reference.clone())
            .or_insert(definition))
    }

    fn translate_definition(&mut self, reference: &Reference) -> Result<Definition, LoadError> {
        let key = self.key_of(reference);
        let pointer = reference.pointer.as_str();
        // A pointer that only leads back to itself through `$ref`s constrains nothing.
        let target = self
            .document
            .at_pointer(pointer)
            .filter(|_| !self.ref_loop(pointer));
        let Translated { schema, mut refs } = match target {
            Some(target) => self.translate_as(
                target,
                Walk::new(&DocPath::from_pointer(pointer), reference.request_body),
            )?,
            None => Translated {
                schema: Value::Object(Map::new()),
                refs: Vec::new(),
            },
        };
        let schema = match schema {
            Value::Object(members) if reference.nullable => {
                Value::Object(self.admit_null(members, &mut refs))
            }
            // `nullable` beside a `$ref` to `false`: only null is left.
            Value::Bool(false) if reference.nullable => json!({"type": "null"}),
            schema => schema,
        };
        Ok(Definition { key, schema, refs })
    }

    /// Whether a request body needs its own form of the schema at `pointer`:
    /// whether leaving out `readOnly` properties changes it or any schema it
    /// reaches. A schema found unchanged tells the same of every schema it
    /// reaches, so each is probed at most once per document.
    fn body_form(&mut self, pointer: &str) -> Result<bool, LoadError> {
        if let Some(&known) = self.body_forms.get(pointer) {
            return Ok(known);
        }
        let mut seen: HashSet<String> = HashSet::from([pointer.to_string()]);
        let mut queue = VecDeque::from([pointer.to_string()]);
        while let Some(current) = queue.pop_front() {
            match self.body_forms.get(&current) {
                Some(true) => {
                    self.body_forms.insert(pointer.to_string(), true);
                    return Ok(true);
                }
                Some(false) => continue,
                None => {}
            }
            let probe = self.probe(&current)?;
            if probe.changed {
                self.body_forms.insert(pointer.to_string(), true);
                return Ok(true);
            }
            for next in probe.pointers {
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        for unchanged in seen {
            self.body_forms.insert(unchanged, false);
        }
        Ok(false)
    }

    fn probe(&mut self, pointer: &str) -> Result<BodyProbe, LoadError> {
        if let Some(probe) = self.probes.get(pointer) {
            return Ok(probe.clone());
        }
        let target = self
            .document
            .at_pointer(pointer)
            .filter(|_| !self.ref_loop(pointer));
        let probe = match target {
            Some(target) => {
                let at = DocPath::from_pointer(pointer);
                let mut walk = Walk {
                    probing: true,
                    ..Walk::new(&at, true)
                };
                self.schema(target, &mut walk)?;
                BodyProbe {
                    changed: walk.changed,
                    pointers: walk.refs.into_iter().map(|r| r.pointer).collect(),
                }
            }
            None => BodyProbe {
                changed: false,
                pointers: Vec::new(),
            },
        };
        self.probes.insert(pointer.to_string(), probe.clone());
        Ok(probe)
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
        let exclusive_minimum = members.get("exclusiveMinimum") == Some(&Value::Bool(true));
        let exclusive_maximum = members.get("exclusiveMaximum") == Some(&Value::Bool(true));
        let tuple_items = members.get("items").is_some_and(Value::is_array);
        // TC-SCHEMA-007: in a request body, the properties the server sets.
        let read_only = if walk.request_body {
            self.read_only_names(members)
        } else {
            HashSet::new()
        };
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
                // TC-SCHEMA-008: not a JSON Schema word, so not copied;
                // honoured below, in 3.1 documents too.
                "nullable" => {}
                // TC-SCHEMA-007: a request body's read-only properties go,
                // and so do their names in `required`.
                "properties" => {
                    if let Value::Object(properties) = value {
                        let mut translated = Map::new();
                        for (name, schema) in properties {
                            if read_only.contains(name) {
                                walk.changed = true;
                            } else {
                                translated.insert(name.clone(), self.schema(schema, walk)?);
                            }
                        }
                        out.insert(keyword.into(), Value::Object(translated));
                    }
                }
                "required" => {
                    let mut kept = value.clone();
                    if let Value::Array(names) = &mut kept {
                        let before = names.len();
                        names.retain(|name| name.as_str().is_none_or(|n| !read_only.contains(n)));
                        walk.changed |= names.len() != before;
                    }
                    out.insert(keyword.into(), kept);
                }
                // TC-SCHEMA-006: becomes `examples`, below.
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
                // TC-SCHEMA-006: OpenAPI's words and extensions are left out.
                _ if DROPPED_KEYWORDS.contains(&keyword) || keyword.starts_with("x-") => {}
                _ => {
                    out.insert(keyword.into(), value.clone());
                }
            }
        }
        // TC-SCHEMA-003, TC-SCHEMA-008: OpenAPI 3.0's `nullable`, and the
        // same word where a 3.1 document still writes it.
        if members.get("nullable") == Some(&Value::Bool(true)) && !walk.probing {
            out = self.admit_null(out, &mut walk.refs);
        }
        // TC-SCHEMA-006: OpenAPI's one `example` is JSON Schema's `examples`.
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

    /// TC-SCHEMA-002: the rewritten `$ref`, or `None` when it is dropped: one that is not a
    /// string, or names the whole document, constrains nothing. Once the
    /// document is loaded every reference is local (another file's schemas
    /// are in it): one that is not, that points to nothing, or that could not
    /// be resolved (TC-LOAD-006) is an error, never a schema left open.
    fn reference(&mut self, value: &Value, walk: &mut Walk) -> Result<Option<String>, LoadError> {
        let Some(reference) = value.as_str() else {
            return Ok(None);
        };
        let Some(pointer) = local_pointer(reference) else {
            return Err(self.broken(walk.at, reference));
        };
        if pointer.is_empty() {
            return Ok(None);
        }
        if let Some(unresolved) = self.document.unresolved(&pointer) {
            return Err(unresolved);
        }
        if self.document.at_pointer(&pointer).is_none() {
            return Err(self.broken(walk.at, reference));
        }
        if walk.probing {
            // Only the pointer matters, and no key is handed out for it.
            walk.refs.push(Reference::plain(pointer));
            return Ok(Some(String::new()));
        }
        // Inside a request body, the body's own form where it differs.
        let request_body = walk.request_body && self.body_form(&pointer)?;
        let reference = Reference {
            request_body,
            ..Reference::plain(pointer)
        };
        let key = self.key_of(&reference);
        walk.refs.push(reference);
        Ok(Some(format!("#/$defs/{key}")))
    }

    /// The `$defs` key of `reference`: the schema's name (see [`schema_name`]:
    /// its name under `components.schemas`, or a file's name), after the
    /// tool-name character rule (so it needs no escaping in a `$ref`), then
    /// `_request` for a request body's form and `_nullable` for one that
    /// admits null; numbered when another definition already has it.
    fn key_of(&mut self, reference: &Reference) -> String {
        if let Some(key) = self.keys.get(reference) {
            return key.clone();
        }
        let readable = DocPath::from_pointer(&schema_name(&reference.pointer));
        let mut base = match sanitize(readable.as_str()) {
            base if base.is_empty() => "schema".to_string(),
            base => base,
        };
        if reference.request_body {
            base.push_str("_request");
        }
        if reference.nullable {
            base.push_str("_nullable");
        }
        let mut key = base.clone();
        let mut counter = 2_u64;
        while !self.keys_taken.insert(key.clone()) {
            key = format!("{base}_{counter}");
            counter += 1;
        }
        self.keys.insert(reference.clone(), key.clone());
        self.by_key.insert(key.clone(), reference.clone());
        key
    }

    /// TC-SCHEMA-003: a translated schema that admits `null` as well as what it
    /// admitted. `null` joins the `type` and the `enum`; a `$ref` beside
    /// `nullable` leads to the referenced schema's form that admits null, and
    /// so does the only schema of an `allOf` that holds nothing but a `$ref`
    /// (the usual OpenAPI 3.0 way to write it), which takes the place of the
    /// `allOf`; every other schema of an `allOf` or `anyOf` admits null as
    /// well. Where that cannot be done in place (`oneOf`, `not`, `if`, a
    /// `const`), the schema becomes the first choice of an `anyOf` whose
    /// second is `null`. `refs` holds the references of `schema` and is kept
    /// in step.
    fn admit_null(
        &mut self,
        mut schema: Map<String, Value>,
        refs: &mut Vec<Reference>,
    ) -> Map<String, Value> {
        let fixed = ["oneOf", "not", "if"]
            .iter()
            .any(|keyword| schema.contains_key(*keyword))
            || schema
                .get("const")
                .is_some_and(|constant| !constant.is_null());
        if fixed {
            return or_null(schema);
        }
        if !schema.contains_key("$ref") {
            if let Some(Value::Array(all)) = schema.get("allOf") {
                if let [Value::Object(only)] = all.as_slice() {
                    if let (1, Some(reference)) = (only.len(), only.get("$ref")) {
                        let reference = reference.clone();
                        schema.remove("allOf");
                        schema.insert("$ref".into(), reference);
                    }
                }
            }
        }
        widen_type(&mut schema);
        if let Some(Value::String(target)) = schema.get("$ref") {
            let known = target
                .strip_prefix("#/$defs/")
                .and_then(|key| self.by_key.get(key))
                .cloned();
            let Some(reference) = known else {
                return or_null(schema);
            };
            if !reference.nullable {
                let nullable = Reference {
                    nullable: true,
                    ..reference.clone()
                };
                let key = self.key_of(&nullable);
                schema.insert("$ref".into(), Value::String(format!("#/$defs/{key}")));
                match refs.iter_mut().find(|r| **r == reference) {
                    Some(slot) => *slot = nullable,
                    None => refs.push(nullable),
                }
            }
        }
        for keyword in ["allOf", "anyOf"] {
            let Some(Value::Array(branches)) = schema.get_mut(keyword) else {
                continue;
            };
            let mut branches = std::mem::take(branches);
            for branch in &mut branches {
                match branch {
                    Value::Object(members) => {
                        let members = std::mem::take(members);
                        *branch = Value::Object(self.admit_null(members, refs));
                    }
                    Value::Bool(false) => *branch = json!({"type": "null"}),
                    _ => {}
                }
            }
            schema.insert(keyword.into(), Value::Array(branches));
        }
        schema
    }

    /// TC-SCHEMA-007: the names of the properties that are `readOnly` at this
    /// level of a schema: in its own `properties`, and in those of the schemas
    /// its `$ref` and its `allOf` bring in, whichever of them says so.
    fn read_only_names(&self, members: &Map<String, Value>) -> HashSet<String> {
        let mut names = HashSet::new();
        let mut seen = HashSet::new();
        self.collect_read_only(members, &mut names, &mut seen, 0);
        names
    }

    fn collect_read_only(
        &self,
        members: &Map<String, Value>,
        names: &mut HashSet<String>,
        seen: &mut HashSet<String>,
        hops: usize,
    ) {
        if let Some(Value::Object(properties)) = members.get("properties") {
            for (name, schema) in properties {
                if self.is_read_only(schema, &mut HashSet::new(), 0) {
                    names.insert(name.clone());
                }
            }
        }
        if hops >= MAX_READ_ONLY_HOPS {
            return;
        }
        for applied in self.applied(members, seen) {
            if let Value::Object(applied) = applied {
                self.collect_read_only(applied, names, seen, hops + 1);
            }
        }
    }

    /// Whether a property's schema says `readOnly: true`, itself or through
    /// its `$ref` or a schema of its `allOf`.
    fn is_read_only(&self, schema: &Value, seen: &mut HashSet<String>, hops: usize) -> bool {
        let Value::Object(members) = schema else {
            return false;
        };
        if members.get("readOnly") == Some(&Value::Bool(true)) {
            return true;
        }
        hops < MAX_READ_ONLY_HOPS
            && self
                .applied(members, seen)
                .into_iter()
                .any(|applied| self.is_read_only(applied, seen, hops + 1))
    }

    /// The schemas applied to the same value as `members`: its `$ref`'s
    /// target, the first time it is met, and the schemas of its `allOf`.
    fn applied<'v>(
        &'v self,
        members: &'v Map<String, Value>,
        seen: &mut HashSet<String>,
    ) -> Vec<&'v Value> {
        let mut applied = Vec::new();
        let target = members
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(local_pointer)
            .filter(|pointer| seen.insert(pointer.clone()))
            .and_then(|pointer| self.document.at_pointer(&pointer));
        applied.extend(target);
        if let Some(Value::Array(all)) = members.get("allOf") {
            applied.extend(all);
        }
        applied
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

/// `null`, or what `schema` admits.
fn or_null(schema: Map<String, Value>) -> Map<String, Value> {
    let mut wrapper = Map::new();
    wrapper.insert(
        "anyOf".into(),
        json!([Value::Object(schema), {"type": "null"}]),
    );
    wrapper
}

/// TC-SCHEMA-003: `nullable: true` lets `null` through the type, and through
/// the `enum` when there is one.
fn widen_type(schema: &mut Map<String, Value>) {
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
