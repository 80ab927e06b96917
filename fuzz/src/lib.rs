//! What the fuzz targets share: generators that turn fuzz bytes into
//! schemas, documents, arguments, credentials and bodies, and the adapter
//! that turns the gateway's types into the plain data the oracle judges
//! (`reference/tests/support/oracle.rs`, the property tests' too). See
//! `docs/fuzzing.md`.
//!
//! The invariants themselves are the oracle's (`oracle/`, shared with the
//! property tests): written from the spec, not taken from the gateway, so a
//! gateway that drops a denied header or a writing of the credential fails
//! the check instead of agreeing with itself.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Number, Value};

use hosted_mcp_gateway::convert::{self, Catalogue, CredentialPlacement, Tool};
use hosted_mcp_gateway::load;
pub use hosted_mcp_oracle as oracle;
use hosted_mcp_oracle::{Writing, MASK};

// The adapter from the gateway's types to the oracle's, shared with the
// property tests: one file in the gateway's test support, included here
// rather than made a crate (the file says why).
#[path = "../../reference/tests/support/oracle.rs"]
mod adapter;
pub use adapter::{assert_credential_settled, assert_request_safe};

// ---------------------------------------------------------------- values

/// Property names the generated schemas and arguments share, so arguments
/// meet the properties they are checked against.
pub const NAMES: &[&str] = &[
    "id", "name", "tags", "body", "q", "limit", "a", "b", "nested", "", "é",
];

pub fn text(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=3)? {
        0 | 1 => (*u.choose(oracle::TRICKY_TEXTS)?).to_owned(),
        2 => {
            let length = u.int_in_range(0..=24)?;
            let bytes = u.bytes(length.min(u.len()))?;
            String::from_utf8_lossy(bytes).into_owned()
        }
        _ => format!("{}{}", u.choose(oracle::TRICKY_TEXTS)?, u.choose(oracle::TRICKY_TEXTS)?),
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

// ---------------------------------------------------------------- masking

/// Every writing the oracle lists for `credential`, and one more of each
/// of its secrets mixed the ways the fuzzer picks.
pub fn writings(u: &mut Unstructured, credential: &str, basic: bool) -> Vec<Writing> {
    oracle::writings_and_mixes(credential, basic, &mut |below| {
        u.choose_index(below).unwrap_or(0)
    })
}

/// A body made of pieces: raw bytes, the credential's writings whole,
/// their starts and ends, a writing with one byte changed, the mask
/// itself, and a writing inside a JSON string.
pub fn body_with_writings(u: &mut Unstructured, writings: &[Writing]) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    let pieces = u.int_in_range(0..=8)?;
    for _ in 0..pieces {
        let writing = u.choose(writings)?.text.as_bytes();
        match u.int_in_range(0..=7)? {
            0 | 1 => {
                let length = u.int_in_range(0..=16)?;
                body.extend_from_slice(u.bytes(length.min(u.len()))?);
            }
            2 | 3 => body.extend_from_slice(writing),
            4 => {
                let kept = u.int_in_range(0..=writing.len())?;
                if u.arbitrary()? {
                    body.extend_from_slice(&writing[..kept]);
                } else {
                    body.extend_from_slice(&writing[kept..]);
                }
            }
            5 => {
                let mut changed = writing.to_vec();
                let at = u.choose_index(changed.len())?;
                changed[at] = u.arbitrary()?;
                body.extend_from_slice(&changed);
            }
            6 => body.extend_from_slice(MASK.as_bytes()),
            _ => {
                // A JSON answer: pretty-printed before it is masked.
                body.extend_from_slice(b"{\"echo\":\"");
                body.extend_from_slice(writing);
                body.extend_from_slice(b"\"}");
            }
        }
    }
    Ok(body)
}
