//! Input schema to an arena of nodes, with local `$ref`s resolved to indexes.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::format::Format;
use super::violation::TypeSet;

/// Index of a node in the validator's arena.
pub(super) type NodeId = usize;

/// What an object's members without a `properties` entry must satisfy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Additional {
    #[default]
    Any,
    Forbidden,
    Schema(NodeId),
}

/// One schema, reduced to the keywords that are checked (TC-CHECK-001 … 010).
#[derive(Debug, Clone, Default)]
pub(super) struct Node {
    /// The boolean schema `false`: no value is allowed here.
    pub rejects_everything: bool,
    pub reference: Option<NodeId>,
    pub types: Option<TypeSet>,
    pub required: Box<[String]>,
    /// Sorted by name for binary search.
    pub properties: Box<[(String, NodeId)]>,
    pub additional: Additional,
    pub items: Option<NodeId>,
    pub enumeration: Option<Box<[Value]>>,
    pub constant: Option<Value>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub format: Option<Format>,
}

impl Node {
    pub fn property(&self, name: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(candidate, _)| candidate.as_str().cmp(name))
            .ok()
            .and_then(|index| self.properties.get(index))
            .map(|(_, id)| *id)
    }
}

/// Compiles the schema; returns the arena and the root's index.
pub(super) fn compile(input_schema: &Map<String, Value>) -> (Vec<Node>, NodeId) {
    // Reference targets are looked up by JSON Pointer from the schema's root.
    let root = Value::Object(input_schema.clone());
    let mut compiler = Compiler {
        root: &root,
        nodes: Vec::new(),
        by_reference: HashMap::new(),
    };
    let root_id = compiler.reserve();
    // A `$ref` to `#` is recursion onto the whole schema.
    compiler.by_reference.insert("#".to_owned(), root_id);
    let node = compiler.build(&root);
    compiler.store(root_id, node);
    (compiler.nodes, root_id)
}

struct Compiler<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// Each reference compiled once; recursion finds the index already reserved.
    by_reference: HashMap<String, NodeId>,
}

impl<'s> Compiler<'s> {
    fn compile(&mut self, schema: &'s Value) -> NodeId {
        let id = self.reserve();
        let node = self.build(schema);
        self.store(id, node);
        id
    }

    fn reserve(&mut self) -> NodeId {
        self.nodes.push(Node::default());
        self.nodes.len() - 1
    }

    fn store(&mut self, id: NodeId, node: Node) {
        if let Some(slot) = self.nodes.get_mut(id) {
            *slot = node;
        }
    }

    /// Resolves a local reference (`#`, `#/$defs/Pet`, …); anything else, or a
    /// pointer that leads nowhere, gives `None` and is not checked.
    fn resolve(&mut self, reference: &str) -> Option<NodeId> {
        if let Some(&id) = self.by_reference.get(reference) {
            return Some(id);
        }
        let fragment = reference.strip_prefix('#')?;
        let pointer = percent_encoding::percent_decode_str(fragment)
            .decode_utf8()
            .ok()?;
        let target = self.root.pointer(&pointer)?;
        let id = self.reserve();
        self.by_reference.insert(reference.to_owned(), id);
        let node = self.build(target);
        self.store(id, node);
        Some(id)
    }

    fn build(&mut self, schema: &'s Value) -> Node {
        let keywords = match schema {
            Value::Object(keywords) => keywords,
            Value::Bool(allowed) => {
                return Node {
                    rejects_everything: !allowed,
                    ..Node::default()
                }
            }
            _ => return Node::default(),
        };
        let mut node = Node {
            reference: keywords
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| self.resolve(reference)),
            types: keywords.get("type").and_then(TypeSet::from_keyword),
            required: keywords
                .get("required")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            enumeration: keywords
                .get("enum")
                .and_then(Value::as_array)
                .map(|values| values.clone().into_boxed_slice()),
            constant: keywords.get("const").cloned(),
            min_length: keywords.get("minLength").and_then(Value::as_u64),
            max_length: keywords.get("maxLength").and_then(Value::as_u64),
            min_items: keywords.get("minItems").and_then(Value::as_u64),
            max_items: keywords.get("maxItems").and_then(Value::as_u64),
            minimum: number(keywords, "minimum"),
            maximum: number(keywords, "maximum"),
            exclusive_minimum: number(keywords, "exclusiveMinimum"),
            exclusive_maximum: number(keywords, "exclusiveMaximum"),
            format: keywords
                .get("format")
                .and_then(Value::as_str)
                .and_then(Format::from_name),
            ..Node::default()
        };
        // An OpenAPI 3.0 boolean exclusive bound that slipped through conversion
        // still means what it meant there.
        if keywords.get("exclusiveMinimum") == Some(&Value::Bool(true)) {
            node.exclusive_minimum = node.minimum.take();
        }
        if keywords.get("exclusiveMaximum") == Some(&Value::Bool(true)) {
            node.exclusive_maximum = node.maximum.take();
        }
        if let Some(Value::Object(properties)) = keywords.get("properties") {
            let mut compiled: Vec<(String, NodeId)> = properties
                .iter()
                .map(|(name, schema)| (name.clone(), self.compile(schema)))
                .collect();
            compiled.sort_by(|a, b| a.0.cmp(&b.0));
            node.properties = compiled.into_boxed_slice();
        }
        node.additional = match keywords.get("additionalProperties") {
            None | Some(Value::Bool(true)) => Additional::Any,
            Some(Value::Bool(false)) => Additional::Forbidden,
            Some(schema @ Value::Object(_)) => Additional::Schema(self.compile(schema)),
            Some(_) => Additional::Any,
        };
        node.items = match keywords.get("items") {
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => Some(self.compile(schema)),
            _ => None,
        };
        node
    }
}

fn number(keywords: &Map<String, Value>, keyword: &str) -> Option<Number> {
    match keywords.get(keyword) {
        Some(Value::Number(number)) => Some(number.clone()),
        _ => None,
    }
}
