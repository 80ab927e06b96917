//! MCP sessions with a launched gateway, through the official Rust SDK (rmcp),
//! so the gateway is checked against a real client of either protocol era.

use std::{collections::HashMap, fmt, time::Duration};

use anyhow::{anyhow, Context as _};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest,
        CustomRequest, CustomResult, Implementation, ProtocolVersion, ServerResult,
    },
    service::{ClientLifecycleMode, ClientServiceExt as _, RunningService},
    transport::{
        streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport,
    },
    RoleClient, ServiceError,
};
use serde_json::Value;
use tokio::{
    process::{ChildStdin, ChildStdout},
    time::timeout,
};

use crate::wire::{ObservedHttp, Tap, WireLog};

/// Time allowed for connecting (handshake or discovery) to a gateway that
/// is up, and for listing tools.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Time allowed for one call: the gateway's own 15 s upstream deadline, and
/// room for a gateway whose deadline is longer (30 s is common), so the
/// error text it finally gives can still be judged (TC-MASK-007).
const CALL_TIMEOUT: Duration = Duration::from_secs(45);

/// Which MCP lifecycle the client uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// The `initialize` handshake, asking for this protocol version.
    Initialize(String),
    /// The 2026-07-28 revision: `server/discover`, then self-contained requests.
    Discover,
}

impl Default for Era {
    fn default() -> Self {
        Self::Initialize("2025-11-25".into())
    }
}

/// How a tool call ended, as the client saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallOutcome {
    /// A tool result: `isError`, and its text blocks joined by newlines.
    Result { is_error: bool, text: String },
    /// A JSON-RPC error instead of a result.
    RpcError { code: i32, message: String },
}

impl CallOutcome {
    /// The error codes the outcome's text carries: each `[CODE]` (capitals,
    /// digits and `_`) at the start of the text or of a line, as the
    /// reference's catalogue writes its errors and notes. The error docs link
    /// each code to the scenarios whose answers carried it.
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        let text = match self {
            Self::Result { text, .. } => text,
            Self::RpcError { message, .. } => message,
        };
        text.split('\n').filter_map(|line| {
            let code = line.strip_prefix('[')?.split_once(']')?.0;
            let mut chars = code.chars();
            let well_formed = chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            well_formed.then_some(code)
        })
    }
}

impl fmt::Display for CallOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Result { is_error, text } => {
                write!(f, "tool result (isError: {is_error}):\n{text}")
            }
            Self::RpcError { code, message } => {
                write!(f, "JSON-RPC error {code}: {message}")
            }
        }
    }
}

/// A handshake that got no answer in its window, from a gateway that may
/// only be slow to come up (a busy machine), as opposed to one that
/// answered wrong or went away.
#[derive(Debug)]
pub struct HandshakeTimedOut(String);

impl fmt::Display for HandshakeTimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HandshakeTimedOut {}

/// A stdio gateway wrote no JSON-RPC message before its handshake failed:
/// it never answered, as opposed to one that answered wrong. If it has
/// exited too, it did not start.
#[derive(Debug)]
pub struct HandshakeUnanswered(String);

impl fmt::Display for HandshakeUnanswered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HandshakeUnanswered {}

/// The MCP endpoint answered the handshake with HTTP 401, 403, 404 or 405:
/// the client is not let in there, or nothing serves MCP there. That says
/// how the gateway was reached (`--endpoint`, `--client-auth`), not how it
/// keeps a rule.
#[derive(Debug)]
pub struct EndpointRefused {
    pub status: u16,
    failed: String,
}

impl fmt::Display for EndpointRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.failed)
    }
}

impl std::error::Error for EndpointRefused {}

/// One MCP session.
pub struct McpClient {
    service: RunningService<RoleClient, ClientConfig>,
    /// What the session saw on the wire, for calls that never answer.
    wire: WireLog,
    _closer: CloseOnDrop,
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("protocol_version", &self.protocol_version())
            .finish()
    }
}

