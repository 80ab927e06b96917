//! Following `$ref`s in a loaded document: the root, the references that
//! could not be settled, and how messages name the document, held once.

use std::collections::HashSet;

use serde_json::Value;

use super::error::{LoadError, RefProblem};
use super::files::Holes;
use super::place::DocPath;
use super::pointer::{local_pointer, lookup};

/// What following a reference needs, for the readers of operations,
/// security and Swagger 2.0 paths.
#[derive(Clone, Copy)]
pub struct Resolver<'a> {
    root: &'a Value,
    holes: &'a Holes,
    origin: &'a str,
}

impl<'a> Resolver<'a> {
    pub fn new(root: &'a Value, holes: &'a Holes, origin: &'a str) -> Self {
        Self {
            root,
            holes,
            origin,
        }
    }

    /// The whole document.
    pub fn root(&self) -> &'a Value {
        self.root
    }

    /// How messages name the document.
    pub fn origin(&self) -> &'a str {
        self.origin
    }

    /// TC-LOAD-003: follow `value`'s `$ref` (and the target's, and so on) to a value
    /// that is not a reference, and where it is. A dangling pointer or a chain that
    /// comes back on itself is an error at `at`; a reference that could not be
    /// resolved when the files were bundled (TC-LOAD-006) is its own error.
    pub fn follow(
        &self,
        value: &'a Value,
        at: &DocPath,
    ) -> Result<(&'a Value, DocPath), LoadError> {
        let mut current = value;
        let mut place = at.clone();
        let mut seen = HashSet::new();
        while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
            let broken = |problem| LoadError::BrokenRef {
                origin: self.origin.to_string(),
                at: place.clone(),
                reference: reference.to_string(),
                problem,
            };
            // After bundling, every reference is local: anything else points to nothing here.
            let pointer = local_pointer(reference).ok_or_else(|| broken(RefProblem::Missing))?;
            if let Some(hole) = self.holes.at(&pointer) {
                return Err(LoadError::Unresolved(Box::new(hole.clone())));
            }
            if !seen.insert(pointer.clone()) {
                return Err(broken(RefProblem::Cycle));
            }
            current = lookup(self.root, &pointer).ok_or_else(|| broken(RefProblem::Missing))?;
            place = DocPath::from_pointer(&pointer);
        }
        Ok((current, place))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn follow_reports_cycles_and_dangling_pointers() {
        let root = json!({
            "components": {"parameters": {
                "A": {"$ref": "#/components/parameters/B"},
                "B": {"$ref": "#/components/parameters/A"},
                "C": {"$ref": "#/components/parameters/Nope"},
                "D": {"name": "d", "in": "query"}
            }}
        });
        let at = DocPath::root().key("here");
        let start = |name: &str| json!({"$ref": format!("#/components/parameters/{name}")});

        let holes = Holes::default();
        let resolver = Resolver::new(&root, &holes, "doc");
        let cycle = resolver
            .follow(&start("A"), &at)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            cycle.as_deref(),
            Some("doc: components.parameters.B: $ref `#/components/parameters/A` leads back to itself")
        );
        let missing = resolver
            .follow(&start("C"), &at)
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            missing.as_deref(),
            Some("doc: components.parameters.C: $ref `#/components/parameters/Nope` points to nothing in this document")
        );
        let d = start("D");
        match resolver.follow(&d, &at) {
            Ok((value, place)) => {
                assert_eq!(value, &json!({"name": "d", "in": "query"}));
                assert_eq!(place.to_string(), "components.parameters.D");
            }
            Err(error) => panic!("D should resolve: {error}"),
        }
        let external = json!({"$ref": "parameters.yaml#/tagsParam"});
        assert!(matches!(
            resolver.follow(&external, &at),
            Err(LoadError::BrokenRef {
                problem: RefProblem::Missing,
                ..
            })
        ));
    }
}
