//! Model to tools: names, descriptions, hints, arguments and the per-tool call plan.
//!
//! Rules (see `docs/rules.md`). Names: TC-NAME-001, TC-NAME-002,
//! TC-NAME-003, TC-NAME-004, TC-NAME-005, TC-NAME-006, TC-NAME-007,
//! TC-NAME-008, TC-NAME-009, TC-NAME-010, TC-NAME-011. Descriptions and hints:
//! TC-DESC-001, TC-DESC-002, TC-DESC-003, TC-DESC-004, TC-DESC-005,
//! TC-HINT-002, TC-HINT-003, TC-HINT-004. Arguments: TC-ARG-001, TC-ARG-002,
//! TC-ARG-003, TC-ARG-004, TC-ARG-005, TC-ARG-006, TC-ARG-007. Input schemas:
//! TC-SCHEMA-001, TC-SCHEMA-002, TC-SCHEMA-003, TC-SCHEMA-004, TC-SCHEMA-005,
//! TC-SCHEMA-006, TC-SCHEMA-007, TC-SCHEMA-008. Tool order: TC-PROTO-006. The
//! request's plan: TC-REQ-005, TC-REQ-006, TC-REQ-008, TC-REQ-011, TC-REQ-014,
//! TC-REQ-017.

mod annotations;
mod arguments;
mod credential;
mod headers;
mod names;
mod schema;
mod selection;

use serde_json::{Map, Value};

pub use headers::{is_denied_header, DENIED_HEADERS, DENIED_HEADER_PREFIXES};
pub use names::{MAX_NAME_LEN, MIN_NAME_LIMIT};
pub use selection::Selection;

use crate::load::{Document, LoadError};
use names::ToolNames;
use schema::SchemaTranslator;

/// Build the catalogue: one tool per operation that is not deprecated (TC-NAME-010),
/// in document order (TC-PROTO-006). Tools carry no output schema (TC-SCHEMA-005).
/// Fails only on a schema `$ref` that points to nothing, naming where it is.
pub fn convert(document: &Document) -> Result<Catalogue, LoadError> {
    convert_with(document, &Options::default())
}

/// What an operator may choose beyond the rules; the default follows them.
#[derive(Debug, Clone)]
pub struct Options {
    /// Which tools are served.
    pub selection: Selection,
    /// The longest tool name, for clients that cap names below MCP's 128
    /// (shortened as TC-NAME-009 shortens, unique as TC-NAME-008 keeps them).
    pub max_name_length: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            selection: Selection::default(),
            max_name_length: MAX_NAME_LEN,
        }
    }
}

/// [`convert`] with an operator's [`Options`]. Every operation is named
/// before the selection, so a tool's name never depends on which others
/// are served.
pub fn convert_with(document: &Document, options: &Options) -> Result<Catalogue, LoadError> {
    let mut names = ToolNames::with_limit(options.max_name_length);
    let mut schemas = SchemaTranslator::new(document);
    let mut tools = Vec::with_capacity(document.operations.len());
    let mut seen = options.selection.matched();
    let mut left_out = 0;
    // TC-NAME-010: a deprecated operation is no tool, and takes no name.
    for operation in document.operations.iter().filter(|op| !op.deprecated) {
        let name = names.assign(operation);
        if !options.selection.keeps(&name, &operation.tags, &mut seen) {
            left_out += 1;
            continue;
        }
        let arguments = arguments::build(operation, &mut schemas)?;
        tools.push(Tool {
            name,
            title: annotations::title(operation),
            description: annotations::description(operation),
            hints: annotations::hints(operation.method),
            input_schema: arguments.input_schema,
            plan: CallPlan {
                method: operation.method.as_upper().to_string(),
                path: operation.path.clone(),
                parameters: arguments.parameters,
                body: arguments.body,
            },
        });
    }
    let (credential_scheme, default_credential) = credential::default_placement(document).unzip();
    Ok(Catalogue {
        tools,
        default_credential,
        credential_scheme,
        left_out_by_selection: left_out,
        unmatched_selectors: options.selection.unmatched(&seen),
    })
}

/// Everything the gateway serves, built once when the document is loaded.
#[derive(Debug, Clone)]
pub struct Catalogue {
    /// Tools in document order (paths as written, methods get, put, post, delete, options, head, patch, trace).
    pub tools: Vec<Tool>,
    /// Where the credential goes when the configuration does not say: taken from the document's security schemes.
    pub default_credential: Option<CredentialPlacement>,
    /// The security scheme `default_credential` was taken from.
    pub credential_scheme: Option<String>,
    /// Operations the operator's selection left out.
    pub left_out_by_selection: usize,
    /// Selectors that named no operation, as written (`--include-tags x`).
    pub unmatched_selectors: Vec<String>,
}

/// One MCP tool and what it takes to call it.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub hints: Hints,
    /// Self-contained JSON Schema 2020-12 object with `additionalProperties: false` at the top.
    pub input_schema: Map<String, Value>,
    pub plan: CallPlan,
}

/// The three MCP tool annotations, always present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

/// How arguments become the one upstream request.
#[derive(Debug, Clone)]
pub struct CallPlan {
    /// Upper-case HTTP method.
    pub method: String,
    /// The operation's path as written in the document, e.g. `/pets/{petId}`.
    pub path: String,
    pub parameters: Vec<ParameterPlan>,
    pub body: Option<BodyPlan>,
}

/// One parameter: the argument it is read from and where it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterPlan {
    /// Name of the argument in the tool's input schema (may carry a location prefix after a clash).
    pub argument: String,
    /// Name on the wire, as the document writes it.
    pub name: String,
    pub location: Location,
    /// OpenAPI `style`; `None` means the location's default (simple for path and header, form for query).
    pub style: Option<String>,
    /// OpenAPI `explode`, already defaulted (true for form, false otherwise).
    pub explode: bool,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Location {
    Path,
    Query,
    Header,
}

/// The operation's request body, sent from the `body` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyPlan {
    /// A JSON media type when the operation lists one, else the first one listed.
    pub content_type: String,
    pub required: bool,
}

/// Where the stored credential is put on every request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialPlacement {
    /// A header of this name carries the credential as is.
    Header(String),
    /// `Authorization: Bearer <credential>`.
    Bearer,
    /// `Authorization: Basic base64(<user:password>)`; see [`basic_pair`].
    Basic,
    /// A query parameter of this name carries the credential.
    Query(String),
}

/// The `user:password` a basic credential stands for (TC-REQ-014): the
/// credential itself when it holds a `:`, else the credential as the user
/// name with an empty password, as APIs that take a secret key as the user
/// name (Stripe) expect.
pub fn basic_pair(credential: &str) -> std::borrow::Cow<'_, str> {
    if credential.contains(':') {
        credential.into()
    } else {
        format!("{credential}:").into()
    }
}

#[cfg(test)]
mod tests;
