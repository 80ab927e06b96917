//! What the fuzz targets share: generators that turn fuzz bytes into
//! schemas, documents, arguments and credentials, and the invariants the
//! targets assert. See `docs/fuzzing.md`.
//!
//! The invariants are written here from the spec (`The request`, the
//! masking rules), not taken from the gateway: the list of denied headers
//! and the credential's forms are spelled out again, so a gateway that
//! drops one of them fails the check instead of agreeing with itself.

use arbitrary::{Result, Unstructured};
use base64::Engine as _;
use reqwest::header::HeaderMap;
use reqwest::Url;
use serde_json::{json, Map, Number, Value};

use hosted_mcp_gateway::answer::MASK;
use hosted_mcp_gateway::convert::{self, Catalogue, CredentialPlacement, Tool};
use hosted_mcp_gateway::load;
use hosted_mcp_gateway::request::{
    CredentialSlot, Destination, OutboundRequest, GATEWAY_ACCEPT, GATEWAY_USER_AGENT,
    OPERATION_HEADER,
};

// ---------------------------------------------------------------- values

/// Texts that have tripped gateways before: dot segments, encodings, control
/// characters, header names, dates, the credential's neighbours.
pub const STRINGS: &[&str] = &[
    "",
    ".",
    "..",
    "%2e",
    "%2E%2e",
    ".%2e",
    "../..",
    "a/b",
    "/",
    "//evil.example",
    "?x=1",
    "#frag",
    "a b",
    "\r\nX-Injected: 1",
    "\n",
    "\0",
    "\t",
    "\u{7f}",
    "é",
    "ключ",
    "\u{1F511}",
    "\u{FFFD}",
    "\\",
    "%",
    "%00",
    "%0d%0a",
    "+",
    "=",
    "&",
    ",",
    "|",
    "[",
    "]",
    "{id}",
    "Authorization",
    "api_key",
    "X-Pet-Key",
    "x-agentify-operation",
    "Bearer x",
    "2024-02-29",
    "2023-02-29",
    "2024-02-29T13:45:00Z",
    "23:59:60Z",
    "a@b.example",
    "@",
    "123e4567-e89b-12d3-a456-426614174000",
    "0",
    "-1",
    "1e400",
    "true",
    "null",
    "[credential]",
];

/// Property names the generated schemas and arguments share, so arguments
/// meet the properties they are checked against.
pub const NAMES: &[&str] = &[
    "id", "name", "tags", "body", "q", "limit", "a", "b", "nested", "", "é",
];

pub fn text(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 | 1 => (*u.choose(STRINGS)?).to_owned(),
        2 => {
            let length = u.int_in_range(0..=24)?;
            let bytes = u.bytes(length.min(u.len()))?;
            String::from_utf8_lossy(bytes).into_owned()
        }
        _ => format!("{}{}", u.choose(STRINGS)?, u.choose(STRINGS)?),
    })
}

pub fn number(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=6)? {
        0 => json!(u.int_in_range(-2i64..=3)?),
        1 => json!(u.arbitrary::<i64>()?),
        2 => json!(u.arbitrary::<u64>()?),
        3 => json!(*u.choose(&[0.5, 1.0, 2.0, -0.0, 0.1, 1e300, -1e-300, 1.5e-7, 1e19])?),
        4 => Number::from_f64(u.arbitrary::<f64>()?).map_or(json!(0), Value::Number),
        5 => json!(i64::MIN),
        _ => json!(u64::MAX),
    })
}

/// Any JSON value, at most `depth` levels deep; object keys mostly from `keys`.
pub fn value(u: &mut Unstructured, depth: u32, keys: &[&str]) -> Result<Value> {
    let last = if depth == 0 { 3 } else { 5 };
    Ok(match u.int_in_range(0..=last)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => number(u)?,
        3 => Value::String(text(u)?),
        4 => {
            let length = u.int_in_range(0..=4)?;
            let mut items = Vec::with_capacity(length);
            for _ in 0..length {
                items.push(value(u, depth - 1, keys)?);
            }
            Value::Array(items)
        }
        _ => Value::Object(object(u, depth - 1, keys)?),
    })
}

