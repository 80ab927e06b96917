//! The call path over Streamable HTTP: `tools/call` and `tools/list`
//! answered by the endpoint itself, without rmcp's server transport.
//!
//! rmcp's transport parses each message by trying every method name in
//! turn, spawns tasks for the session worker or the stateless serving loop,
//! and answers a session's request as an SSE stream. For the two requests
//! an agent makes all day the endpoint reads the envelope once
//! ([`super::jsonrpc`]), calls the gateway on the connection's own task and
//! writes the answer as one JSON body.
//!
//! A request is answered here only when rmcp would have answered it the
//! same way: every check rmcp's transport makes before it hands a request to
//! the server is made here too (`Host`, `Origin`, `Accept`, `Content-Type`,
//! the protocol version in the header and in `_meta`, the 2026-07-28
//! standard headers, the session), and a request that any of them would
//! refuse, or that is anything else, is passed to rmcp whole, so its errors
//! and everything else MCP stay rmcp's. `tests::answers_match_rmcp`
//! compares both byte for byte.

use std::collections::HashSet;

use bytes::Bytes;
use hyper::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use rmcp::model::{
    ErrorData, JsonObject, ProtocolVersion, RequestId, ServerJsonRpcMessage, ServerResult,
};

use super::jsonrpc::RequestMeta;
use super::sessions::{Seen, SessionTable};

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const MCP_METHOD: &str = "mcp-method";
const MCP_NAME: &str = "mcp-name";
const MCP_PARAM_PREFIX: &str = "mcp-param-";
/// The prefix of a Base64-wrapped standard header's value, which rmcp
/// decodes; such a request goes to rmcp.
const BASE64_VALUE: &str = "=?base64?";
/// The era without `initialize` and sessions.
const DISCOVER_ERA: &str = "2026-07-28";

/// How a request is answered, chosen from its headers and envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: the request carries its protocol version and the
    /// client's capabilities in `_meta`, and needs no session.
    Discover,
    /// The `initialize` era, in a ready session.
    Session,
    /// The `initialize` era with `--stateless`: no session to check.
    Stateless,
}

/// What the lean path checks a request against.
pub struct Gate {
    /// `Host` names accepted on any port, normalized as rmcp does.
    hosts: Vec<String>,
    /// `Some` when the `initialize` era has sessions.
    sessions: Option<SessionTable>,
    /// Tools whose input schema asks for `Mcp-Param-*` headers, which rmcp
    /// checks against the arguments.
    param_headers: HashSet<String>,
}

impl Gate {
    pub fn new(
        allowed_hosts: &[String],
        sessions: Option<SessionTable>,
        param_headers: HashSet<String>,
    ) -> Self {
        // Only names without a port: one with a port matches that port
        // alone, which rmcp's guard decides. What does not parse as an
        // authority (`::1`) is a name, as rmcp takes it.
        let hosts = allowed_hosts
            .iter()
            .map(|allowed| allowed.trim())
            .filter(|allowed| !allowed.is_empty())
            .filter_map(
                |allowed| match allowed.parse::<hyper::http::uri::Authority>() {
                    Ok(authority) if authority.port().is_none() => {
                        Some(normalized(authority.host()))
                    }
                    Ok(_) => None,
                    Err(_) => Some(normalized(allowed)),
                },
            )
            .collect();
        Self {
            hosts,
            sessions,
            param_headers,
        }
    }

    pub fn sessions(&self) -> Option<&SessionTable> {
        self.sessions.as_ref()
    }

    /// Whether a request may be for the lean path, from what rmcp checks
    /// before it reads the body: a POST for an accepted `Host`, from no
    /// browser page, that accepts both JSON and SSE and sends JSON.
    pub fn admits<B>(&self, request: &hyper::Request<B>) -> bool {
        let headers = request.headers();
        request.method() == hyper::Method::POST
            && self.host_accepted(headers)
            && !headers.contains_key(ORIGIN)
            && accepts_json_and_sse(headers)
            && sends_json(headers)
    }

    fn host_accepted(&self, headers: &HeaderMap) -> bool {
        let Some(host) = headers.get(HOST).and_then(|host| host.to_str().ok()) else {
            return false;
        };
        host.parse::<hyper::http::uri::Authority>()
            .is_ok_and(|authority| self.hosts.contains(&normalized(authority.host())))
    }

