//! The gateway's safety invariants as property tests: the fuzz targets'
//! twins on stable (see `docs/fuzzing.md`), bounded to a few seconds each in
//! a debug build so they run with every `cargo test`.
//!
//! - The loader and the converter never panic, whatever the text.
//! - The checker never panics, whatever schema the converter produces and
//!   whatever the arguments.
//! - A built request passes the oracle's request invariants: the base URL's
//!   scheme, host, port, user info and path kept, no fragment, its query
//!   first, the plan's method, the gateway's own headers, no denied header
//!   from an argument, no CR, LF or NUL in a header, the credential once,
//!   in its place.
//! - No writing of the credential the masker claims to mask (the oracle
//!   lists them) survives masking, whole or in part at a cut, the 1 MB cut
//!   of an answer included.
//!
//! The invariants are the oracle's (`oracle/`, shared with the fuzz
//! targets), written from the spec without the gateway's code; this file
//! generates the inputs, and `support/oracle.rs` (shared with the fuzz
//! targets too) turns the gateway's types into the oracle's plain data.

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::{json, Map, Value};

use hosted_mcp_gateway::answer::{self, Masker};
use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::convert::{
    self, BodyPlan, CallPlan, CredentialPlacement, Hints, Location, ParameterPlan, Tool,
};
use hosted_mcp_gateway::deliver::Delivered;
use hosted_mcp_gateway::errors::{AgentMessage, BODY_LIMIT, ERROR_BODY_LIMIT};
use hosted_mcp_gateway::load;
use hosted_mcp_gateway::request::{self, Destination};
use hosted_mcp_oracle::{self as oracle, Writing, MASK};

// The adapter from the gateway's types to the oracle's, shared with the
// fuzz targets (the file says why it is included rather than a crate).
#[path = "support/oracle.rs"]
mod adapter;
use adapter::{assert_credential_settled, assert_request_safe};

/// No regression files, no forking: a failure prints its minimal case.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ------------------------------------------------------------------ values

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(oracle::TRICKY_TEXTS).prop_map(str::to_owned),
        2 => any::<String>().prop_map(|text| text.chars().take(12).collect()),
        1 => (proptest::sample::select(oracle::TRICKY_TEXTS), proptest::sample::select(oracle::TRICKY_TEXTS))
            .prop_map(|(a, b)| format!("{a}{b}")),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-2i64..4).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        proptest::sample::select(&[0.5, 1.0, 2.0, -0.0, 0.1, 1e300, 1.5e-7][..])
            .prop_map(|n| json!(n)),
    ]
}