pub fn object(u: &mut Unstructured, depth: u32, keys: &[&str]) -> Result<Map<String, Value>> {
    let length = u.int_in_range(0..=5)?;
    let mut members = Map::new();
    for _ in 0..length {
        let key = if !keys.is_empty() && u.ratio(4, 5)? {
            (*u.choose(keys)?).to_owned()
        } else {
            text(u)?
        };
        members.insert(key, value(u, depth, keys)?);
    }
    Ok(members)
}

// ---------------------------------------------------------------- schemas

const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "null", "file", "",
];
const FORMATS: &[&str] = &[
    "date",
    "date-time",
    "email",
    "uuid",
    "uri",
    "int32",
    "byte",
    "binary",
    "",
];

/// References a schema can hold: to definitions that exist, that do not, to
/// the root, and malformed or external ones.
pub const REFS: &[&str] = &[
    "#/components/schemas/A",
    "#/components/schemas/B",
    "#/components/schemas/Missing",
    "#/components/schemas/A/properties/a",
    "#/$defs/A",
    "#",
    "#/",
    "#/components/schemas/A~1x",
    "#/components/schemas/%41",
    "other.yaml#/A",
    "http://example.com/s.json",
    "",
];

/// A schema as an OpenAPI document or the converter could hold it: mostly
/// keywords the checker knows, with values of the right kind or not.
pub fn schema(u: &mut Unstructured, depth: u32) -> Result<Value> {
    if u.ratio(1, 12)? {
        return Ok(Value::Bool(u.arbitrary()?));
    }
    let mut members = Map::new();
    let count = u.int_in_range(0..=5)?;
    for _ in 0..count {
        let (key, value) = keyword(u, depth)?;
        members.insert(key.to_owned(), value);
    }
    Ok(Value::Object(members))
}

fn schemas(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let length = u.int_in_range(0..=3)?;
    let mut items = Vec::with_capacity(length);
    for _ in 0..length {
        items.push(schema(u, depth)?);
    }
    Ok(Value::Array(items))
}

fn keyword(u: &mut Unstructured, depth: u32) -> Result<(&'static str, Value)> {
    // A keyword with a value of the wrong kind, now and then.
    if u.ratio(1, 16)? {
        let key = *u.choose(&[
            "type",
            "properties",
            "required",
            "items",
            "enum",
            "const",
            "minimum",
            "maxLength",
            "format",
            "$ref",
            "additionalProperties",
            "nullable",
            "allOf",
        ])?;
        return Ok((key, value(u, 1, NAMES)?));
    }
    let nested = depth > 0;
    let choice = u.int_in_range(0..=if nested { 27 } else { 17 })?;
    Ok(match choice {
        0 | 1 => ("type", {
            if u.ratio(1, 3)? {
                let length = u.int_in_range(1..=3)?;
                let mut types = Vec::new();
                for _ in 0..length {
                    types.push(json!(u.choose(TYPES)?));
                }
                Value::Array(types)
            } else {
                json!(u.choose(TYPES)?)
            }
        }),
        2 => ("required", {
            let length = u.int_in_range(0..=3)?;
            let mut names = Vec::new();
            for _ in 0..length {
                names.push(json!(u.choose(NAMES)?));
            }
            Value::Array(names)
        }),
        3 => ("enum", {
            let length = u.int_in_range(0..=4)?;
            let mut members = Vec::new();
            for _ in 0..length {
                members.push(value(u, 1, NAMES)?);
            }
            Value::Array(members)
        }),
        4 => ("const", value(u, 2, NAMES)?),
        5 => ("minimum", number(u)?),
        6 => ("maximum", number(u)?),
        7 => (
            *u.choose(&["exclusiveMinimum", "exclusiveMaximum"])?,
            if u.ratio(1, 2)? {
                Value::Bool(u.arbitrary()?)
            } else {
                number(u)?
            },
        ),
        8 => (
            *u.choose(&[
                "minLength",
                "maxLength",
                "minItems",
                "maxItems",
                "minProperties",
                "maxProperties",
            ])?,
            number(u)?,
        ),
        9 => ("format", json!(u.choose(FORMATS)?)),
        10 => ("nullable", Value::Bool(u.arbitrary()?)),
        11 => ("$ref", json!(u.choose(REFS)?)),
        12 => ("multipleOf", number(u)?),
        13 => (
            "pattern",
            json!(u.choose(&["^a", "[", "(a+)+$", "\\d", ""])?),
        ),
        14 => ("uniqueItems", Value::Bool(u.arbitrary()?)),
        15 => ("default", value(u, 1, NAMES)?),
        16 => ("example", value(u, 1, NAMES)?),
        17 => ("description", json!(text(u)?)),
        18 | 19 => ("properties", {
            let length = u.int_in_range(0..=3)?;
            let mut properties = Map::new();
            for _ in 0..length {
                properties.insert((*u.choose(NAMES)?).to_owned(), schema(u, depth - 1)?);
            }
            Value::Object(properties)
        }),
        20 => ("items", {
            if u.ratio(1, 4)? {
                schemas(u, depth - 1)?
            } else {
                schema(u, depth - 1)?
            }
        }),
        21 => ("prefixItems", schemas(u, depth - 1)?),
        22 => ("additionalProperties", schema(u, depth - 1)?),
        23 => (
            *u.choose(&["allOf", "anyOf", "oneOf"])?,
            schemas(u, depth - 1)?,
        ),
        24 => ("not", schema(u, depth - 1)?),
        25 => ("$defs", {
            let mut defs = Map::new();
            defs.insert("A".to_owned(), schema(u, depth - 1)?);
            Value::Object(defs)
        }),
        26 => (
            *u.choose(&["if", "then", "else", "contains", "propertyNames"])?,
            schema(u, depth - 1)?,
        ),
        _ => ("patternProperties", json!({ "^x": schema(u, depth - 1)? })),
    })
}