impl McpClient {
    /// Connects over Streamable HTTP, sending `headers` on every request; the
    /// handshake gets `within`.
    pub async fn over_http(
        url: &str,
        era: &Era,
        headers: &[(String, String)],
        within: Duration,
    ) -> anyhow::Result<Self> {
        let mut custom = HashMap::new();
        for (name, value) in headers {
            custom.insert(
                HeaderName::try_from(name.as_str())
                    .with_context(|| format!("bad header name {name:?}"))?,
                HeaderValue::try_from(value.as_str())
                    .with_context(|| format!("bad value for header {name}"))?,
            );
        }
        // A session that expires mid-scenario is the gateway's fault to
        // report, not one to paper over with a new handshake.
        let config = StreamableHttpClientTransportConfig::with_uri(url)
            .custom_headers(custom)
            .reinit_on_expired_session(false);
        let wire = WireLog::default();
        let transport =
            StreamableHttpClientTransport::with_client(ObservedHttp::new(wire.clone()), config);
        Self::connect(transport, era, wire, within).await
    }

    /// Connects over a stdio gateway's pipes; the handshake gets `within`.
    pub async fn over_stdio(
        (stdout, stdin): (ChildStdout, ChildStdin),
        era: &Era,
        within: Duration,
    ) -> anyhow::Result<Self> {
        let wire = WireLog::default();
        let stdout = Tap::new(stdout, wire.clone());
        Self::connect((stdout, stdin), era, wire.clone(), within)
            .await
            .map_err(|error| {
                if wire.stdout_messages() == 0 && !error.is::<HandshakeTimedOut>() {
                    anyhow::Error::new(HandshakeUnanswered(format!("{error:#}")))
                } else {
                    error
                }
            })
    }

