//! Places in a document as messages show them: `paths./pets.get`; and
//! where the other files of a split document sit in the one value read.

use std::fmt;

use super::pointer::unescape_token;

/// The top-level member that holds the other files of a split document, each
/// under its path from the root document's folder (`schemas/Pet.yaml`).
pub const FILES: &str = "x-hosted-mcp-files";

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

/// The place in another file of a split document that `pointer` names: the
/// file's path from the root's folder, and the pointer within it. `None` for
/// a pointer into the root document.
pub fn in_other_file(pointer: &str) -> Option<(String, &str)> {
    let rest = pointer
        .strip_prefix('/')?
        .strip_prefix(FILES)?
        .strip_prefix('/')?;
    let (token, within) = match rest.find('/') {
        Some(cut) => rest.split_at(cut),
        None => (rest, ""),
    };
    Some((unescape_token(token), within))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