/// A small OpenAPI document (3.0, 3.1 or Swagger 2.0) whose schemas come
/// from `schema`: two named schemas and one operation with a parameter of
/// each kind and, but for Swagger, a body.
pub fn document(u: &mut Unstructured) -> Result<Value> {
    let version = *u.choose(&["3.0.3", "3.1.0", "2.0"])?;
    let mut named = Map::new();
    named.insert("A".to_owned(), schema(u, 3)?);
    named.insert("B".to_owned(), schema(u, 2)?);
    let mut parameters = Vec::new();
    let count = u.int_in_range(0..=3)?;
    for _ in 0..count {
        let location = *u.choose(&["query", "header", "path", "cookie"])?;
        let mut parameter = json!({
            "name": u.choose(NAMES)?,
            "in": location,
            "required": location == "path" || u.arbitrary::<bool>()?,
        });
        if version == "2.0" {
            parameter["type"] = json!(u.choose(TYPES)?);
        } else {
            parameter["schema"] = schema(u, 2)?;
        }
        parameters.push(parameter);
    }
    let path = if parameters.iter().any(|p| p["in"] == "path") {
        format!(
            "/things/{{{}}}",
            parameters
                .iter()
                .find(|p| p["in"] == "path")
                .map_or("id", |p| p["name"].as_str().unwrap_or("id"))
        )
    } else {
        "/things".to_owned()
    };
    let mut operation = json!({
        "operationId": "doThing",
        "parameters": parameters,
        "responses": { "200": { "description": "ok" } },
    });
    if version == "2.0" {
        return Ok(json!({
            "swagger": "2.0",
            "info": { "title": "fuzz", "version": "1" },
            "paths": { path: { "post": operation } },
            "definitions": named,
        }));
    }
    if u.arbitrary::<bool>()? {
        operation["requestBody"] = json!({
            "required": u.arbitrary::<bool>()?,
            "content": { "application/json": { "schema": schema(u, 3)? } },
        });
    }
    Ok(json!({
        "openapi": version,
        "info": { "title": "fuzz", "version": "1" },
        "paths": { path: { "post": operation } },
        "components": { "schemas": named },
    }))
}