    /// The era a `method` request with `meta` is answered in, or `None`
    /// when rmcp must answer it. `name` is the tool a `tools/call` names.
    pub fn era(
        &self,
        headers: &HeaderMap,
        method: &str,
        name: Option<&str>,
        meta: &RequestMeta,
    ) -> Option<Era> {
        let header_version = match headers.get(PROTOCOL_VERSION) {
            Some(value) => Some(value.to_str().ok()?),
            None => None,
        };
        match meta.protocol_version.as_deref() {
            Some(version) => {
                let discover = version == DISCOVER_ERA
                    && meta.client_capabilities
                    && header_version == Some(version)
                    && self.standard_headers_match(headers, method, name);
                discover.then_some(Era::Discover)
            }
            None => {
                // Without `_meta`, a header of 2026-07-28 or later asks for
                // metadata rmcp would say is missing; an unknown one is refused.
                if let Some(version) = header_version {
                    let known = ProtocolVersion::KNOWN_VERSIONS
                        .iter()
                        .any(|known| known.as_str() == version);
                    if !known || version >= DISCOVER_ERA {
                        return None;
                    }
                }
                match &self.sessions {
                    None => Some(Era::Stateless),
                    Some(table) => {
                        let id = headers.get(SESSION_ID)?.to_str().ok()?;
                        (table.used(id) == Seen::Ready).then_some(Era::Session)
                    }
                }
            }
        }
    }

    /// The 2026-07-28 standard headers, which must name the method and the
    /// tool exactly as the body does (SEP-2243).
    fn standard_headers_match(
        &self,
        headers: &HeaderMap,
        method: &str,
        name: Option<&str>,
    ) -> bool {
        if single(headers, MCP_METHOD) != Some(method) {
            return false;
        }
        let Some(name) = name else {
            return true;
        };
        let named = single(headers, MCP_NAME)
            .is_some_and(|value| value == name && !value.starts_with(BASE64_VALUE));
        named
            && !self.param_headers.contains(name)
            && !headers
                .keys()
                .any(|header| header.as_str().starts_with(MCP_PARAM_PREFIX))
    }
}

/// The one value of a header, if it has exactly one and it is text.
fn single<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    values
        .next()
        .is_none()
        .then(|| value.to_str().ok())
        .flatten()
}

/// A host name as rmcp's guard compares it.
fn normalized(host: &str) -> String {
    host.trim_matches(['[', ']']).to_ascii_lowercase()
}

/// Whether `Accept` takes both JSON and SSE, as rmcp reads it: media
/// ranges given a weight of zero are refused. A header with quotes, which
/// rmcp splits with care, is left to rmcp.
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else {
            continue;
        };
        if value.contains('"') {
            return false;
        }
        for entry in value.split(',') {
            let mut parts = entry.split(';');
            let essence = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|parameter| {
                parameter.split_once('=').is_some_and(|(name, weight)| {
                    name.trim().eq_ignore_ascii_case("q") && weighs_nothing(weight.trim())
                })
            });
            if !refused {
                json |= essence.eq_ignore_ascii_case("application/json");
                sse |= essence.eq_ignore_ascii_case("text/event-stream");
            }
        }
    }
    json && sse
}

/// An HTTP weight of exactly zero (`0`, `0.`, `0.0`…); a malformed weight
/// is ignored, as rmcp ignores it.
fn weighs_nothing(weight: &str) -> bool {
    let (whole, fraction) = weight.split_once('.').unwrap_or((weight, ""));
    whole == "0" && fraction.len() <= 3 && fraction.bytes().all(|digit| digit == b'0')
}

fn sends_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// The answer to a lean request as rmcp's server writes it for the era.
pub fn message(
    era: Era,
    id: RequestId,
    result: Result<ServerResult, ErrorData>,
) -> ServerJsonRpcMessage {
    match result {
        Ok(mut result) => {
            // What rmcp's server handler does to every result by era.
            if era == Era::Discover {
                result.fill_missing_cache_hints();
            } else {
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
            }
            ServerJsonRpcMessage::response(result, id)
        }
        Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
    }
}

/// The response head of a lean answer: JSON, with the headers rmcp's SSE
/// response carried in a session (kept when `single_answer` made it JSON).
pub fn response<B>(era: Era, body: B) -> hyper::Response<B> {
    let mut response = hyper::Response::new(body);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if era == Era::Session {
        headers.insert(
            hyper::header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        );
        headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    }
    response
}

/// Whether a tool's input schema asks for a standard header anywhere.
pub fn asks_for_param_headers(schema: &JsonObject) -> bool {
    fn any(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Object(object) => {
                object.contains_key("x-mcp-header") || object.values().any(any)
            }
            serde_json::Value::Array(items) => items.iter().any(any),
            _ => false,
        }
    }
    schema.contains_key("x-mcp-header") || schema.values().any(any)
}

/// The body rmcp would have refused to read: its own words.
pub enum Unread {
    TooLarge(usize),
    Broken(String),
}