/// Any JSON value; object keys mostly from `keys`.
fn value(keys: Vec<String>) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    let keys = if keys.is_empty() {
        vec!["a".to_owned()]
    } else {
        keys
    };
    leaf.prop_recursive(3, 24, 4, move |inner| {
        let key = prop_oneof![4 => proptest::sample::select(keys.clone()), 1 => text()];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn arguments(keys: Vec<String>) -> impl Strategy<Value = Map<String, Value>> {
    let key = prop_oneof![5 => proptest::sample::select(keys.clone()), 1 => text()];
    proptest::collection::vec((key, value(keys)), 0..6)
        .prop_map(|members| members.into_iter().collect())
}

// ------------------------------------------------------------------ the loader

/// The pet store, and a document with one of everything the loader reads.
const PETSTORE: &str = include_str!("../../fixtures/petstore.yaml");

/// Tokens an edit may insert into a document.
const TOKENS: &[&str] = &[
    "$ref: '#/components/schemas/NewPet'",
    "$ref: '#/components/schemas/Missing'",
    "$ref: '#'",
    "{$ref: '#/paths'}",
    "  - ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    "\n",
    "\n  ",
    "&a ",
    "*a",
    "!!binary ",
    "? ",
    "~",
    "null",
    "swagger: '2.0'",
    "openapi: 3.1.0",
    "in: header",
    "in: body",
    "type: [string, null]",
    "nullable: true",
    "style: deepObject",
    "\u{feff}",
];

/// The pet store with a few edits: ranges deleted, tokens inserted.
fn edited_document() -> impl Strategy<Value = String> {
    let edit = (
        any::<prop::sample::Index>(),
        0usize..40,
        proptest::sample::select(TOKENS),
    );
    proptest::collection::vec(edit, 1..6).prop_map(|edits| {
        let mut text = PETSTORE.to_owned();
        for (at, delete, token) in edits {
            let mut start = at.index(text.len() + 1);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + delete).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.replace_range(start..end, token);
        }
        text
    })
}

/// Load, convert, and use what converted: never a panic.
fn load_and_use(text: &str) {
    let Ok(document) = load::load_str(text, "property") else {
        return;
    };
    let Ok(catalogue) = convert::convert(&document) else {
        return;
    };
    let placement = catalogue.default_credential.as_ref();
    let destination = Destination::new("https://api.example.com/v1", Some("sk-live"), placement);
    for tool in &catalogue.tools {
        let validator = Validator::compile(&tool.input_schema);
        let _ = validator.validate(&json!({}));
        if let Ok(destination) = &destination {
            let _ = request::build(tool, &Map::new(), destination);
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn the_loader_takes_any_text(text in any::<String>()) {
        load_and_use(&text);
        load_and_use(&format!("{{{text}"));
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn the_loader_takes_any_edit_of_a_document(text in edited_document()) {
        load_and_use(&text);
    }
}

// ------------------------------------------------------------------ the checker

const NAMES: &[&str] = &["id", "name", "tags", "body", "q", "a", ""];
const TYPES: &[&str] = &[
    "string", "integer", "number", "boolean", "array", "object", "null", "file",
];

fn names() -> Vec<String> {
    NAMES.iter().map(|name| (*name).to_owned()).collect()
}

/// Schemas as a document could hold them: mostly keywords the checker
/// knows, with values of the right kind or not.
fn schema() -> impl Strategy<Value = Value> {
    let keyword = prop_oneof![
        proptest::sample::select(TYPES).prop_map(|t| ("type", json!(t))),
        proptest::collection::vec(proptest::sample::select(TYPES), 1..3)
            .prop_map(|types| ("type", json!(types))),
        proptest::collection::vec(proptest::sample::select(NAMES), 0..3)
            .prop_map(|names| ("required", json!(names))),
        proptest::collection::vec(value(names()), 0..4).prop_map(|m| ("enum", Value::Array(m))),
        value(names()).prop_map(|v| ("const", v)),
        (
            proptest::sample::select(
                &[
                    "minimum",
                    "maximum",
                    "exclusiveMinimum",
                    "exclusiveMaximum",
                    "minLength",
                    "maxLength",
                    "minItems",
                    "maxItems",
                    "multipleOf",
                ][..]
            ),
            prop_oneof![number(), any::<bool>().prop_map(Value::Bool)]
        ),
        proptest::sample::select(&["date", "date-time", "email", "uuid", "uri", ""][..])
            .prop_map(|f| ("format", json!(f))),
        any::<bool>().prop_map(|b| ("nullable", json!(b))),
        proptest::sample::select(
            &[
                "#/components/schemas/A",
                "#/components/schemas/B",
                "#/components/schemas/Missing",
                "#/$defs/A",
                "#",
                "other.yaml#/A",
            ][..]
        )
        .prop_map(|r| ("$ref", json!(r))),
        (
            proptest::sample::select(&["type", "properties", "items", "required", "enum"][..]),
            value(names())
        ),
    ];
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Value::Bool),
        6 => proptest::collection::vec(keyword, 0..4)
            .prop_map(|members| Value::Object(members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
    ];
    leaf.prop_recursive(3, 32, 4, |inner| {
        let nested = prop_oneof![
            proptest::collection::vec((proptest::sample::select(NAMES), inner.clone()), 0..3)
                .prop_map(|properties| {
                    let properties: Map<String, Value> = properties
                        .into_iter()
                        .map(|(name, schema)| (name.to_owned(), schema))
                        .collect();
                    ("properties", Value::Object(properties))
                }),
            inner.clone().prop_map(|schema| ("items", schema)),
            inner
                .clone()
                .prop_map(|schema| ("additionalProperties", schema)),
            inner.clone().prop_map(|schema| ("not", schema)),
            (
                proptest::sample::select(&["allOf", "anyOf", "oneOf", "prefixItems"][..]),
                proptest::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(key, all)| (key, Value::Array(all))),
            inner.prop_map(|schema| ("$defs", json!({ "A": schema }))),
        ];
        (proptest::collection::vec(nested, 1..3), any::<bool>()).prop_map(|(members, typed)| {
            let mut object: Map<String, Value> = members
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
            if typed {
                object.insert("type".to_owned(), json!("object"));
            }
            Value::Object(object)
        })
    })
}

/// An OpenAPI document whose schemas are generated, in one of three versions.
fn document() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(&["3.0.3", "3.1.0"][..]),
        schema(),
        schema(),
        schema(),
        schema(),
        proptest::sample::select(&["query", "header", "path"][..]),
    )
        .prop_map(|(version, a, b, parameter, body, place)| {
            let path = if place == "path" { "/things/{id}" } else { "/things" };
            json!({
                "openapi": version,
                "info": { "title": "property", "version": "1" },
                "paths": { path: { "post": {
                    "parameters": [{ "name": "id", "in": place, "required": true, "schema": parameter }],
                    "requestBody": { "content": { "application/json": { "schema": body } } },
                    "responses": { "200": { "description": "ok" } },
                } } },
                "components": { "schemas": { "A": a, "B": b } },
            })
            .to_string()
        })
}

/// Compile and check: never a panic; a refusal names at least one place,
/// each a JSON Pointer.
fn check_all(input_schema: &Map<String, Value>, calls: &[Value]) {
    let validator = Validator::compile(input_schema);
    for arguments in calls {
        if let Err(violations) = validator.validate(arguments) {
            assert!(!violations.is_empty());
            for violation in violations {
                assert!(
                    violation.pointer.is_empty() || violation.pointer.starts_with('/'),
                    "{}",
                    violation.pointer
                );
                let _ = violation.to_string();
            }
        }
    }
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn the_checker_takes_any_schema_and_arguments(
        schema in schema(),
        calls in proptest::collection::vec(value(names()), 1..4),
    ) {
        let Value::Object(schema) = schema else { return Ok(()) };
        check_all(&schema, &calls);
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_checker_takes_any_converted_schema(
        text in document(),
        calls in proptest::collection::vec(arguments(names()).prop_map(Value::Object), 1..4),
    ) {
        let Ok(document) = load::load_str(&text, "property") else { return Ok(()) };
        let Ok(catalogue) = convert::convert(&document) else { return Ok(()) };
        for tool in &catalogue.tools {
            check_all(&tool.input_schema, &calls);
        }
    }
}

// ------------------------------------------------------------------ the request

/// Parameters in every place and style, dot segments around path
/// arguments, parameters named after the credential's places, and headers
/// conversion must leave out.
const REQUEST_FIXTURE: &str = r#"
openapi: 3.1.0
info: {title: Requests, version: "1"}
paths:
  /items/{id}/sub.{fmt}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {}}
        - {name: fmt, in: path, required: true, schema: {}}
        - {name: q, in: query, schema: {}}
        - {name: tags, in: query, schema: {type: array}}
        - {name: pipes, in: query, style: pipeDelimited, explode: false, schema: {type: array}}
        - {name: filter, in: query, style: deepObject, explode: true, schema: {type: object}}
        - {name: flat, in: query, schema: {type: object}}
        - {name: api_key, in: query, schema: {}}
        - {name: X-Trace, in: header, schema: {}}
        - {name: X-Pet-Key, in: header, schema: {}}
        - {name: X-Obj, in: header, explode: true, schema: {type: object}}
        - {name: Authorization, in: header, schema: {}}
        - {name: X-Agentify-Operation, in: header, schema: {}}
        - {name: Mcp-Session-Id, in: header, schema: {}}
      responses: {"200": {description: ok}}
  /.{x}/{y}:
    put:
      operationId: rootDot
      parameters:
        - {name: x, in: path, required: true, schema: {}}
        - {name: y, in: path, required: true, explode: true, schema: {}}
        - {name: Content-Type, in: header, schema: {}}
      requestBody:
        content:
          application/json: {schema: {}}
      responses: {"200": {description: ok}}
"#;

struct Fixture {
    tools: Vec<(Tool, Validator)>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut tools = Vec::new();
        for text in [REQUEST_FIXTURE, PETSTORE] {
            let document = load::load_str(text, "fixture").expect("the fixture loads");
            let catalogue = convert::convert(&document).expect("the fixture converts");
            for tool in catalogue.tools {
                let validator = Validator::compile(&tool.input_schema);
                tools.push((tool, validator));
            }
        }
        Fixture { tools }
    })
}

