//! Document to model: parse JSON or YAML, settle the version, bring the other
//! files of a split document in, resolve `$ref`s.
//!
//! The model is a tolerant reading of `serde_json::Value` rather than a typed
//! crate such as `openapiv3`, which is too strict for 3.1 and for several real
//! documents in the corpus. Schemas stay as JSON values with their `$ref`s in
//! place: [`crate::convert`] carries them into each tool's `$defs`.
//!
//! Rules (see `docs/rules.md`): TC-LOAD-001, TC-LOAD-002, TC-LOAD-003,
//! TC-LOAD-004, TC-LOAD-005, TC-LOAD-006, TC-LOAD-007, TC-LOAD-008; and the
//! document order of TC-PROTO-006.

mod error;
mod fields;
mod files;
mod model;
mod operations;
mod place;
mod pointer;
mod resolver;
mod security;
mod swagger2;
mod text;

use std::path::Path;

use serde_json::Value;

use resolver::Resolver;

pub use error::{Hole, LoadError, RefProblem, TextPosition, Unresolvable};
pub use files::schema_name;
pub use model::{
    MediaType, Method, Operation, Parameter, ParameterLocation, RequestBody, SecurityScheme,
};
pub use place::DocPath;
pub use pointer::local_pointer;

/// An OpenAPI document reduced to what the gateway needs, in document order.
#[derive(Debug, Clone)]
pub struct Document {
    /// Where the document came from (a file path or a caller's label), for messages.
    pub origin: String,
    /// The `openapi` or `swagger` version as written, e.g. `3.0.1` or `2.0`.
    pub version: String,
    /// How the document's schemas are to be read.
    pub dialect: Dialect,
    /// Every operation under `paths`, deprecated ones included, in document order:
    /// paths as written, then methods in [`Method::ALL`] order.
    pub operations: Vec<Operation>,
    /// Scheme names of the top-level `security` requirements, in the order written.
    pub security: Vec<String>,
    /// `components.securitySchemes` (or Swagger 2.0 `securityDefinitions`), in the order written.
    pub security_schemes: Vec<(String, SecurityScheme)>,
    /// Parts of the document that were skipped rather than refused (a
    /// parameter in no known place, a security scheme without a type).
    pub warnings: Vec<String>,
    /// The whole document (after a Swagger 2.0 upgrade), the other files of a
    /// split document inside it, against which schema `$ref`s resolve.
    root: Value,
    /// The references that could not be resolved, each an error once followed.
    holes: files::Holes,
}

impl Document {
    /// The value a decoded JSON Pointer (`/components/schemas/Pet`) names.
    pub fn at_pointer(&self, pointer: &str) -> Option<&Value> {
        pointer::lookup(&self.root, pointer)
    }

    /// TC-LOAD-006: the error of following a reference to `pointer`, when it
    /// stands for a reference that could not be resolved.
    pub fn unresolved(&self, pointer: &str) -> Option<LoadError> {
        self.holes
            .at(pointer)
            .map(|hole| LoadError::Unresolved(Box::new(hole.clone())))
    }
}

/// How schemas are written: OpenAPI 3.0 forms (`nullable`, boolean exclusive
/// bounds) or JSON Schema 2020-12 as in OpenAPI 3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAPI 3.0.x, and Swagger 2.0 after its upgrade.
    OpenApi30,
    /// OpenAPI 3.1.x.
    OpenApi31,
}

/// TC-LOAD-001, TC-LOAD-002, TC-LOAD-007: read a document from a file.
/// The file's extension decides nothing: the text itself tells JSON from YAML.
/// TC-LOAD-008: references to other files are read from the file's own folder
/// and those under it.
pub fn load_path(path: &Path) -> Result<Document, LoadError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| {
        // Asked only once no such file is found: a file is read whatever its name.
        if source.kind() == std::io::ErrorKind::NotFound && is_url(&origin) {
            return LoadError::Url {
                origin: origin.clone(),
            };
        }
        LoadError::Read {
            origin: origin.clone(),
            source,
        }
    })?;
    load(files::Source {
        text: &text,
        origin: &origin,
        path: Some(path),
    })
}

/// TC-LOAD-001, TC-LOAD-002, TC-LOAD-007: read a document from text; `origin`
/// names it in every error and warning. Text has no folder: a reference to
/// another file cannot be resolved, and is an error where it is followed.
pub fn load_str(text: &str, origin: &str) -> Result<Document, LoadError> {
    load(files::Source {
        text,
        origin,
        path: None,
    })
}

/// Whether a document's path is written as a URL, `scheme://...`.
fn is_url(path: &str) -> bool {
    files::uri_scheme(path).is_some_and(|scheme| path[scheme.len() + 1..].starts_with("//"))
}

fn load(source: files::Source) -> Result<Document, LoadError> {
    let origin = source.origin;
    let parsed = text::parse(source.text, origin)?;
    // Known to be OpenAPI before any other file is read for it.
    let (version, dialect, swagger) = settle_version(&parsed, origin)?;
    let files::Bundle { root, holes } = files::bundle(parsed, source)?;
    let root = match swagger {
        true => swagger2::upgrade(root, &holes, origin)?,
        false => root,
    };
    let resolver = Resolver::new(&root, &holes, origin);
    let mut reader = operations::Reader::new(resolver);
    let operations = reader.operations()?;
    let mut warnings = reader.into_warnings();
    let security = security::read(resolver, &mut warnings)?;
    Ok(Document {
        origin: origin.to_string(),
        version,
        dialect,
        operations,
        security: security.requirements,
        security_schemes: security.schemes,
        warnings,
        root,
        holes,
    })
}

/// The version as written, how schemas read, and whether the document is
/// Swagger 2.0 (to be brought into OpenAPI 3.0 shape): 3.0.x (TC-LOAD-001),
/// 3.1.x (TC-LOAD-002) and 2.0 (TC-LOAD-007) are read, any other refused.
fn settle_version(root: &Value, origin: &str) -> Result<(String, Dialect, bool), LoadError> {
    let Some(top) = root.as_object() else {
        return Err(LoadError::NotOpenApi {
            origin: origin.to_string(),
        });
    };
    let version_of = |key: &str| top.get(key).map(version_text);
    if let Some(version) = version_of("openapi") {
        let dialect = if version == "3.0" || version.starts_with("3.0.") {
            Dialect::OpenApi30
        } else if version == "3.1" || version.starts_with("3.1.") {
            Dialect::OpenApi31
        } else {
            return Err(LoadError::UnsupportedVersion {
                origin: origin.to_string(),
                found: version,
            });
        };
        return Ok((version, dialect, false));
    }
    match version_of("swagger") {
        Some(version) if version == "2.0" || version == "2" => {
            Ok((version, Dialect::OpenApi30, true))
        }
        Some(version) => Err(LoadError::UnsupportedVersion {
            origin: origin.to_string(),
            found: version,
        }),
        None => Err(LoadError::NotOpenApi {
            origin: origin.to_string(),
        }),
    }
}

/// A version as text, also when YAML read an unquoted `3.0` or `2.0` as a number.
fn version_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.trim().to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