impl Unread {
    pub fn response(self) -> hyper::Response<Bytes> {
        let (status, text) = match self {
            Unread::TooLarge(limit) => (
                hyper::StatusCode::PAYLOAD_TOO_LARGE,
                format!("Payload Too Large: request body exceeds {limit} bytes"),
            ),
            Unread::Broken(why) => (
                hyper::StatusCode::INTERNAL_SERVER_ERROR,
                format!("Failed to read request body: {why}"),
            ),
        };
        let mut response = hyper::Response::new(Bytes::from(text));
        *response.status_mut() = status;
        response
    }
}

/// Reads a request body whole, at most `limit` bytes, as rmcp does.
pub async fn read_body<B>(body: B, limit: usize) -> Result<Bytes, Unread>
where
    B: hyper::body::Body,
    B::Error: std::fmt::Display,
{
    use http_body_util::BodyExt as _;
    let mut body = std::pin::pin!(body);
    let mut collected = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| Unread::Broken(error.to_string()))?;
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        use bytes::Buf as _;
        if data.remaining() > limit.saturating_sub(collected.len()) {
            return Err(Unread::TooLarge(limit));
        }
        while data.has_remaining() {
            let chunk = data.chunk();
            let length = chunk.len();
            collected.extend_from_slice(chunk);
            data.advance(length);
        }
    }
    Ok(collected.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn accept_takes_both_unless_one_weighs_nothing() {
        let both = "application/json, text/event-stream";
        assert!(accepts_json_and_sse(&headers(&[("accept", both)])));
        assert!(accepts_json_and_sse(&headers(&[
            ("accept", "application/json;q=0.5"),
            ("accept", "Text/Event-Stream; q=1")
        ])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json, text/event-stream;q=0.000"
        )])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json"
        )])));
        // A malformed weight is ignored, as rmcp ignores it.
        assert!(accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json;q=0.0000, text/event-stream"
        )])));
    }

    #[test]
    fn hosts_are_compared_without_port_or_case_and_ported_names_left_to_rmcp() {
        let gate = Gate::new(
            &["localhost".into(), "::1".into(), "api.example:8443".into()],
            None,
            HashSet::new(),
        );
        let host = |value: &'static str| headers(&[("host", value)]);
        assert!(gate.host_accepted(&host("LocalHost:3000")));
        assert!(gate.host_accepted(&host("[::1]:80")));
        assert!(!gate.host_accepted(&host("api.example:8443")));
        assert!(!gate.host_accepted(&host("evil.example")));
        assert!(!gate.host_accepted(&HeaderMap::new()));
    }

    #[test]
    fn the_era_follows_the_version_in_meta_and_header() {
        let gate = Gate::new(&[], None, ["annotated".to_owned()].into());
        let discover = RequestMeta {
            protocol_version: Some(DISCOVER_ERA.into()),
            client_capabilities: true,
        };
        let standard = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "getPet"),
        ]);
        let era = |headers: &HeaderMap, name, meta: &RequestMeta| {
            gate.era(headers, "tools/call", Some(name), meta)
        };
        assert_eq!(era(&standard, "getPet", &discover), Some(Era::Discover));
        // The name in the header must be the body's, and no tool may ask
        // for parameter headers (rmcp checks them).
        assert_eq!(era(&standard, "other", &discover), None);
        let annotated = headers(&[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "annotated"),
        ]);
        assert_eq!(era(&annotated, "annotated", &discover), None);
        let legacy = RequestMeta::default();
        assert_eq!(
            era(&HeaderMap::new(), "getPet", &legacy),
            Some(Era::Stateless)
        );
        let old = headers(&[("mcp-protocol-version", "2025-11-25")]);
        assert_eq!(era(&old, "getPet", &legacy), Some(Era::Stateless));
        // A 2026-07-28 header without `_meta`, or a version nobody knows.
        assert_eq!(era(&standard, "getPet", &legacy), None);
        let unknown = headers(&[("mcp-protocol-version", "2099-01-01")]);
        assert_eq!(era(&unknown, "getPet", &legacy), None);
    }

    #[test]
    fn a_session_must_be_ready_in_the_table() {
        let gate = Gate::new(
            &[],
            Some(SessionTable::new(std::time::Duration::from_secs(60))),
            HashSet::new(),
        );
        let meta = RequestMeta::default();
        let with = headers(&[("mcp-session-id", "s1")]);
        assert_eq!(gate.era(&with, "tools/list", None, &meta), None);
        let table = gate.sessions().expect("sessions");
        table.opened("s1");
        assert_eq!(
            gate.era(&with, "tools/list", None, &meta),
            None,
            "not initialized"
        );
        table.initialized("s1");
        assert_eq!(
            gate.era(&with, "tools/list", None, &meta),
            Some(Era::Session)
        );
        assert_eq!(gate.era(&HeaderMap::new(), "tools/list", None, &meta), None);
    }
}