/// The names of a tool's arguments, for arguments that meet them.
pub fn argument_names(tool: &Tool) -> Vec<String> {
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

// ---------------------------------------------------------------- the request

/// Parameters of every place and style, path templates with dot segments,
/// parameters named after the credential's places and headers that
/// conversion must drop.
pub const REQUEST_FIXTURE: &str = include_str!("request.yaml");

/// The pet store every test of this project knows.
pub const PETSTORE: &str = include_str!("../../fixtures/petstore.yaml");

/// The tools of a fixture.
pub fn catalogue(text: &str) -> Catalogue {
    let document = load::load_str(text, "fixture").expect("the fixture loads");
    convert::convert(&document).expect("the fixture converts")
}

/// Base URLs with and without a path, a port, a query and a trailing slash.
pub const BASES: &[&str] = &[
    "https://api.example.com/v1",
    "https://api.example.com/v1/",
    "http://127.0.0.1:8080",
    "http://[::1]:9/a/b/c",
    "https://api.example.com/base%2Fpath/x?fixed=1",
    "https://api.example.com:8443/",
];

/// Credentials an operator might store, and awkward ones.
pub const CREDENTIALS: &[&str] = &[
    "sk-live-7f3a",
    "s3cr3t/+=&token",
    "ada:lovelace",
    "sk/\"live\"+42",
    "a b",
    "x",
    "%41",
    "ключ",
];

pub fn placement(u: &mut Unstructured) -> Result<Option<CredentialPlacement>> {
    Ok(match u.int_in_range(0..=7)? {
        0 => None,
        1 => Some(CredentialPlacement::Bearer),
        2 => Some(CredentialPlacement::Basic),
        3 => Some(CredentialPlacement::Header("X-Pet-Key".to_owned())),
        4 => Some(CredentialPlacement::Header("X-Trace".to_owned())),
        5 => Some(CredentialPlacement::Query("api_key".to_owned())),
        6 => Some(CredentialPlacement::Query("limit".to_owned())),
        _ => Some(CredentialPlacement::Query(text(u)?)),
    })
}

/// The header names the spec says no argument may set, and its prefixes,
/// compared without regard to case (`The request`).
pub const SPEC_DENIED: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "host",
    "content-length",
    "content-type",
    "accept",
    "accept-encoding",
    "connection",
    "transfer-encoding",
    "x-api-key",
    "api-key",
    "x-forwarded-for",
    "forwarded",
    "x-request-id",
    "traceparent",
    "tracestate",
    "user-agent",
    "x-real-ip",
    "x-payment",
];
pub const SPEC_DENIED_PREFIXES: &[&str] = &["x-agentify-", "mcp-", "payment-"];

pub fn spec_denied(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SPEC_DENIED.contains(&name.as_str())
        || SPEC_DENIED_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

/// The credential as it must ride, worked out from the configuration alone.
pub enum Expected {
    Header { name: String, value: String },
    Query { name: String, value: String },
}

pub fn expected_credential(
    credential: &str,
    placement: Option<&CredentialPlacement>,
) -> Option<Expected> {
    if credential.is_empty() {
        return None;
    }
    Some(match placement.unwrap_or(&CredentialPlacement::Bearer) {
        CredentialPlacement::Bearer => Expected::Header {
            name: "authorization".to_owned(),
            value: format!("Bearer {credential}"),
        },
        CredentialPlacement::Basic => Expected::Header {
            name: "authorization".to_owned(),
            value: format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(basic_pair(credential))
            ),
        },
        CredentialPlacement::Header(name) => Expected::Header {
            name: name.to_ascii_lowercase(),
            value: credential.to_owned(),
        },
        CredentialPlacement::Query(name) => Expected::Query {
            name: name.clone(),
            value: credential.to_owned(),
        },
    })
}