fn argument_names(tool: &Tool) -> Vec<String> {
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// The arguments made to pass the tool's check, as an agent would after a
/// refusal: each argument the check names is dropped and each required one
/// missing is given a plain value. `None` if they still do not pass.
fn checked(
    tool: &Tool,
    validator: &Validator,
    mut arguments: Map<String, Value>,
) -> Option<Map<String, Value>> {
    for _ in 0..3 {
        let Err(violations) = validator.validate(&Value::Object(arguments.clone())) else {
            return Some(arguments);
        };
        for violation in violations {
            let name = violation.pointer.split('/').nth(1).unwrap_or_default();
            arguments.remove(&name.replace("~1", "/").replace("~0", "~"));
        }
        let required = tool.input_schema.get("required").and_then(Value::as_array);
        for name in required.into_iter().flatten().filter_map(Value::as_str) {
            if !arguments.contains_key(name) {
                arguments.insert(name.to_owned(), json!("x"));
            }
        }
    }
    validator
        .validate(&Value::Object(arguments.clone()))
        .is_ok()
        .then_some(arguments)
}

const BASES: &[&str] = &[
    "https://api.example.com/v1",
    "https://api.example.com/v1/",
    "http://127.0.0.1:8080",
    "http://[::1]:9/a/b/c",
    "https://api.example.com/base%2Fpath/x?fixed=1",
];

fn placement() -> impl Strategy<Value = Option<CredentialPlacement>> {
    prop_oneof![
        Just(None),
        Just(Some(CredentialPlacement::Bearer)),
        Just(Some(CredentialPlacement::Basic)),
        Just(Some(CredentialPlacement::Header("X-Pet-Key".to_owned()))),
        Just(Some(CredentialPlacement::Header("X-Trace".to_owned()))),
        Just(Some(CredentialPlacement::Query("api_key".to_owned()))),
        Just(Some(CredentialPlacement::Query("q".to_owned()))),
    ]
}

/// A tool of the fixture and arguments that meet its argument names.
fn call() -> impl Strategy<Value = (usize, Map<String, Value>)> {
    (0..fixture().tools.len()).prop_flat_map(|index| {
        let names = argument_names(&fixture().tools[index].0);
        (Just(index), with_path_values(arguments(names)))
    })
}

/// Path values, mostly ones that meet dot segments, for the path arguments
/// of both fixtures and of hand-made plans.
const PATH_ARGUMENTS: &[&str] = &["id", "fmt", "x", "y", "petId", "a", "b"];

fn path_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => proptest::sample::select(&[".", "..", "%2e", ".%2e", "a", "a/..", ""][..])
            .prop_map(|text| json!(text)),
        1 => value(vec!["a".to_owned()]),
    ]
}

