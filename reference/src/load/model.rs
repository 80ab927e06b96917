//! The model a document is reduced to: its operations, with their
//! parameters and request bodies, and its security schemes.

use serde_json::Value;

use super::place::DocPath;

/// The HTTP methods an OpenAPI path item can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
}

impl Method {
    /// TC-PROTO-006: the order in which the methods of one path become tools.
    pub const ALL: [Method; 8] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
    ];

    /// The method as a path item key: lower case.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
        }
    }

    /// The method as sent on the wire: upper case.
    pub fn as_upper(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
        }
    }
}

/// One operation with its path-level parameters already merged in.
#[derive(Debug, Clone)]
pub struct Operation {
    pub method: Method,
    /// The path as written, e.g. `/pets/{petId}`.
    pub path: String,
    /// Where the operation sits in the document, for messages.
    pub at: DocPath,
    pub operation_id: Option<String>,
    /// The `x-agentify` extension, as written.
    pub x_agentify: Option<Value>,
    /// The `x-mcp` extension, as written.
    pub x_mcp: Option<Value>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub deprecated: bool,
    /// The operation's `tags`, for an operator's selection of tools.
    pub tags: Vec<String>,
    /// Path-level parameters first, each replaced in place by an operation parameter
    /// with the same `name` and `in`; then the operation's other parameters.
    pub parameters: Vec<Parameter>,
    pub request_body: Option<RequestBody>,
}

/// One parameter, its `$ref` resolved.
#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: String,
    pub location: ParameterLocation,
    /// `required` as written; path parameters are made required later, by convert.
    pub required: bool,
    pub description: Option<String>,
    /// The `schema`, or the schema of the first media type under `content`; `$ref`s left in place.
    pub schema: Option<Value>,
    pub style: Option<String>,
    pub explode: Option<bool>,
    /// Where the parameter is defined, for messages.
    pub at: DocPath,
}

/// A parameter's `in`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParameterLocation {
    Path,
    Query,
    Header,
    Cookie,
}

impl ParameterLocation {
    /// The value of `in` as written in a document.
    pub fn as_str(self) -> &'static str {
        match self {
            ParameterLocation::Path => "path",
            ParameterLocation::Query => "query",
            ParameterLocation::Header => "header",
            ParameterLocation::Cookie => "cookie",
        }
    }

    pub(super) fn parse(text: &str) -> Option<Self> {
        match text {
            "path" => Some(ParameterLocation::Path),
            "query" => Some(ParameterLocation::Query),
            "header" => Some(ParameterLocation::Header),
            "cookie" => Some(ParameterLocation::Cookie),
            _ => None,
        }
    }
}

/// An operation's request body, its `$ref` resolved.
#[derive(Debug, Clone)]
pub struct RequestBody {
    pub required: bool,
    pub description: Option<String>,
    /// Media types in the order written.
    pub content: Vec<MediaType>,
    /// Where the request body is defined, for messages.
    pub at: DocPath,
}

/// One entry of a request body's `content`.
#[derive(Debug, Clone)]
pub struct MediaType {
    /// The media type as written, e.g. `application/json`.
    pub name: String,
    /// Its schema, `$ref`s left in place.
    pub schema: Option<Value>,
}

/// A security scheme, reduced to where it would put a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecurityScheme {
    /// `type: apiKey`: a named header, query parameter or cookie.
    ApiKey {
        name: String,
        location: String,
    },
    /// `type: http` with its `scheme` (`bearer`, `basic`, ...) as written.
    Http {
        scheme: String,
    },
    /// `type: oauth2`, with the token URL of its client-credentials flow
    /// when it has one.
    OAuth2 {
        client_credentials_token_url: Option<String>,
    },
    OpenIdConnect,
    /// `mutualTLS` or a type this model does not know.
    Other {
        kind: String,
    },
}
