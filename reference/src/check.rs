//! Argument checking: each tool's input schema compiled once, every call checked against it.
//!
//! Rules (see `docs/rules.md`): TC-CHECK-001, TC-CHECK-002, TC-CHECK-003,
//! TC-CHECK-004, TC-CHECK-005, TC-CHECK-006, TC-CHECK-007, TC-CHECK-008,
//! TC-CHECK-009, TC-CHECK-010, TC-CHECK-011, TC-CHECK-012, TC-CHECK-013,
//! TC-CHECK-014, TC-CHECK-016; TC-CHECK-015 is the caller's (`gateway.rs`).
//!
//! Compilation turns the schema into an arena of nodes, with every
//! local `$ref` already pointing at an arena index, so a call never resolves a
//! reference and recursive schemas cost nothing extra. Checking walks the
//! arguments and the arena together; it allocates only when it has something to
//! report, because the path to the current value lives on the call stack as
//! borrowed segments and becomes a JSON Pointer only for a violation.

mod compile;
mod format;
mod json;
mod pattern;
mod set;
mod violation;

use std::collections::HashSet;

use serde_json::{Map, Value};

use compile::{Additional, Node, NodeId, Target, MAX_REFERENCE_HOPS};
pub use format::Format;
pub use violation::{JsonType, Problem, TypeSet, Violation};

/// Values nested deeper than this are left to the API (TC-CHECK-011): the
/// arguments object is depth 0 and each property or item adds one.
pub const MAX_CHECKED_DEPTH: usize = 8;

/// One tool's input schema, compiled for repeated checking.
#[derive(Debug, Clone)]
pub struct Validator {
    nodes: Vec<Node>,
    root: Target,
    /// Whether a value can meet one node along several paths: some node has
    /// a `$ref` and keywords for its children beside it, so the children are
    /// checked against both. Each level of nesting multiplies the paths (a
    /// chain of seven such schemas checks a value eight levels deep 7^8
    /// times), so such a walk checks each value against each node once.
    converging: bool,
}

impl Validator {
    /// Compiles an input schema. Never fails: keywords outside the checked set,
    /// malformed keyword values and references that lead nowhere are ignored
    /// (TC-CHECK-012), so they are left to the API like everything unchecked.
    pub fn compile(input_schema: &Map<String, Value>) -> Validator {
        let (nodes, root) = compile::compile(input_schema);
        let converging = nodes.iter().any(|node| {
            node.reference.is_some()
                && (node.items.is_some()
                    || !node.properties.is_empty()
                    || matches!(node.additional, Additional::Schema(_)))
        });
        Validator {
            nodes,
            root,
            converging,
        }
    }

    /// Checks the arguments and reports every wrong place, not just the first
    /// (TC-CHECK-013). Nothing is allocated when the arguments are valid,
    /// unless children's keywords sit beside a `$ref` somewhere in the schema.
    pub fn validate(&self, arguments: &Value) -> Result<(), Vec<Violation>> {
        let mut walk = Walk {
            nodes: &self.nodes,
            violations: Vec::new(),
            visited: self.converging.then(HashSet::new),
        };
        walk.visit(self.root.node, arguments, None, 0, self.root.hops);
        if walk.violations.is_empty() {
            Ok(())
        } else {
            Err(walk.violations)
        }
    }
}

/// One step from a value to one of its children.
#[derive(Debug, Clone, Copy)]
enum Segment<'v> {
    Key(&'v str),
    Index(usize),
}

/// Where the walk is: a chain of frames on the call stack, so following the
/// path costs no allocation.
struct Location<'p, 'v> {
    parent: Option<&'p Location<'p, 'v>>,
    segment: Segment<'v>,
}

/// Renders a location, plus an optional last key, as an RFC 6901 pointer.
fn pointer(location: Option<&Location<'_, '_>>, last: Option<&str>) -> String {
    let mut pointer = String::new();
    push_location(&mut pointer, location);
    if let Some(key) = last {
        pointer.push('/');
        push_escaped(&mut pointer, key);
    }
    pointer
}

/// Appends the path from the root to `location`, outermost step first.
fn push_location(pointer: &mut String, location: Option<&Location<'_, '_>>) {
    let Some(frame) = location else {
        return;
    };
    push_location(pointer, frame.parent);
    pointer.push('/');
    match frame.segment {
        Segment::Key(key) => push_escaped(pointer, key),
        Segment::Index(index) => {
            use std::fmt::Write as _;
            // Writing to a String cannot fail.
            let _ = write!(pointer, "{index}");
        }
    }
}