/// `arguments`, then a value for every path argument name, most of the time,
/// so that most calls get past the path to the rest of the request.
fn with_path_values(
    arguments: impl Strategy<Value = Map<String, Value>>,
) -> impl Strategy<Value = Map<String, Value>> {
    (
        arguments,
        proptest::collection::vec(
            proptest::option::weighted(0.9, path_value()),
            PATH_ARGUMENTS.len(),
        ),
    )
        .prop_map(|(mut arguments, values)| {
            for (name, value) in PATH_ARGUMENTS.iter().zip(values) {
                if let Some(value) = value {
                    arguments.insert((*name).to_owned(), value);
                }
            }
            arguments
        })
}

proptest! {
    #![proptest_config(config(1024))]

    /// The gateway's own flow: only checked arguments reach the builder.
    #[test]
    fn a_checked_call_builds_a_safe_request(
        base in proptest::sample::select(BASES),
        credential in proptest::sample::select(oracle::CREDENTIALS),
        placement in placement(),
        (index, arguments) in call(),
    ) {
        let (tool, validator) = &fixture().tools[index];
        let arguments = checked(tool, validator, arguments);
        prop_assume!(arguments.is_some());
        let arguments = arguments.unwrap();
        let destination = Destination::new(base, Some(credential), placement.as_ref()).unwrap();
        assert_credential_settled(&destination, credential, placement.as_ref());
        if let Ok(request) = request::build(tool, &arguments, &destination) {
            assert_request_safe(&request, tool, base, &destination, credential, placement.as_ref());
        }
    }

    /// The builder is the last line: unchecked arguments are no less safe.
    #[test]
    fn any_call_builds_a_safe_request(
        base in proptest::sample::select(BASES),
        credential in proptest::sample::select(oracle::CREDENTIALS),
        placement in placement(),
        (index, arguments) in call(),
    ) {
        let (tool, _) = &fixture().tools[index];
        let destination = Destination::new(base, Some(credential), placement.as_ref()).unwrap();
        assert_credential_settled(&destination, credential, placement.as_ref());
        if let Ok(request) = request::build(tool, &arguments, &destination) {
            assert_request_safe(&request, tool, base, &destination, credential, placement.as_ref());
        }
    }
}

