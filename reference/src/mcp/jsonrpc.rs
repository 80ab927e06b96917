//! The JSON-RPC envelope of a POSTed message, read once into a typed request
//! by its method, for the calls the HTTP endpoint answers itself
//! ([`super::lean`]).
//!
//! Only what the lean path answers is typed: `tools/call` and `tools/list`,
//! one request to a POST. Anything else (another method, a notification, a
//! batch, a field of the wrong type, a duplicate key) reads as
//! [`Posted::Other`] and goes to rmcp's transport, which answers it as it
//! always has. The reader never fails: it says "not mine" instead.

use std::borrow::Cow;
use std::fmt;

use rmcp::model::{ClientCapabilities, JsonObject, RequestId};
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// What a POSTed body asks of the endpoint.
#[derive(Debug, PartialEq)]
pub enum Posted {
    /// `tools/call`: the tool and its arguments (`None` when absent or null).
    Call {
        id: RequestId,
        name: String,
        arguments: Option<JsonObject>,
        meta: RequestMeta,
    },
    /// `tools/list`; a cursor is ignored, as every tool fits one page.
    List { id: RequestId, meta: RequestMeta },
    /// `notifications/initialized`, which makes a session ready for calls.
    Initialized,
    /// Anything else, for rmcp's transport.
    Other,
}

/// The request's own `_meta` fields that choose its protocol era.
#[derive(Debug, Default, PartialEq)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`, as sent.
    pub protocol_version: Option<String>,
    /// Whether `io.modelcontextprotocol/clientCapabilities` is present and
    /// reads as MCP's client capabilities.
    pub client_capabilities: bool,
}

/// Reads `body` once. Never fails: what is not a lean call is [`Posted::Other`].
pub fn read(body: &[u8]) -> Posted {
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(body) else {
        return Posted::Other;
    };
    // serde_json skips the fields the envelope ignores without reading them
    // whole (a lone surrogate escape, a number out of range), where rmcp's
    // parse refuses the body as malformed: what is read here must be JSON
    // to a general parser too. Found by the `jsonrpc` fuzz target; about
    // 1% of a call's instructions.
    if serde_json::from_slice::<Whole>(body).is_err() {
        return Posted::Other;
    }
    if envelope.jsonrpc != "2.0" {
        return Posted::Other;
    }
    let id = match envelope.id {
        Some(Value::String(id)) => Some(RequestId::String(id.into())),
        Some(Value::Number(number)) => match number.as_i64() {
            Some(id) => Some(RequestId::Number(id)),
            None => return Posted::Other,
        },
        Some(_) => return Posted::Other,
        None => None,
    };
    let params = envelope.params.unwrap_or_default();
    // Task-augmented calls and client-side input are rmcp's to refuse or serve.
    if params.task.is_some() || params.input_responses.is_some() || params.request_state.is_some() {
        return Posted::Other;
    }
    let meta = match params.meta {
        Some(meta) => RequestMeta {
            protocol_version: meta.protocol_version,
            client_capabilities: meta.client_capabilities.is_some(),
        },
        None => RequestMeta::default(),
    };
    match (envelope.method.as_ref(), id) {
        ("tools/call", Some(id)) => {
            let Some(name) = params.name else {
                return Posted::Other;
            };
            let arguments = match params.arguments {
                None | Some(Value::Null) => None,
                Some(Value::Object(arguments)) => Some(arguments),
                // Not an object: rmcp reads it as a custom request, which the
                // server answers as the tool's ARGUMENTS_INVALID.
                Some(_) => return Posted::Other,
            };
            Posted::Call {
                id,
                name,
                arguments,
                meta,
            }
        }
        ("tools/list", Some(id)) => Posted::List { id, meta },
        ("notifications/initialized", None) => Posted::Initialized,
        _ => Posted::Other,
    }
}

/// Any JSON value, read whole and kept nowhere. serde's `IgnoredAny` asks
/// serde_json to skip a value, which it does without checking it;
/// `deserialize_any` reads every string and number as a general parser does.
struct Whole;

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Whole, D::Error> {
        deserializer.deserialize_any(Whole)
    }
}

impl<'de> Visitor<'de> for Whole {
    type Value = Whole;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Whole, E> {
        Ok(Whole)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Whole, E> {
        Ok(Whole)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Whole, E> {
        Ok(Whole)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Whole, E> {
        Ok(Whole)
    }

    fn visit_str<E>(self, _: &str) -> Result<Whole, E> {
        Ok(Whole)
    }

    fn visit_unit<E>(self) -> Result<Whole, E> {
        Ok(Whole)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Whole, A::Error> {
        while items.next_element::<Whole>()?.is_some() {}
        Ok(Whole)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Whole, A::Error> {
        while entries.next_entry::<Whole, Whole>()?.is_some() {}
        Ok(Whole)
    }
}

/// One JSON-RPC message as the lean path reads it. A batch (an array) does
/// not deserialize into it, and neither does a duplicate key.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Option<Value>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: Option<Params>,
}

/// The params of either method: each takes the fields it knows.
#[derive(Deserialize, Default)]
struct Params {
    name: Option<String>,
    arguments: Option<Value>,
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
    task: Option<IgnoredAny>,
    #[serde(rename = "inputResponses")]
    input_responses: Option<IgnoredAny>,
    #[serde(rename = "requestState")]
    request_state: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<String>,
    /// Read with rmcp's own type, so that what rmcp would refuse as
    /// malformed is refused here too (it is then rmcp's to answer).
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    client_capabilities: Option<ClientCapabilities>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_read_with_its_name_arguments_and_era() {
        let body = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"getPet",
            "arguments":{"petId":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let Posted::Call {
            id,
            name,
            arguments,
            meta,
        } = read(body)
        else {
            panic!("not read as a call");
        };
        assert_eq!(id, RequestId::Number(7));
        assert_eq!(name, "getPet");
        assert_eq!(arguments.expect("arguments")["petId"], 1);
        assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(meta.client_capabilities);
    }

    #[test]
    fn the_method_may_come_after_the_params() {
        let body = br#"{"params":{},"id":"a","jsonrpc":"2.0","method":"tools/list"}"#;
        assert_eq!(
            read(body),
            Posted::List {
                id: RequestId::String("a".into()),
                meta: RequestMeta::default()
            }
        );
    }

    #[test]
    fn what_the_lean_path_does_not_answer_is_left_to_rmcp() {
        for body in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#[..],
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            br#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[]}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","task":{}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":
                {"io.modelcontextprotocol/clientCapabilities":{"roots":5}}}}"#,
            b"not json",
            b"",
            // Malformed JSON where the envelope skips: a lone surrogate, a
            // number out of range.
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","x":"\ud800"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\uDBFF\n"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","x":[1e999]}}"#,
        ] {
            assert_eq!(read(body), Posted::Other, "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn null_arguments_are_none_and_the_initialized_notification_is_known() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":null}}"#;
        assert!(matches!(
            read(body),
            Posted::Call {
                arguments: None,
                ..
            }
        ));
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(read(initialized), Posted::Initialized);
    }
}
