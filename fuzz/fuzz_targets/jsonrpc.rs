//! The JSON-RPC reader of the HTTP call path (`mcp::jsonrpc::read`): any
//! bytes, and envelopes built from pieces that have tripped readers (ids
//! of every JSON type, methods that are almost ours, params with fields of
//! the wrong type, duplicate keys, batches, escapes, deep nesting).
//!
//! Never a panic; and what the reader takes as a `tools/call` or a
//! `tools/list` is one, as a general JSON parser reads the same bytes: a
//! single object of JSON-RPC 2.0, the method, an integer or string id,
//! the tool's name, and the arguments as they are (absent or null as none).

#![no_main]

use arbitrary::Unstructured;
use hosted_mcp_gateway::mcp::jsonrpc::{read, Posted};
use hosted_mcp_gateway_fuzz as gen;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let body = if u.arbitrary::<bool>().unwrap_or(false) {
        envelope(&mut u, 3).unwrap_or_default().into_bytes()
    } else {
        u.take_rest().to_vec()
    };
    judge(&body, read(&body));
});

/// The reader's word against a general parser's.
fn judge(body: &[u8], posted: Posted) {
    let (method, id, name, arguments) = match &posted {
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
            Some(arguments) => assert_eq!(sent, &Value::Object(arguments.clone())),
        }
    }
}

/// An envelope, inside at most `depth` batches. The depth is bounded:
/// once the input is used up, `int_in_range` answers the range's start,
/// which would choose a batch for ever.
fn envelope(u: &mut Unstructured, depth: u32) -> arbitrary::Result<String> {
    if depth > 0 && u.int_in_range(0..=9)? == 0 {
        let one = envelope(u, depth - 1)?;
        return Ok(format!("[{one}]"));
    }
    let mut fields = Vec::new();
    for _ in 0..u.int_in_range(0..=6)? {
        let field = match u.int_in_range(0..=4)? {
            0 => format!(r#""jsonrpc":{}"#, u.choose(&[r#""2.0""#, r#""1.0""#, "2", "null"])?),
            1 => format!(r#""id":{}"#, u.choose(&ID)?),
            2 => format!(r#""method":{}"#, u.choose(&METHOD)?),
            3 => format!(r#""params":{}"#, params(u)?),
            _ => format!(r#""{}":{}"#, gen::text(u)?.replace(['"', '\\'], ""), value(u, 2)?),
        };
        fields.push(field);
    }
    Ok(format!("{{{}}}", fields.join(",")))
}

const ID: [&str; 9] = [
    "1", "-7", "0", "1.5", "1e3", "18446744073709551615", r#""a""#, "null", "[]",
];
const METHOD: [&str; 7] = [
    r#""tools/call""#,
    r#""tools/list""#,
    r#""tools\/call""#,
    r#""notifications/initialized""#,
    r#""Tools/Call""#,
    r#""ping""#,
    "7",
];

fn params(u: &mut Unstructured) -> arbitrary::Result<String> {
    let mut fields = Vec::new();
    for _ in 0..u.int_in_range(0..=4)? {
        let field = match u.int_in_range(0..=5)? {
            0 => format!(r#""name":{}"#, value(u, 1)?),
            1 => format!(r#""arguments":{}"#, value(u, 3)?),
            2 => format!(
                r#""_meta":{{"io.modelcontextprotocol/protocolVersion":{},"io.modelcontextprotocol/clientCapabilities":{}}}"#,
                value(u, 1)?,
                value(u, 2)?
            ),
            3 => format!(r#""task":{}"#, value(u, 1)?),
            4 => format!(r#""cursor":{}"#, value(u, 1)?),
            _ => format!(r#""{}":{}"#, gen::text(u)?.replace(['"', '\\'], ""), value(u, 1)?),
        };
        fields.push(field);
    }
    if u.int_in_range(0..=9)? == 0 {
        return value(u, 2);
    }
    Ok(format!("{{{}}}", fields.join(",")))
}

/// A JSON value, or now and then bytes that are not one.
fn value(u: &mut Unstructured, depth: u32) -> arbitrary::Result<String> {
    Ok(match u.int_in_range(0..=7)? {
        0 => "null".to_owned(),
        1 => u.arbitrary::<bool>()?.to_string(),
        2 => u.arbitrary::<i64>()?.to_string(),
        3 => serde_json::to_string(&gen::text(u)?).unwrap_or_default(),
        4 if depth > 0 => format!("[{}]", value(u, depth - 1)?),
        5 if depth > 0 => format!(
            r#"{{{}:{}}}"#,
            serde_json::to_string(&gen::text(u)?).unwrap_or_default(),
            value(u, depth - 1)?
        ),
        6 => "\"\\ud800\"".to_owned(),
        _ => gen::text(u)?,
    })
}