/// Every safety invariant of one built request. `base` is the configured
/// base URL, `tool` the tool called.
pub fn assert_request_safe(
    request: &OutboundRequest,
    tool: &Tool,
    base: &str,
    destination: &Destination,
    credential: Option<&Expected>,
) {
    let base = Url::parse(base).expect("the base URL parses");
    let url = &request.url;
    // Scheme, host, port and base path never change.
    assert_eq!(url.scheme(), base.scheme(), "{url}");
    assert_eq!(url.host_str(), base.host_str(), "{url}");
    assert_eq!(
        url.port_or_known_default(),
        base.port_or_known_default(),
        "{url}"
    );
    assert_eq!(url.username(), base.username(), "{url}");
    assert_eq!(url.password(), base.password(), "{url}");
    assert!(url.fragment().is_none(), "{url}");
    let base_path = base.path().trim_end_matches('/');
    let path = url.path();
    assert!(
        path == base_path || path.starts_with(&format!("{base_path}/")),
        "{path} left the base path {base_path}"
    );
    // Nothing after the base path that a server would read as `.` or `..`.
    for segment in path[base_path.len()..].split('/') {
        let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
        assert!(decoded != "." && decoded != "..", "dot segment in {path}");
    }
    // The base URL's own query stays first.
    if let Some(base_query) = base.query().filter(|query| !query.is_empty()) {
        let query = url.query().unwrap_or_default();
        assert!(query.starts_with(base_query), "{query} lost {base_query}");
    }
    assert_eq!(request.method.as_str(), tool.plan.method, "method");

    assert_headers_safe(&request.headers, tool, request.body.is_some(), credential);

    match credential {
        Some(Expected::Query { name, value }) => {
            // The operator's own base query is theirs: counted from after it.
            let query = url.query().unwrap_or_default();
            let ours = match base.query().filter(|query| !query.is_empty()) {
                Some(base_query) => query[base_query.len()..].trim_start_matches('&'),
                None => query,
            };
            let pairs =
                Url::parse(&format!("http://query.invalid/?{ours}")).expect("a query parses");
            let values: Vec<String> = pairs
                .query_pairs()
                .filter(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
                .collect();
            assert_eq!(
                values.len(),
                1,
                "credential parameter `{name}` {} times",
                values.len()
            );
            assert_eq!(
                &values[0], value,
                "the credential parameter holds another value"
            );
        }
        Some(Expected::Header { .. }) => {}
        None => assert!(destination.credential().is_none()),
    }
    if let Some(body) = &request.body {
        assert!(
            serde_json::from_slice::<Value>(body).is_ok(),
            "the body is not JSON"
        );
        assert!(tool.plan.body.is_some(), "a body for a tool without one");
    }
}

/// No CR, LF or NUL in any header; no denied header but the gateway's own,
/// each once with the gateway's value; the credential's header once, with
/// the credential.
pub fn assert_headers_safe(
    headers: &HeaderMap,
    tool: &Tool,
    has_body: bool,
    credential: Option<&Expected>,
) {
    let credential_header = match credential {
        Some(Expected::Header { name, value }) => Some((name.as_str(), value.as_str())),
        _ => None,
    };
    for (name, value) in headers {
        for byte in name
            .as_str()
            .bytes()
            .chain(value.as_bytes().iter().copied())
        {
            assert!(
                !matches!(byte, b'\r' | b'\n' | b'\0'),
                "CR, LF or NUL in header {name}"
            );
        }
        let name = name.as_str();
        let ours = match name {
            "accept" => Some(GATEWAY_ACCEPT),
            "user-agent" => Some(GATEWAY_USER_AGENT),
            OPERATION_HEADER => Some(tool.name.as_str()),
            "content-type" if has_body => tool.plan.body.as_ref().map(|b| b.content_type.as_str()),
            _ => None,
        };
        let ours = match credential_header {
            Some((credential_name, credential_value)) if credential_name == name => {
                Some(credential_value)
            }
            _ => ours,
        };
        match ours {
            Some(expected) => {
                assert_eq!(
                    headers.get_all(name).iter().count(),
                    1,
                    "{name} more than once"
                );
                assert_eq!(
                    value.as_bytes(),
                    expected.as_bytes(),
                    "{name} holds another value"
                );
            }
            None => assert!(
                !spec_denied(name) && !convert::is_denied_header(name),
                "an argument set the denied header {name}"
            ),
        }
    }
    if let Some((name, _)) = credential_header {
        assert_eq!(
            headers.get_all(name).iter().count(),
            1,
            "credential header {name}"
        );
    }
}

/// Whether the destination settled the credential where `expected` says.
pub fn slot_matches(destination: &Destination, expected: Option<&Expected>) -> bool {
    match (destination.credential(), expected) {
        (None, None) => true,
        (Some(CredentialSlot::Header { name, .. }), Some(Expected::Header { name: want, .. })) => {
            name.as_str() == want
        }
        (Some(CredentialSlot::Query { name, .. }), Some(Expected::Query { name: want, .. })) => {
            name == want
        }
        _ => false,
    }
}

// ---------------------------------------------------------------- masking

/// The forms the masker says it masks (`Masker::new`): as sent,
/// percent-encoded (everything but RFC 3986 unreserved characters),
/// JSON-escaped and, for basic authentication, base64.
pub fn credential_forms(credential: &str, basic: bool) -> Vec<String> {
    let mut percent = String::new();
    for byte in credential.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            percent.push(char::from(byte));
        } else {
            percent.push_str(&format!("%{byte:02X}"));
        }
    }
    let json = serde_json::to_string(credential).expect("a string serializes");
    let json = json[1..json.len() - 1].to_owned();
    let mut forms = vec![credential.to_owned(), percent, json];
    if basic {
        forms.push(base64::engine::general_purpose::STANDARD.encode(basic_pair(credential)));
    }
    forms
}

