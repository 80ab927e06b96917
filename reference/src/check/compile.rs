//! Input schema to an arena of nodes, with local `$ref`s resolved to indexes.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::format::Format;
use super::pattern::NamePattern;
use super::set::{Enumeration, Names};
use super::violation::TypeSet;

/// How many `$ref`s may be followed in a row without descending into a value;
/// only a schema whose references loop onto themselves ever reaches it.
pub(super) const MAX_REFERENCE_HOPS: u8 = 32;

/// Index of a node in the validator's arena.
pub(super) type NodeId = usize;

/// Where a child value is checked: a node, reached as if `hops` references had
/// already been followed. An edge to a schema that is nothing but a `$ref`
/// leads straight to what it references (see [`forward`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Target {
    pub node: NodeId,
    pub hops: u8,
}

impl Target {
    fn new(node: NodeId) -> Target {
        Target { node, hops: 0 }
    }
}

/// What an object's members without a `properties` entry must satisfy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Additional {
    #[default]
    Any,
    Forbidden,
    Schema(Target),
}

/// A `properties` entry.
#[derive(Debug, Clone, Copy)]
pub(super) struct Property {
    pub target: Target,
    /// Named in `required`.
    pub required: bool,
}

/// One schema, reduced to the keywords that are checked: any other keyword is
/// dropped here, and so never checked (TC-CHECK-012).
#[derive(Debug, Clone, Default)]
pub(super) struct Node {
    /// The boolean schema `false`: no value is allowed here.
    pub rejects_everything: bool,
    pub reference: Option<NodeId>,
    pub types: Option<TypeSet>,
    /// As written, so what is missing is reported in this order.
    pub required: Box<[String]>,
    /// How many `properties` entries are required. A call counts the
    /// required entries it meets while walking the members, so when all are
    /// there it never looks a required name up.
    pub required_properties: usize,
    /// Required names without a `properties` entry, looked up in the members.
    pub required_elsewhere: Box<[String]>,
    pub properties: Names<Property>,
    /// The `patternProperties` names: a member that may match one is not
    /// additional. Their schemas are not checked (TC-CHECK-012).
    pub patterns: Box<[NamePattern]>,
    pub additional: Additional,
    /// How many items `prefixItems` describes: `items` is about the items
    /// after them. The prefix schemas themselves are not checked.
    pub prefix_items: usize,
    pub items: Option<Target>,
    pub enumeration: Option<Enumeration>,
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
    /// A schema that only references another: checking a value against it is
    /// checking the value against the target, one reference hop further.
    /// Every keyword field must be listed here.
    fn only_references(&self) -> Option<NodeId> {
        let Node {
            rejects_everything,
            reference,
            types,
            required,
            required_properties: _,
            required_elsewhere: _,
            properties,
            patterns,
            additional,
            prefix_items: _,
            items,
            enumeration,
            constant,
            min_length,
            max_length,
            min_items,
            max_items,
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
            format,
        } = self;
        let nothing_else = !rejects_everything
            && types.is_none()
            && required.is_empty()
            && properties.is_empty()
            && patterns.is_empty()
            && *additional == Additional::Any
            && items.is_none()
            && enumeration.is_none()
            && constant.is_none()
            && min_length.is_none()
            && max_length.is_none()
            && min_items.is_none()
            && max_items.is_none()
            && minimum.is_none()
            && maximum.is_none()
            && exclusive_minimum.is_none()
            && exclusive_maximum.is_none()
            && format.is_none();
        reference.filter(|_| nothing_else)
    }
}

/// Follows references through schemas that are nothing but a `$ref`, counting
/// the hops exactly as the walk would, so that skipping them changes nothing:
/// not even where a loop of references stops (`MAX_REFERENCE_HOPS`).
fn forward(nodes: &[Node], target: Target) -> Target {
    let mut target = target;
    while target.hops < MAX_REFERENCE_HOPS {
        match nodes.get(target.node).and_then(Node::only_references) {
            Some(next) => {
                target = Target {
                    node: next,
                    hops: target.hops + 1,
                }
            }
            None => break,
        }
    }
    target
}