    async fn connect<T, E, A>(
        transport: T,
        era: &Era,
        wire: WireLog,
        within: Duration,
    ) -> anyhow::Result<Self>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("hosted-mcp-conformance", env!("CARGO_PKG_VERSION")),
        );
        let (info, lifecycle) = match era {
            Era::Initialize(version) => (
                info.with_protocol_version(protocol_version(version)?),
                ClientLifecycleMode::Initialize,
            ),
            Era::Discover => (
                info,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            ),
        };
        let mark = wire.mark();
        let service = timeout(within, info.serve_with_lifecycle(transport, lifecycle))
            .await
            .map_err(|_| {
                HandshakeTimedOut(format!(
                    "the MCP handshake did not finish within {} s; what came instead:{}",
                    within.as_secs_f64(),
                    wire.since(mark)
                ))
            })?
            .map_err(|error| {
                let failed = format!(
                    "the MCP handshake failed: {error}; what was seen:{}",
                    wire.since(mark)
                );
                match wire.first_status(mark) {
                    Some(status @ (401 | 403 | 404 | 405)) => {
                        anyhow::Error::new(EndpointRefused { status, failed })
                    }
                    _ => anyhow!(failed),
                }
            })?;
        Ok(Self {
            service,
            _closer: CloseOnDrop(wire.clone()),
            wire,
        })
    }

    /// The protocol version the gateway agreed to.
    pub fn protocol_version(&self) -> Option<String> {
        self.service
            .peer_info()
            .map(|info| info.protocol_version.to_string())
    }

    /// Every tool, all pages, as JSON.
    pub async fn list_tools(&self) -> anyhow::Result<Vec<Value>> {
        let mark = self.wire.mark();
        let tools = timeout(CONNECT_TIMEOUT, self.service.list_all_tools())
            .await
            .map_err(|_| {
                anyhow!(
                    "tools/list did not answer within {} s; what came instead:{}",
                    CONNECT_TIMEOUT.as_secs(),
                    self.wire.since(mark)
                )
            })?
            .map_err(|error| {
                anyhow!(
                    "tools/list failed: {error}; what was seen:{}",
                    self.wire.since(mark)
                )
            })?;
        tools
            .iter()
            .map(|tool| serde_json::to_value(tool).context("a tool does not serialize"))
            .collect()
    }

    /// The bytes of the largest SSE event's data the session received.
    pub fn largest_event(&self) -> usize {
        self.wire.largest_event()
    }

    /// The lines on a stdio gateway's stdout that were not JSON-RPC messages:
    /// how many, and the first.
    pub fn stdout_strays(&self) -> (usize, Option<String>) {
        self.wire.stdout_strays()
    }

    /// Calls a tool; a JSON-RPC error is an outcome, not a failure. With the
    /// outcome comes the transport rule its answer broke on the way, if any.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> anyhow::Result<(CallOutcome, Option<String>)> {
        let mark = self.wire.mark();
        let answer = timeout(CALL_TIMEOUT, self.send_call(name, arguments))
            .await
            .map_err(|_| {
                anyhow!(
                    "tools/call {name} did not answer within {} s; what came instead:{}",
                    CALL_TIMEOUT.as_secs(),
                    self.wire.since(mark)
                )
            })?;
        let outcome = match answer {
            Ok(result) => CallOutcome::Result {
                is_error: result.is_error.unwrap_or(false),
                text: result
                    .content
                    .iter()
                    .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
                    .collect::<Vec<_>>()
                    .join("\n"),
            },
            Err(ServiceError::McpError(error)) => CallOutcome::RpcError {
                code: error.code.0,
                message: error.message.into_owned(),
            },
            Err(other) => {
                return Err(anyhow!(
                    "tools/call {name} failed: {other}; what was seen:{}",
                    self.wire.since(mark)
                ))
            }
        };
        Ok((outcome, self.wire.violation(mark)))
    }

    /// Sends one `tools/call`. Arguments that are not an object (which the
    /// SDK's typed call cannot carry, and an agent can still send) go as the
    /// same JSON-RPC request written by hand.
    async fn send_call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ServiceError> {
        let arguments = match arguments {
            Value::Object(map) => {
                let params = CallToolRequestParams::new(name.to_owned()).with_arguments(map);
                return self.service.call_tool(params).await;
            }
            Value::Null => {
                let params = CallToolRequestParams::new(name.to_owned());
                return self.service.call_tool(params).await;
            }
            other => other,
        };
        let params = serde_json::json!({ "name": name, "arguments": arguments });
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(params)));
        match self.service.send_request(request).await? {
            ServerResult::CallToolResult(result) => Ok(result),
            ServerResult::CustomResult(CustomResult(value)) => {
                serde_json::from_value(value).map_err(|_| ServiceError::UnexpectedResponse)
            }
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    /// Ends the session politely; the process is killed separately.
    pub async fn close(self) {
        self.wire.close();
        let _ = timeout(Duration::from_secs(2), self.service.cancel()).await;
    }
}

/// Closes a session's [`WireLog`] when the session is dropped: whatever
/// rmcp's background tasks still try, nothing leaves a session that ended.
struct CloseOnDrop(WireLog);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

fn protocol_version(version: &str) -> anyhow::Result<ProtocolVersion> {
    serde_json::from_value(Value::String(version.to_owned()))
        .with_context(|| format!("rmcp does not know protocol version {version:?}"))
}

#[cfg(test)]
mod tests {
    use super::CallOutcome;

    #[test]
    fn codes_are_read_where_a_line_begins_with_one() {
        let result = CallOutcome::Result {
            is_error: false,
            text: "[ok] body [credential]\n[BODY_TRUNCATED] cut at 1 MB\n [NOT_AT_START]\n[Mixed_Case]\n[UPSTREAM_5XX] x".into(),
        };
        assert_eq!(
            result.codes().collect::<Vec<_>>(),
            ["BODY_TRUNCATED", "UPSTREAM_5XX"]
        );
        let error = CallOutcome::RpcError {
            code: -32602,
            message: "[TOOL_UNKNOWN] there is no tool named `x`".into(),
        };
        assert_eq!(error.codes().collect::<Vec<_>>(), ["TOOL_UNKNOWN"]);
    }
}