/// No form whole in what the masker left: every piece of `masked` between
/// two masks is text the masker kept, and none may hold a form.
pub fn assert_no_form(masked: &[u8], forms: &[String]) {
    for piece in split_on_mask(masked) {
        for form in forms {
            assert!(
                find(piece, form.as_bytes()).is_none(),
                "form {form:?} survived in {:?}",
                String::from_utf8_lossy(masked)
            );
        }
    }
}

/// Nothing partial at the cut: when the text kept after the last mask ends
/// with the start of a form whose occurrence in `original` runs on past
/// `cut`, the masker showed part of the credential.
pub fn assert_nothing_partial(masked: &[u8], original: &[u8], cut: usize, forms: &[String]) {
    let pieces = split_on_mask(masked);
    let tail: &[u8] = pieces.last().copied().unwrap_or_default();
    for form in forms {
        let form = form.as_bytes();
        for kept in 1..form.len().min(tail.len() + 1) {
            let start = cut - kept.min(cut);
            if tail.ends_with(&form[..kept])
                && original
                    .get(start..)
                    .is_some_and(|rest| rest.starts_with(form))
            {
                panic!(
                    "{kept} bytes of {:?} left at the cut",
                    String::from_utf8_lossy(form)
                );
            }
        }
    }
}

fn split_on_mask(bytes: &[u8]) -> Vec<&[u8]> {
    let mask = MASK.as_bytes();
    let mut pieces = Vec::new();
    let mut rest = bytes;
    while let Some(at) = find(rest, mask) {
        pieces.push(&rest[..at]);
        rest = &rest[at + mask.len()..];
    }
    pieces.push(rest);
    pieces
}

pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Where the answer is cut on a character boundary, as `answer.rs` does it
/// (TC-ANS-004): the largest index at most `limit` that does not split a
/// UTF-8 sequence, looking back at most three bytes.
pub fn char_boundary_at_or_before(bytes: &[u8], limit: usize) -> usize {
    if bytes.len() <= limit {
        return bytes.len();
    }
    let continuation = |at: usize| bytes.get(at).is_some_and(|b| b & 0xC0 == 0x80);
    let mut cut = limit;
    while cut > 0 && limit - cut < 3 && continuation(cut) {
        cut -= 1;
    }
    if continuation(cut) {
        limit
    } else {
        cut
    }
}

/// A body made of pieces: raw bytes, the credential's forms whole, their
/// starts and ends, a form with one byte changed, the mask itself, and the
/// credential in a JSON string with every character escaped.
pub fn body_with_forms(
    u: &mut Unstructured,
    credential: &str,
    forms: &[String],
) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    let pieces = u.int_in_range(0..=8)?;
    for _ in 0..pieces {
        let form = u.choose(forms)?.as_bytes();
        match u.int_in_range(0..=7)? {
            0 | 1 => {
                let length = u.int_in_range(0..=16)?;
                body.extend_from_slice(u.bytes(length.min(u.len()))?);
            }
            2 | 3 => body.extend_from_slice(form),
            4 => {
                let kept = u.int_in_range(0..=form.len())?;
                if u.arbitrary()? {
                    body.extend_from_slice(&form[..kept]);
                } else {
                    body.extend_from_slice(&form[kept..]);
                }
            }
            5 => {
                let mut changed = form.to_vec();
                let at = u.choose_index(changed.len())?;
                changed[at] = u.arbitrary()?;
                body.extend_from_slice(&changed);
            }
            6 => body.extend_from_slice(MASK.as_bytes()),
            _ => {
                let escaped: String = credential
                    .encode_utf16()
                    .map(|unit| format!("\\u{unit:04x}"))
                    .collect();
                body.extend_from_slice(format!("{{\"echo\":\"{escaped}\"}}").as_bytes());
            }
        }
    }
    Ok(body)
}

/// The `user:password` a basic credential stands for (TC-REQ-014, ruling
/// of 2026-12-02): a credential without `:` is the user name with an empty
/// password. Written here, not taken from the gateway, so the oracle stays
/// its own.
fn basic_pair(credential: &str) -> String {
    if credential.contains(':') {
        credential.to_owned()
    } else {
        format!("{credential}:")
    }
}