/// Header names a plan could hold if conversion let one by: every denied
/// one in several spellings, and names a header cannot have.
const HEADER_NAMES: &[&str] = &[
    "X-Trace",
    "X-Pet-Key",
    "Authorization",
    "AUTHORIZATION",
    " Authorization",
    "Proxy-Authorization",
    "Cookie",
    "Host",
    "Content-Length",
    "Content-Type",
    "Accept",
    "User-Agent",
    "Transfer-Encoding",
    "X-Agentify-Operation",
    "x-agentify-other",
    "Mcp-Session-Id",
    "Payment-Signature",
    "X-Api-Key",
    "Traceparent",
    "X-Forwarded-For",
    "bad name",
];

/// A plan made by hand: any header, place and style, paths that meet dot
/// segments, with or without a body.
fn hand_made_tool() -> impl Strategy<Value = Tool> {
    let parameter = (
        prop_oneof![
            proptest::sample::select(HEADER_NAMES).prop_map(|n| (n.to_owned(), Location::Header)),
            proptest::sample::select(&["a", "b"][..]).prop_map(|n| (n.to_owned(), Location::Path)),
            prop_oneof![
                proptest::sample::select(&["api_key", "q", "a"][..]).prop_map(str::to_owned),
                text()
            ]
            .prop_map(|n| (n, Location::Query)),
        ],
        proptest::sample::select(
            &[
                None,
                Some("form"),
                Some("deepObject"),
                Some("pipeDelimited"),
            ][..],
        ),
        any::<bool>(),
    )
        .prop_map(|((name, location), style, explode)| ParameterPlan {
            argument: name.clone(),
            name,
            location,
            style: style.map(str::to_owned),
            explode,
            required: false,
        });
    (
        proptest::collection::vec(parameter, 0..5),
        proptest::sample::select(
            &[
                "/things/{a}",
                "/{a}",
                "/.{a}",
                "/x/../{a}/{b}",
                "/x/%2e%2e/{a}",
                "/../{a}",
                "/%2E%2e/{a}",
                "/{a}/../..",
                "{a}",
                "//{a}",
            ][..],
        ),
        any::<bool>(),
    )
        .prop_map(|(parameters, path, body)| Tool {
            name: "doThing".to_owned(),
            title: None,
            description: None,
            hints: Hints {
                read_only: false,
                destructive: false,
                idempotent: false,
            },
            input_schema: Map::new(),
            plan: CallPlan {
                method: "POST".to_owned(),
                path: path.to_owned(),
                parameters,
                body: body.then(|| BodyPlan {
                    content_type: "application/json".to_owned(),
                    required: false,
                }),
            },
        })
}