/// RFC 6901: `~` becomes `~0` and `/` becomes `~1`.
fn push_escaped(pointer: &mut String, key: &str) {
    for character in key.chars() {
        match character {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            other => pointer.push(other),
        }
    }
}

struct Walk<'n> {
    nodes: &'n [Node],
    violations: Vec<Violation>,
    /// For a converging schema: the node, the value's address and the
    /// reference hops of every visit so far. A value's address fixes its
    /// place and depth, so a second visit would only repeat the first.
    visited: Option<HashSet<(NodeId, usize, u8)>>,
}

impl Walk<'_> {
    fn report(
        &mut self,
        location: Option<&Location<'_, '_>>,
        last: Option<&str>,
        problem: Problem,
    ) {
        self.violations.push(Violation {
            pointer: pointer(location, last),
            problem,
        });
    }

    /// Checks `value`, found at `location` and `depth`, against node `id`.
    fn visit<'v>(
        &mut self,
        id: NodeId,
        value: &'v Value,
        location: Option<&Location<'_, 'v>>,
        depth: usize,
        reference_hops: u8,
    ) {
        let nodes = self.nodes;
        let Some(node) = nodes.get(id) else {
            return;
        };
        if let Some(visited) = &mut self.visited {
            let address = std::ptr::from_ref(value).addr();
            if !visited.insert((id, address, reference_hops)) {
                return;
            }
        }
        // TC-CHECK-003: the schema `false` (a property's own, say) admits no value.
        if node.rejects_everything {
            self.report(location, None, Problem::NotAllowed);
            return;
        }
        // TC-CHECK-004: a referenced schema is checked, and so are the
        // keywords written beside its `$ref`, below.
        if let Some(target) = node.reference {
            if reference_hops < MAX_REFERENCE_HOPS {
                self.visit(target, value, location, depth, reference_hops + 1);
            }
        }
        // TC-CHECK-001: `type`; an integer is a number too.
        if let Some(expected) = node.types {
            if !expected.admits(value) {
                let found = JsonType::of(value);
                self.report(location, None, Problem::WrongType { expected, found });
                // The remaining keywords describe a value of another type.
                return;
            }
        }
        // TC-CHECK-005: `enum`, by JSON equality (`1` equals `1.0`).
        if let Some(allowed) = &node.enumeration {
            if !allowed.contains(value) {
                self.report(location, None, Problem::NotInEnum);
            }
        }
        // TC-CHECK-006: `const`, by the same equality.
        if let Some(constant) = &node.constant {
            if !json::equal(constant, value) {
                self.report(location, None, Problem::NotConst);
            }
        }
        match value {
            Value::String(text) => self.check_string(node, text, location),
            Value::Number(number) => self.check_number(node, number, location),
            Value::Array(items) => self.check_array(node, items, location, depth),
            Value::Object(members) => self.check_object(node, members, location, depth),
            Value::Null | Value::Bool(_) => {}
        }
    }

    fn check_string(&mut self, node: &Node, text: &str, location: Option<&Location<'_, '_>>) {
        // TC-CHECK-007: characters, not bytes. A character takes one to four
        // bytes, so the byte length often settles it uncounted.
        let bytes = text.len() as u64;
        if let Some(min) = node.min_length {
            let too_short =
                bytes < min || (bytes.div_ceil(4) < min && (text.chars().count() as u64) < min);
            if too_short {
                self.report(location, None, Problem::TooShort { min });
            }
        }
        if let Some(max) = node.max_length {
            let too_long = bytes > max
                && (bytes > max.saturating_mul(4) || (text.chars().count() as u64) > max);
            if too_long {
                self.report(location, None, Problem::TooLong { max });
            }
        }
        // TC-CHECK-010: only the formats `Format` knows get here.
        if let Some(format) = node.format {
            if !format.accepts(text) {
                self.report(location, None, Problem::BadFormat { format });
            }
        }
    }

    /// TC-CHECK-009: the four bounds, compared exactly where both numbers
    /// are integers.
    fn check_number(
        &mut self,
        node: &Node,
        number: &serde_json::Number,
        location: Option<&Location<'_, '_>>,
    ) {
        use std::cmp::Ordering::{Greater, Less};
        if let Some(bound) = &node.minimum {
            if json::compare(number, bound) == Some(Less) {
                let problem = Problem::BelowMinimum {
                    bound: bound.clone(),
                    exclusive: false,
                };
                self.report(location, None, problem);
            }
        }
        if let Some(bound) = &node.exclusive_minimum {
            if json::compare(number, bound) != Some(Greater) {
                let problem = Problem::BelowMinimum {
                    bound: bound.clone(),
                    exclusive: true,
                };
                self.report(location, None, problem);
            }
        }
        if let Some(bound) = &node.maximum {
            if json::compare(number, bound) == Some(Greater) {
                let problem = Problem::AboveMaximum {
                    bound: bound.clone(),
                    exclusive: false,
                };
                self.report(location, None, problem);
            }
        }
        if let Some(bound) = &node.exclusive_maximum {
            if json::compare(number, bound) != Some(Less) {
                let problem = Problem::AboveMaximum {
                    bound: bound.clone(),
                    exclusive: true,
                };
                self.report(location, None, problem);
            }
        }
    }

    fn check_array<'v>(
        &mut self,
        node: &Node,
        items: &'v [Value],
        location: Option<&Location<'_, 'v>>,
        depth: usize,
    ) {
        // TC-CHECK-008: `minItems` and `maxItems`.
        let count = items.len() as u64;
        if let Some(min) = node.min_items {
            if count < min {
                self.report(location, None, Problem::TooFewItems { min });
            }
        }
        if let Some(max) = node.max_items {
            if count > max {
                self.report(location, None, Problem::TooManyItems { max });
            }
        }
        // TC-CHECK-004, TC-CHECK-016: `items` is checked, and is about the
        // items after `prefixItems`.
        let Some(item_schema) = node.items else {
            return;
        };
        // TC-CHECK-011: items deeper than the limit are left to the API.
        if depth + 1 > MAX_CHECKED_DEPTH {
            return;
        }
        for (index, item) in items.iter().enumerate().skip(node.prefix_items) {
            let here = Location {
                parent: location,
                segment: Segment::Index(index),
            };
            self.visit(
                item_schema.node,
                item,
                Some(&here),
                depth + 1,
                item_schema.hops,
            );
        }
    }

    fn check_object<'v>(
        &mut self,
        node: &Node,
        members: &'v Map<String, Value>,
        location: Option<&Location<'_, 'v>>,
        depth: usize,
    ) {
        let first_violation = self.violations.len();
        // TC-CHECK-011: an object at the limit still gets its own `required`
        // and `additionalProperties` checks; only its members' values are
        // left to the API.
        let children_checked = depth < MAX_CHECKED_DEPTH;
        let mut required_seen = 0;
        for (name, member) in members {
            let schema = match node.properties.get(name.as_str()) {
                Some(property) => {
                    required_seen += usize::from(property.required);
                    property.target
                }
                // TC-CHECK-016: a member that a `patternProperties`
                // pattern may name is not additional.
                None if node.patterns.iter().any(|pattern| pattern.may_match(name)) => continue,
                None => match node.additional {
                    Additional::Any => continue,
                    Additional::Forbidden => {
                        // TC-CHECK-003: named by its own pointer too.
                        self.report(location, Some(name), Problem::NotAllowed);
                        continue;
                    }
                    // TC-CHECK-003: a schema-valued `additionalProperties`
                    // checks the member.
                    Additional::Schema(schema) => schema,
                },
            };
            // TC-CHECK-004: nested `properties` are checked.
            if children_checked {
                let here = Location {
                    parent: location,
                    segment: Segment::Key(name),
                };
                self.visit(schema.node, member, Some(&here), depth + 1, schema.hops);
            }
        }
        let all_required_present = required_seen == node.required_properties
            && node
                .required_elsewhere
                .iter()
                .all(|name| members.contains_key(name.as_str()));
        if !all_required_present {
            // TC-CHECK-002: a missing property is named by its own pointer,
            // and reported before what is wrong inside the members.
            let missing: Vec<Violation> = node
                .required
                .iter()
                .filter(|name| !members.contains_key(name.as_str()))
                .map(|name| Violation {
                    pointer: pointer(location, Some(name)),
                    problem: Problem::Missing,
                })
                .collect();
            self.violations
                .splice(first_violation..first_violation, missing);
        }
    }
}

#[cfg(test)]
mod tests;
