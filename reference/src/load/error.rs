//! Why a document cannot be used, and where: every error of the loader, and
//! the references that cannot be resolved, which become errors once followed.

use std::fmt;

use super::place::DocPath;

/// Why a document cannot be used. Every variant says where.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{origin}: cannot read the document: {source}")]
    Read {
        origin: String,
        #[source]
        source: std::io::Error,
    },
    /// TC-LOAD-004: a document named by a URL is not fetched either.
    #[error("{origin}: a URL: the gateway reads the document from a file and never fetches one; download it and give its path")]
    Url { origin: String },
    #[error("{origin}{position}: not valid {format}: {message}")]
    Syntax {
        origin: String,
        format: &'static str,
        position: TextPosition,
        message: String,
    },
    #[error(
        "{origin}: not an OpenAPI document: the top level has neither `openapi` nor `swagger`"
    )]
    NotOpenApi { origin: String },
    #[error(
        "{origin}: version {found} is not supported (OpenAPI 3.0.x, 3.1.x and Swagger 2.0 are)"
    )]
    UnsupportedVersion { origin: String, found: String },
    #[error("{origin}: {at}: {problem}")]
    Invalid {
        origin: String,
        at: DocPath,
        problem: String,
    },
    #[error("{origin}: {at}: $ref `{reference}` {problem}")]
    BrokenRef {
        origin: String,
        at: DocPath,
        reference: String,
        problem: RefProblem,
    },
    /// A reference to another file, a URL or a name that could not be
    /// resolved: the error names the file and line holding it.
    #[error("{0}")]
    Unresolved(Box<Hole>),
}

/// A line and column (both from 1) in the document's text, when the parser knows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPosition(pub Option<(usize, usize)>);

impl fmt::Display for TextPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some((line, column)) => write!(f, ":{line}:{column}"),
            None => Ok(()),
        }
    }
}

/// What is wrong with a local `$ref`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RefProblem {
    #[error("points to nothing in this document")]
    Missing,
    #[error("leads back to itself")]
    Cycle,
}

/// A reference that cannot be resolved, and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hole {
    /// The file that holds the reference, as messages name it.
    pub file: String,
    /// The reference's line and column there, when the text shows them
    /// unambiguously.
    pub position: TextPosition,
    /// The JSON Pointer, within that file, of the object holding the `$ref`.
    pub pointer: String,
    /// The reference as written.
    pub reference: String,
    /// Why it cannot be resolved.
    pub problem: Unresolvable,
}

/// Why a reference cannot be resolved (TC-LOAD-006, TC-LOAD-008). Files
/// are named as messages name them, from the root document's folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unresolvable {
    #[error("its fragment is not valid percent-encoded UTF-8")]
    FragmentEncoding,
    #[error("its path is not valid percent-encoded UTF-8")]
    PathEncoding,
    #[error("it is a URL, and URLs are never fetched")]
    Url,
    #[error(
        "it names another file, and a document not read from a file has no folder to find it in"
    )]
    NoFolder,
    #[error("it leads outside the document's folder {folder}, and such files are not read")]
    OutsideTree { folder: String },
    #[error("{file} does not exist")]
    Missing { file: String },
    #[error("{file} is not a file")]
    NotAFile { file: String },
    /// The reason is the system's message, kept as text so a hole can be
    /// cloned and compared.
    #[error("{file} cannot be read: {reason}")]
    Unreadable { file: String, reason: String },
    /// The file's own parse error, which names the file and the place.
    #[error("{0}")]
    Unparsable(String),
    #[error("{file} has no schema with `$anchor: {anchor}`")]
    NoAnchor { file: String, anchor: String },
    #[error("{file} has nothing at #{pointer}")]
    NothingAt { file: String, pointer: String },
}

impl fmt::Display for Hole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}: #{}: $ref `{}` cannot be resolved: {}",
            self.file, self.position, self.pointer, self.reference, self.problem
        )
    }
}
