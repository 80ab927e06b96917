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
mod catalogue;
mod credential;
mod headers;
mod names;
mod schema;
mod selection;

pub use catalogue::{
    basic_pair, BodyPlan, CallPlan, Catalogue, CredentialPlacement, Hints, Location, ParameterPlan,
    Tool,
};
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
    let token_url = credential::token_url(document, credential_scheme.as_deref());
    Ok(Catalogue {
        tools,
        default_credential,
        credential_scheme,
        token_url,
        left_out_by_selection: left_out,
        unmatched_selectors: options.selection.unmatched(&seen),
    })
}

#[cfg(test)]
mod tests;
