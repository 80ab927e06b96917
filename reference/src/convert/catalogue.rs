//! What conversion makes: the catalogue of tools, and the plan by which
//! each tool's arguments become the upstream request.

use serde_json::{Map, Value};

/// Everything the gateway serves, built once when the document is loaded.
#[derive(Debug, Clone)]
pub struct Catalogue {
    /// Tools in document order (paths as written, methods get, put, post, delete, options, head, patch, trace).
    pub tools: Vec<Tool>,
    /// Where the credential goes when the configuration does not say: taken from the document's security schemes.
    pub default_credential: Option<CredentialPlacement>,
    /// The security scheme `default_credential` was taken from.
    pub credential_scheme: Option<String>,
    /// Where the API's own OAuth 2 issues access tokens to a client with
    /// its id and secret (the client-credentials flow's `tokenUrl`).
    pub token_url: Option<String>,
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

/// As the operator writes it: `bearer`, `basic`, `header:NAME` or
/// `query:NAME`.
impl std::str::FromStr for CredentialPlacement {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let named = |name: &str| {
            if name.is_empty() {
                Err(format!("`{text}` needs a name after the colon"))
            } else {
                Ok(name.to_string())
            }
        };
        match text.split_once(':') {
            None if text.eq_ignore_ascii_case("bearer") => Ok(CredentialPlacement::Bearer),
            None if text.eq_ignore_ascii_case("basic") => Ok(CredentialPlacement::Basic),
            Some(("header", name)) => named(name).map(CredentialPlacement::Header),
            Some(("query", name)) => named(name).map(CredentialPlacement::Query),
            _ => Err(format!(
                "unknown placement `{text}`: use bearer, basic, header:NAME or query:NAME"
            )),
        }
    }
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