/// Points every edge past the schemas that only reference another.
fn skip_bare_references(nodes: &mut [Node], root: Target) -> Target {
    for index in 0..nodes.len() {
        let mut node = std::mem::take(&mut nodes[index]);
        node.properties
            .values_mut()
            .for_each(|property| property.target = forward(nodes, property.target));
        if let Additional::Schema(target) = node.additional {
            node.additional = Additional::Schema(forward(nodes, target));
        }
        node.items = node.items.map(|target| forward(nodes, target));
        nodes[index] = node;
    }
    forward(nodes, root)
}

/// Compiles the schema; returns the arena and where checking starts.
pub(super) fn compile(input_schema: &Map<String, Value>) -> (Vec<Node>, Target) {
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
    let mut nodes = compiler.nodes;
    let root = skip_bare_references(&mut nodes, Target::new(root_id));
    (nodes, root)
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
                .map(|values| Enumeration::new(values)),
            constant: keywords.get("const").cloned(),
            min_length: count(keywords, "minLength"),
            max_length: count(keywords, "maxLength"),
            min_items: count(keywords, "minItems"),
            max_items: count(keywords, "maxItems"),
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
            let compiled: Vec<(Box<str>, Property)> = properties
                .iter()
                .map(|(name, schema)| {
                    let property = Property {
                        target: Target::new(self.compile(schema)),
                        required: node.required.contains(name),
                    };
                    (Box::from(name.as_str()), property)
                })
                .collect();
            node.properties = Names::new(compiled);
        }
        node.required_properties = node
            .properties
            .values()
            .filter(|property| property.required)
            .count();
        node.required_elsewhere = node
            .required
            .iter()
            .filter(|name| !node.properties.contains_key(name.as_str()))
            .cloned()
            .collect();
        // TC-CHECK-003: `false` refuses the other members; a schema checks them.
        node.additional = match keywords.get("additionalProperties") {
            None | Some(Value::Bool(true)) => Additional::Any,
            Some(Value::Bool(false)) => Additional::Forbidden,
            Some(schema @ Value::Object(_)) => {
                Additional::Schema(Target::new(self.compile(schema)))
            }
            Some(_) => Additional::Any,
        };
        // TC-CHECK-016: a member a pattern may name is not additional; the
        // patterns' own schemas are not compiled (TC-CHECK-012).
        if let Some(Value::Object(patterns)) = keywords.get("patternProperties") {
            node.patterns = patterns
                .keys()
                .map(|pattern| NamePattern::new(pattern))
                .collect();
        }
        // TC-CHECK-016: `items` starts after the `prefixItems`, whose own
        // schemas are not compiled (TC-CHECK-012).
        node.prefix_items = match keywords.get("prefixItems") {
            None => 0,
            Some(Value::Array(prefix)) => prefix.len(),
            // Where `items` starts is unknown, so it is not checked at all.
            Some(_) => usize::MAX,
        };
        node.items = match keywords.get("items") {
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => {
                Some(Target::new(self.compile(schema)))
            }
            _ => None,
        };
        node
    }
}

/// A length or item count: a non-negative whole number, which JSON Schema
/// lets be written `2.0` as well as `2`. Anything else bounds nothing.
fn count(keywords: &Map<String, Value>, keyword: &str) -> Option<u64> {
    let value = keywords.get(keyword)?;
    value.as_u64().or_else(|| {
        let float = value.as_f64()?;
        // Exact for every count an instance could reach; a larger one bounds nothing anyway.
        (float >= 0.0 && float.fract() == 0.0 && float < 2f64.powi(63)).then_some(float as u64)
    })
}

fn number(keywords: &Map<String, Value>, keyword: &str) -> Option<Number> {
    match keywords.get(keyword) {
        Some(Value::Number(number)) => Some(number.clone()),
        _ => None,
    }
}
