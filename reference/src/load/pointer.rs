//! Places in a document: readable paths for messages, and local `$ref` resolution.

use std::collections::HashSet;
use std::fmt;

use percent_encoding::percent_decode_str;
use serde_json::Value;

use super::files::{in_other_file, Holes};
use super::{LoadError, RefProblem};

/// A place in the document, shown as `paths./pets.get.parameters[0]`: object keys
/// joined by dots, list positions in brackets. Keys are shown as written, which
/// reads better for paths than JSON Pointer's `~1` escapes. A place in another
/// file of a split document starts with that file: `paths/pets.yaml: get`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocPath(String);

/// What separates another file's name from the place in it.
const FILE_SEPARATOR: &str = ": ";

impl DocPath {
    /// The top of the document.
    pub fn root() -> Self {
        Self::default()
    }

    /// The member `key` of the object here.
    pub fn key(&self, key: &str) -> Self {
        if self.0.is_empty() || self.0.ends_with(FILE_SEPARATOR) {
            Self(format!("{}{key}", self.0))
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
        let (start, pointer) = match in_other_file(pointer) {
            Some((file, within)) => (Self(format!("{file}{FILE_SEPARATOR}")), within),
            None => (Self::root(), pointer),
        };
        pointer
            .split('/')
            .skip(1)
            .fold(start, |path, token| path.key(&unescape_token(token)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DocPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.strip_suffix(FILE_SEPARATOR) {
            _ if self.0.is_empty() => f.write_str("document root"),
            Some(file) => f.write_str(file),
            None => f.write_str(&self.0),
        }
    }
}

/// The JSON Pointer inside a local reference (`#/components/schemas/Pet` gives
/// `/components/schemas/Pet`), percent-decoded; `None` for a reference to
/// anything else (another file, a URL, an `$id`), which only the bundling of
/// files settles.
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

/// TC-LOAD-003: follow `value`'s `$ref` (and the target's, and so on) to a value
/// that is not a reference, and where it is. A dangling pointer or a chain that
/// comes back on itself is an error at `at`; a reference that could not be
/// resolved when the files were bundled (TC-LOAD-006) is its own error.
pub fn follow<'a>(
    root: &'a Value,
    holes: &Holes,
    value: &'a Value,
    at: &DocPath,
    origin: &str,
) -> Result<(&'a Value, DocPath), LoadError> {
    let mut current = value;
    let mut place = at.clone();
    let mut seen = HashSet::new();
    while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
        let broken = |problem| LoadError::BrokenRef {
            origin: origin.to_string(),
            at: place.clone(),
            reference: reference.to_string(),
            problem,
        };
        // After bundling, every reference is local: anything else points to nothing here.
        let pointer = local_pointer(reference).ok_or_else(|| broken(RefProblem::Missing))?;
        if let Some(hole) = holes.at(&pointer) {
            return Err(LoadError::Unresolved(hole.clone()));
        }
        if !seen.insert(pointer.clone()) {
            return Err(broken(RefProblem::Cycle));
        }
        current = lookup(root, &pointer).ok_or_else(|| broken(RefProblem::Missing))?;
        place = DocPath::from_pointer(&pointer);
    }
    Ok((current, place))
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
        let elsewhere = DocPath::from_pointer("/x-hosted-mcp-files/paths~1pets.yaml");
        assert_eq!(elsewhere.to_string(), "paths/pets.yaml");
        assert_eq!(
            elsewhere.key("get").index(0).to_string(),
            "paths/pets.yaml: get[0]"
        );
        assert_eq!(
            DocPath::from_pointer("/x-hosted-mcp-files/p.yaml/Limit/schema").to_string(),
            "p.yaml: Limit.schema"
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

        let holes = Holes::default();
        let cycle = follow(&root, &holes, &start("A"), &at, "doc")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            cycle.as_deref(),
            Some("doc: components.parameters.B: $ref `#/components/parameters/A` leads back to itself")
        );
        let missing = follow(&root, &holes, &start("C"), &at, "doc")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            missing.as_deref(),
            Some("doc: components.parameters.C: $ref `#/components/parameters/Nope` points to nothing in this document")
        );
        let d = start("D");
        match follow(&root, &holes, &d, &at, "doc") {
            Ok((value, place)) => {
                assert_eq!(value, &json!({"name": "d", "in": "query"}));
                assert_eq!(place.to_string(), "components.parameters.D");
            }
            Err(error) => panic!("D should resolve: {error}"),
        }
        let external = json!({"$ref": "parameters.yaml#/tagsParam"});
        assert!(matches!(
            follow(&root, &holes, &external, &at, "doc"),
            Err(LoadError::BrokenRef {
                problem: RefProblem::Missing,
                ..
            })
        ));
    }
}