fn hand_made_call() -> impl Strategy<Value = (Tool, Map<String, Value>)> {
    hand_made_tool().prop_flat_map(|tool| {
        let mut names: Vec<String> = tool
            .plan
            .parameters
            .iter()
            .map(|p| p.argument.clone())
            .collect();
        names.push("body".to_owned());
        (Just(tool), with_path_values(arguments(names)))
    })
}

proptest! {
    #![proptest_config(config(1024))]

    /// Plans conversion would never make: the builder still refuses every
    /// denied header and keeps the base and the credential.
    #[test]
    fn a_hand_made_plan_builds_a_safe_request(
        base in proptest::sample::select(BASES),
        credential in proptest::sample::select(oracle::CREDENTIALS),
        placement in placement(),
        (tool, arguments) in hand_made_call(),
    ) {
        let destination = Destination::new(base, Some(credential), placement.as_ref()).unwrap();
        assert_credential_settled(&destination, credential, placement.as_ref());
        if let Ok(request) = request::build(&tool, &arguments, &destination) {
            assert_request_safe(&request, &tool, base, &destination, credential, placement.as_ref());
        }
    }
}

// ------------------------------------------------------------------ masking

/// A credential with the characters that have writings of their own: `/`,
/// `+`, `=`, `:`, quotes, backslashes, `%`, spaces, controls, two- and
/// three-byte characters and one beyond the first plane; never U+FFFD,
/// which any stray byte becomes on the way to text.
fn credential() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9/+=:\"\\\\ %é☃😀\n\t-]{1,10}"
}

/// Every writing the oracle lists for `credential`, and one more of each
/// of its secrets mixed the ways `mix` picks, in turn.
fn writings_of(credential: &str, basic: bool, mix: &[usize]) -> Vec<Writing> {
    let mut picks = mix.iter().cycle();
    oracle::writings_and_mixes(credential, basic, &mut |below| {
        picks.next().map_or(0, |pick| pick % below)
    })
}

/// A body of pieces: bytes, writings whole, their starts and ends, the mask.
fn body(writings: Vec<String>) -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..8),
        proptest::collection::vec(proptest::sample::select(&b"a\"/%=+\\:u\xc3\xa9"[..]), 0..6),
        (
            proptest::sample::select(writings),
            any::<prop::sample::Index>(),
            any::<u8>()
        )
            .prop_map(|(writing, at, kind)| {
                let bytes = writing.into_bytes();
                let at = at.index(bytes.len() + 1);
                match kind % 4 {
                    0 | 1 => bytes,
                    2 => bytes[..at].to_vec(),
                    _ => bytes[at..].to_vec(),
                }
            }),
        Just(MASK.as_bytes().to_vec()),
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

