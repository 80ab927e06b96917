//! Places in a document: readable paths for messages, and local `$ref` resolution.

use std::collections::HashSet;
use std::fmt;

use percent_encoding::percent_decode_str;
use serde_json::Value;

use super::{LoadError, RefProblem};

/// A place in the document, shown as `paths./pets.get.parameters[0]`: object keys
/// joined by dots, list positions in brackets. Keys are shown as written, which
/// reads better for paths than JSON Pointer's `~1` escapes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocPath(String);

impl DocPath {
    /// The top of the document.
    pub fn root() -> Self {
        Self::default()
    }

    /// The member `key` of the object here.
    pub fn key(&self, key: &str) -> Self {
        if self.0.is_empty() {
            Self(key.to_string())
        } else {
            Self(format!("{}.{key}", self.0))
        }
    }

    /// The item at `index` of the list here.
    pub fn index(&self, index: usize) -> Self {
        Self(format!("{}[{index}]", self.0))
    }

    /// The place a decoded JSON Pointer (`/components/schemas/Pet`) names.
    pub fn from_pointer(pointer: &str) -> Self {
        pointer
            .split('/')
            .skip(1)
            .fold(Self::root(), |path, token| path.key(&unescape_token(token)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DocPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("document root")
        } else {
            f.write_str(&self.0)
        }
    }
}

/// The JSON Pointer inside a local reference (`#/components/schemas/Pet` gives
/// `/components/schemas/Pet`), percent-decoded; `None` for anything that would
/// have to be fetched (another file, a URL, an `$id`).
pub fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    // A fragment is URI-encoded first, a JSON Pointer second (RFC 6901, section 6).
    let decoded = percent_decode_str(fragment).decode_utf8().ok()?;
    Some(decoded.into_owned())
}

/// The value a decoded JSON Pointer names in `root`.
pub fn lookup<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let tokens = pointer.strip_prefix('/')?;
    tokens.split('/').try_fold(root, |value, token| {
        let token = unescape_token(token);
        match value {
            Value::Object(members) => members.get(token.as_str()),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
    })
}

/// `~1` is `/` and `~0` is `~`, decoded in that order (RFC 6901, section 4).
fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// What a value turns out to be once its `$ref` chain is followed.
pub enum Followed<'a> {
    /// The value itself, and where it is.
    Local(&'a Value, DocPath),
    /// The chain ends in a reference that is never fetched (TC-LOAD-004).
    External(String),
}

/// TC-LOAD-003: follow `value`'s `$ref` (and the target's, and so on) to a value
/// that is not a reference. A dangling pointer or a chain that comes back on
/// itself is an error at `at`.
pub fn follow<'a>(
    root: &'a Value,
    value: &'a Value,
    at: &DocPath,
    origin: &str,
) -> Result<Followed<'a>, LoadError> {
    let mut current = value;
    let mut place = at.clone();
    let mut seen = HashSet::new();
    while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
        let Some(pointer) = local_pointer(reference) else {
            return Ok(Followed::External(reference.to_string()));
        };
        let broken = |problem| LoadError::BrokenRef {
            origin: origin.to_string(),
            at: place.clone(),
            reference: reference.to_string(),
            problem,
        };
        if !seen.insert(pointer.clone()) {
            return Err(broken(RefProblem::Cycle));
        }
        current = lookup(root, &pointer).ok_or_else(|| broken(RefProblem::Missing))?;
        place = DocPath::from_pointer(&pointer);
    }
    Ok(Followed::Local(current, place))
}

#[cfg(test)]
mod tests {
    use rstest::rstest;
    use serde_json::json;

    use super::*;

    #[rstest]
    #[case("#/components/schemas/Pet", Some("/components/schemas/Pet"))]
    #[case("#/paths/~1pets~1%7Bid%7D", Some("/paths/~1pets~1{id}"))]
    #[case("#", Some(""))]
    #[case("Pet.yaml", None)]
    #[case("https://example.com/schemas.json#/Pet", None)]
    fn local_pointer_decodes_only_local_references(
        #[case] reference: &str,
        #[case] expected: Option<&str>,
    ) {
        assert_eq!(local_pointer(reference).as_deref(), expected);
    }

    #[test]
    fn lookup_unescapes_tokens_and_indexes_lists() {
        let root = json!({"paths": {"/a~b/{id}": {"get": {"tags": ["x", "y"]}}}});
        assert_eq!(
            lookup(&root, "/paths/~1a~0b~1{id}/get/tags/1"),
            Some(&json!("y"))
        );
        assert_eq!(lookup(&root, "/paths/missing"), None);
        assert_eq!(lookup(&root, "/paths/~1a~0b~1{id}/get/tags/x"), None);
        assert_eq!(lookup(&root, "no-leading-slash"), None);
    }

    #[test]
    fn doc_path_reads_like_the_document() {
        let at = DocPath::root()
            .key("paths")
            .key("/pets")
            .key("get")
            .key("parameters")
            .index(2);
        assert_eq!(at.to_string(), "paths./pets.get.parameters[2]");
        assert_eq!(DocPath::root().to_string(), "document root");
        assert_eq!(
            DocPath::from_pointer("/components/parameters/a~1b").to_string(),
            "components.parameters.a/b"
        );
    }

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

        let cycle = follow(&root, &start("A"), &at, "doc")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            cycle.as_deref(),
            Some("doc: components.parameters.B: $ref `#/components/parameters/A` leads back to itself")
        );
        let missing = follow(&root, &start("C"), &at, "doc")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            missing.as_deref(),
            Some("doc: components.parameters.C: $ref `#/components/parameters/Nope` points to nothing in this document")
        );
        let d = start("D");
        match follow(&root, &d, &at, "doc") {
            Ok(Followed::Local(value, place)) => {
                assert_eq!(value, &json!({"name": "d", "in": "query"}));
                assert_eq!(place.to_string(), "components.parameters.D");
            }
            _ => panic!("D should resolve"),
        }
        let external = json!({"$ref": "parameters.yaml#/tagsParam"});
        assert!(matches!(
            follow(&root, &external, &at, "doc"),
            Ok(Followed::External(reference)) if reference == "parameters.yaml#/tagsParam"
        ));
    }
}