/// A credential (after `prefix`), whether it is for basic authentication,
/// its writings, a body of pieces holding them, and an index to place or
/// cut by.
fn placed_credential(
    prefix: &'static str,
) -> impl Strategy<Value = (String, bool, Vec<Writing>, Vec<u8>, prop::sample::Index)> {
    (
        credential(),
        any::<bool>(),
        proptest::collection::vec(any::<usize>(), 32),
    )
        .prop_flat_map(move |(credential, basic, mix)| {
            // The prefix starts the part of a basic credential that is
            // secret on its own too (the password, "I" say, would otherwise
            // be found in the gateway's own words).
            let credential = match credential.split_once(':') {
                Some((user, password)) => format!("{prefix}{user}:{prefix}{password}"),
                None => format!("{prefix}{credential}"),
            };
            let writings = writings_of(&credential, basic, &mix);
            let texts = writings
                .iter()
                .map(|writing| writing.text.clone())
                .collect();
            (
                Just(credential),
                Just(basic),
                Just(writings),
                body(texts),
                any::<prop::sample::Index>(),
            )
        })
}

fn masker(credential: &str, basic: bool) -> Masker {
    let placement = basic.then_some(CredentialPlacement::Basic);
    Masker::new(Some(credential), placement.as_ref())
}

proptest! {
    #![proptest_config(config(4096))]

    #[test]
    fn no_writing_survives_masking(
        (credential, basic, writings, body, cut) in placed_credential(""),
    ) {
        let masker = masker(&credential, basic);
        oracle::assert_masked(masker.mask(&String::from_utf8_lossy(&body)).as_bytes(), &writings);
        let cut = cut.index(body.len() + 1);
        let kept = masker.mask_until(&body, cut);
        oracle::assert_masked(&kept, &writings);
        oracle::assert_nothing_partial(&kept, &body, cut, &writings);
    }
}

proptest! {
    // Each case masks and copies about 1 MB.
    #![proptest_config(config(48))]

    /// Answers with the credential's writings across the 1 MB cut of a
    /// successful answer or the 1 KB cut of an error's: nothing whole
    /// survives, and nothing partial is left at the cut.
    #[test]
    fn no_writing_survives_an_answer_cut(
        // A snowman first: no message of the catalogue holds the credential.
        (credential, basic, writings, pieces, before) in placed_credential("☃"),
        which in any::<prop::sample::Index>(),
        error in any::<bool>(),
        content_type in proptest::sample::select(&["application/json", "text/plain", ""][..]),
        filler in proptest::sample::select(&[b'a', b' ', 0xE2, 0x80][..]),
    ) {
        let masker = masker(&credential, basic);
        let budget = answer::read_budget(&masker);
        oracle::assert_read_budget(budget, BODY_LIMIT, &writings);
        let limit = if error { ERROR_BODY_LIMIT } else { BODY_LIMIT };
        // One writing, then the pieces, placed so that the cut falls
        // anywhere in them: often inside the writing.
        let mut placed = writings[which.index(writings.len())].text.clone().into_bytes();
        placed.extend_from_slice(&pieces);
        let before = before.index(placed.len().min(limit) + 1);
        let mut body = vec![filler; limit - before];
        body.extend_from_slice(&placed);
        // What the upstream sent; the gateway reads up to its budget.
        let sent = body.clone();
        let complete = body.len() <= budget;
        body.truncate(budget);
        let mut headers = HeaderMap::new();
        if !content_type.is_empty() {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        }
        let status = if error { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK };
        let delivered = Delivered { status, headers, body, complete };
        let shown = answer::interpret(&delivered, &masker);
        oracle::assert_masked(shown.text.as_bytes(), &writings);
        let body = &delivered.body;
        if error {
            let cut = oracle::char_boundary_at_or_before(body, ERROR_BODY_LIMIT);
            oracle::assert_nothing_partial(shown.text.as_bytes(), &sent, cut, &writings);
        } else if let Some(kept) = shown
            .text
            .strip_suffix(&format!("\n\n{}", AgentMessage::BodyTruncated.render()))
        {
            let cut = oracle::char_boundary_at_or_before(body, BODY_LIMIT);
            oracle::assert_nothing_partial(kept.as_bytes(), &sent, cut, &writings);
        }
    }
}

// ------------------------------------------------------------------ the JSON-RPC reader

/// A JSON-RPC envelope from pieces: fields of every type under the names
/// the reader looks for, methods that are almost its own, and now and then
/// a batch or a duplicate key.
fn envelope() -> impl Strategy<Value = String> {
    let id = prop::sample::select(vec![
        "1",
        "-7",
        "1.5",
        "1e3",
        "18446744073709551615",
        r#""a""#,
        "null",
        "[]",
    ]);
    let method = prop::sample::select(vec![
        r#""tools/call""#,
        r#""tools/list""#,
        r#""tools\/call""#,
        r#""notifications/initialized""#,
        r#""ping""#,
        "7",
    ]);
    let scalar = prop_oneof![
        Just("null".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        text().prop_map(|text| Value::String(text).to_string()),
    ];
    let argument = prop_oneof![
        scalar.clone(),
        prop::collection::btree_map(text(), scalar.clone(), 0..3)
            .prop_map(|map| json!(map).to_string()),
    ];
    let param = prop_oneof![
        scalar.clone().prop_map(|name| format!(r#""name":{name}"#)),
        argument.prop_map(|arguments| format!(r#""arguments":{arguments}"#)),
        scalar.clone().prop_map(|version| format!(
            r#""_meta":{{"io.modelcontextprotocol/protocolVersion":{version},"io.modelcontextprotocol/clientCapabilities":{{}}}}"#
        )),
        scalar.clone().prop_map(|task| format!(r#""task":{task}"#)),
        // Malformed JSON where the envelope skips (found by the fuzz
        // target): never read as a call.
        Just(r#""x":"\udc00\n""#.to_owned()),
    ];
    let params = prop::collection::vec(param, 0..4)
        .prop_map(|fields| format!(r#""params":{{{}}}"#, fields.join(",")));
    let field = prop_oneof![
        Just(r#""jsonrpc":"2.0""#.to_owned()),
        Just(r#""jsonrpc":"1.0""#.to_owned()),
        id.prop_map(|id| format!(r#""id":{id}"#)),
        method.prop_map(|method| format!(r#""method":{method}"#)),
        params,
        Just(r#""x":"\ud800""#.to_owned()),
        Just(r#""x":[1e999]"#.to_owned()),
    ];
    (prop::collection::vec(field, 0..6), any::<bool>()).prop_map(|(fields, batch)| {
        let one = format!("{{{}}}", fields.join(","));
        if batch {
            format!("[{one}]")
        } else {
            one
        }
    })
}

/// What the reader takes as a call or a list is one, as a general JSON
/// parser reads the same bytes.
fn judge_reading(body: &[u8]) {
    use hosted_mcp_gateway::mcp::jsonrpc::{read, Posted};
    let (method, id, name, arguments) = match read(body) {
        Posted::Call {
            id,
            name,
            arguments,
            ..
        } => ("tools/call", id, Some(name), Some(arguments)),
        Posted::List { id, .. } => ("tools/list", id, None, None),
        Posted::Initialized | Posted::Other => return,
    };
    let value: Value = serde_json::from_slice(body).expect("a read request is JSON");
    assert_eq!(value["jsonrpc"], "2.0");
    assert_eq!(value["method"], method);
    let id = serde_json::to_value(id).expect("an id serializes");
    assert!(id.is_i64() || id.is_string(), "{id}");
    assert_eq!(value["id"], id);
    if let Some(name) = name {
        assert_eq!(value["params"]["name"], name.as_str());
    }
    if let Some(arguments) = arguments {
        let sent = &value["params"]["arguments"];
        match arguments {
            None => assert!(sent.is_null(), "{sent}"),
            Some(arguments) => assert_eq!(sent, &Value::Object(arguments)),
        }
    }
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_json_rpc_reader_takes_any_bytes(body in prop::collection::vec(any::<u8>(), 0..64)) {
        judge_reading(&body);
    }

    #[test]
    fn the_json_rpc_reader_reads_calls_as_a_json_parser_does(body in envelope()) {
        judge_reading(body.as_bytes());
    }
}
