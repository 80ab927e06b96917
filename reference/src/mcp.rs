//! The MCP face of the gateway, and the only module that knows MCP.
//!
//! Both protocol eras come from `rmcp`: the `initialize` handshake (2025-06-18,
//! 2025-11-25) with sessions, and 2026-07-28 with `server/discover` and no
//! sessions (TC-PROTO-002, TC-PROTO-003). The tool list is turned into MCP
//! tools and serialized once, at start-up, and those bytes are sent on every
//! `tools/list` ([`tool_list`]).

mod census;
mod refusal;
mod single_answer;
mod tool_list;

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::convert;
use crate::gateway::Gateway;
use tool_list::{SplicedBody, SplicingWriter, ToolList};

/// The path of the one Streamable HTTP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// An MCP server in front of a [`Gateway`]. Cheap to clone: the stateless
/// 2026-07-28 transport makes one per request.
#[derive(Clone)]
pub struct McpServer {
    gateway: Arc<Gateway>,
    tools: Arc<ToolList>,
    /// Calls being answered, so that stopping waits for them.
    calls: TaskTracker,
}

impl McpServer {
    pub fn new(gateway: Arc<Gateway>) -> Self {
        let tools = Arc::new(ToolList::new(&mcp_tools(gateway.tools())));
        Self {
            gateway,
            tools,
            calls: TaskTracker::new(),
        }
    }
}

/// The MCP tool for each converted tool, in list order (TC-PROTO-006).
pub fn mcp_tools(tools: &[convert::Tool]) -> Vec<rmcp::model::Tool> {
    tools.iter().map(mcp_tool).collect()
}

/// One tool as MCP shows it. Hints are always written out as booleans
/// (TC-HINT-001) and no output schema is declared (TC-SCHEMA-005):
/// `new_with_raw` leaves it empty.
fn mcp_tool(tool: &convert::Tool) -> rmcp::model::Tool {
    let mut mcp = rmcp::model::Tool::new_with_raw(
        tool.name.clone(),
        tool.description.clone().map(Cow::Owned),
        Arc::new(tool.input_schema.clone()),
    );
    mcp.title = tool.title.clone();
    mcp.annotations = Some(ToolAnnotations::from_raw(
        None,
        Some(tool.hints.read_only),
        Some(tool.hints.destructive),
        Some(tool.hints.idempotent),
        None,
    ));
    mcp
}

/// The `tools/list` result as JSON, for `hosted-mcp-gateway tools`.
pub fn tools_list_json(tools: &[convert::Tool]) -> serde_json::Value {
    serde_json::json!({ "tools": mcp_tools(tools) })
}

impl ServerHandler for McpServer {
    /// What rmcp answers both `initialize` (TC-PROTO-002) and
    /// `server/discover` (TC-PROTO-003) with; the handshakes themselves,
    /// and which protocol versions are spoken, are rmcp's.
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("hosted-mcp-gateway", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // A stand-in, replaced by the serialized tools on the way out.
        Ok(self.tools.result())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(serde_json::Value::Object);
        self.call(&request.name, arguments).await.map(Into::into)
    }

    /// A `tools/call` the SDK could not read as one: its `arguments` are not
    /// an object. The call is still the tool's, so the answer is a tool
    /// result (ARGUMENTS_INVALID), not a JSON-RPC error (TC-PROTO-005).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "tools/call" {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        let mut params = match request.params {
            Some(serde_json::Value::Object(params)) => params,
            _ => return Err(ErrorData::invalid_params("tools/call needs params", None)),
        };
        let Some(serde_json::Value::String(name)) = params.remove("name") else {
            return Err(ErrorData::invalid_params(
                "tools/call needs the tool's name as a string",
                None,
            ));
        };
        let result = self.call(&name, params.remove("arguments")).await?;
        serde_json::to_value(result)
            .map(CustomResult::new)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }
}

impl McpServer {
    /// Only the tool's name and arguments cross into the gateway: nothing of
    /// the agent's own request (headers, cookies) can reach the upstream
    /// (TC-REQ-009).
    async fn call(
        &self,
        name: &str,
        arguments: Option<serde_json::Value>,
    ) -> Result<CallToolResult, ErrorData> {
        let _in_flight = self.calls.token();
        match self.gateway.call(name, arguments).await {
            Ok(answer) => {
                let content = vec![ContentBlock::text(answer.text)];
                // TC-PROTO-005: a failed call is a tool result with
                // `isError` and its text, not a JSON-RPC error.
                let result = if answer.is_error {
                    CallToolResult::error(content)
                } else {
                    CallToolResult::success(content)
                };
                Ok(result)
            }
            // TC-PROTO-004: an unknown tool is a protocol error, not a tool result.
            Err(unknown) => Err(ErrorData::invalid_params(unknown.to_string(), None)),
        }
    }
}

/// TC-PROTO-001: serves MCP over the process's stdin and stdout until the
/// client closes them. Only MCP messages go to stdout: the log is on stderr
/// (`main.rs`, `start_logs`).
pub async fn serve_stdio(server: McpServer) -> std::io::Result<()> {
    // Non-blocking pipes where stdin and stdout are pipes, as when a client
    // launches the gateway: `io::stdio()` hands every read and write to
    // tokio's blocking thread pool, a thread hop each way per message.
    let (stdin, stdout) = rmcp::transport::io::stdio_pipes();
    let stdout = SplicingWriter::new(stdout, Arc::clone(&server.tools));
    let running = server
        .serve((stdin, stdout))
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    tracing::info!("stdin closed; stopped");
    Ok(())
}

/// Who may talk to the HTTP endpoint.
#[derive(Debug, Clone, Default)]
pub struct HttpAccess {
    /// `Host` values accepted besides loopback names (DNS-rebinding guard).
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted; any other `Origin` is refused (TC-PROTO-007).
    pub allowed_origins: Vec<String>,
}

/// How clients of the `initialize` era are served over HTTP. The 2026-07-28
/// era has no sessions either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sessions {
    /// `initialize` opens a session (`Mcp-Session-Id`) that lives in this
    /// process's memory: a client must keep reaching this process.
    InMemory {
        /// A session with no message from or to its client for this long
        /// is closed, so the sessions of clients that left without a DELETE
        /// do not pile up; a client that comes back later gets 404 and
        /// starts a new session.
        idle_timeout: Duration,
    },
    /// No sessions: every POST stands on its own and is answered on its own
    /// response, so copies of the gateway behind a load balancer need no
    /// stickiness. There is no standalone GET stream to push messages on,
    /// which this gateway never sends.
    Stateless,
}

/// How long an idle session lives unless the operator says otherwise: rmcp's
/// own default.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How often the census is logged unless the operator says otherwise.
pub const DEFAULT_CENSUS_INTERVAL: Duration = Duration::from_secs(10);

/// Browser origins accepted when the endpoint is on loopback, any port.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// TC-PROTO-001: serves MCP over Streamable HTTP at [`ENDPOINT`] on `listener`
/// until `shutdown` completes, logging a census every `census_interval`
/// when the log levels ask for it (the `hosted_mcp_gateway::census` target).
pub async fn serve_http(
    server: McpServer,
    listener: TcpListener,
    access: HttpAccess,
    sessions: Sessions,
    census_interval: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let cancel = CancellationToken::new();
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    hosts.extend(access.allowed_hosts);
    // TC-PROTO-007: on loopback, pages served from loopback are the user's
    // own (a local inspector, a dev server), as the official SDKs allow.
    let mut origins = access.allowed_origins;
    if listener
        .local_addr()
        .is_ok_and(|address| address.ip().is_loopback())
    {
        origins.extend(LOOPBACK_ORIGINS.iter().map(|origin| origin.to_string()));
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        // A 2026-07-28 request's answer goes back as one JSON body rather
        // than an SSE stream of one event, when it is a single message: no
        // stream task, keep-alive timer or chunked framing per call, and no
        // SSE event for a large answer to outgrow (TC-PROTO-009).
        .with_json_response(true)
        .with_legacy_session_mode(matches!(sessions, Sessions::InMemory { .. }))
        .with_cancellation_token(cancel.clone());
    let tools = Arc::clone(&server.tools);
    let calls = server.calls.clone();
    let connections = GracefulShutdown::new();
    // Kept to count the live sessions for the census.
    let live_sessions = Arc::new(session_manager(sessions));
    let service: StreamableHttpService<McpServer, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::clone(&live_sessions),
        config,
    );
    let mut census = census::Census::every(census_interval);

    tokio::pin!(shutdown);
    let mut pause = ACCEPT_PAUSE_MIN;
    loop {
        let (stream, _peer) = tokio::select! {
            () = census.due() => {
                census::report(&live_sessions, connections.count(), &calls).await;
                continue;
            }
            accepted = listener.accept() => match accepted {
                Ok(pair) => {
                    pause = ACCEPT_PAUSE_MIN;
                    pair
                }
                // A failed accept (out of descriptors, a reset handshake) must
                // not stop the server, nor spin a core retrying at once while
                // descriptors are short: wait, longer each time in a row.
                Err(_) => {
                    tokio::select! {
                        () = tokio::time::sleep(pause) => {}
                        () = &mut shutdown => break,
                    }
                    pause = (pause * 2).min(ACCEPT_PAUSE_MAX);
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Each answer is written as soon as it is ready. With Nagle's
        // algorithm on, a response written in two segments (headers, then the
        // SSE event) waited for the client's delayed ACK: ~40 ms a call.
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let tools = Arc::clone(&tools);
        let watcher = connections.watcher();
        tokio::spawn(async move {
            let route = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let service = TowerToHyperService::new(service.clone());
                let tools = Arc::clone(&tools);
                async move {
                    if request.uri().path() != ENDPOINT {
                        return Ok(not_found());
                    }
                    let method = request.method().clone();
                    let asked = refusal::Asked::of(&request);
                    let response = hyper::service::Service::call(&service, request).await?;
                    let response = match method {
                        _ if response.status() == hyper::StatusCode::FORBIDDEN => {
                            refusal::explain(response.map(http_body_util::BodyExt::boxed), asked)
                                .await
                        }
                        // TC-PROTO-008, TC-PROTO-009: the answer on the POST's
                        // own response, as one JSON body however large.
                        hyper::Method::POST => single_answer::answer_as_json(response).await,
                        hyper::Method::DELETE => session_closed(response),
                        _ => response.map(http_body_util::BodyExt::boxed),
                    };
                    Ok::<_, Infallible>(tools.splice_response(response).await)
                }
            });
            let connection = watcher.watch(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), route),
            );
            // A client that misbehaves only loses its own connection.
            let _ = connection.await;
        });
    }
    drop(listener);
    drain(calls, connections, cancel).await;
    Ok(())
}

/// Stopping: new connections are refused (the listener is closed), calls
/// in flight are answered (each is bounded by the deadline), idle
/// connections close; what is left then, a session's stream that never ends
/// on its own, is closed by ending the sessions.
async fn drain(calls: TaskTracker, connections: GracefulShutdown, sessions: CancellationToken) {
    tracing::info!(calls_in_flight = calls.len(), "stopping");
    calls.close();
    let _ = tokio::time::timeout(DRAIN_CALLS, calls.wait()).await;
    let closed = connections.shutdown();
    tokio::pin!(closed);
    if tokio::time::timeout(DRAIN_ANSWERS, &mut closed)
        .await
        .is_err()
    {
        sessions.cancel();
        let _ = tokio::time::timeout(DRAIN_STREAMS, closed).await;
    }
    sessions.cancel();
    tracing::info!("stopped");
}

/// How long stopping waits for calls in flight: the upstream deadline, and
/// a margin for answers being cut and masked.
const DRAIN_CALLS: Duration = Duration::from_secs(20);
/// How long answers already made may take to be written.
const DRAIN_ANSWERS: Duration = Duration::from_millis(500);
/// How long the sessions' own streams may take to close once ended.
const DRAIN_STREAMS: Duration = Duration::from_secs(2);

/// The first and the longest wait after a failed accept.
const ACCEPT_PAUSE_MIN: Duration = Duration::from_millis(5);
const ACCEPT_PAUSE_MAX: Duration = Duration::from_millis(500);

/// The sessions of the `initialize` era.
///
/// rmcp keeps each finished request's SSE events for a late resume (60 s by
/// default), and its session worker scans all of them on every message it
/// handles: at 1,000 calls a second that is 60,000 entries walked per message,
/// CPU and memory that grow with the call rate (and a 1 MB answer held a
/// minute after it was sent). Nothing is kept once a request has been
/// answered: a tools/call answer is one message on its POST's own stream
/// (TC-PROTO-008), so there is nothing left to resume.
///
/// A session lives until its client's DELETE, or until it has been idle for
/// the operator's timeout: rmcp's session worker closes it when no message
/// has come or gone for that long, even while a call of the session waits
/// on the API (its answer is then lost), hence main.rs's warning below the
/// call deadline.
fn session_manager(sessions: Sessions) -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    manager.session_config.completed_cache_ttl = Duration::ZERO;
    if let Sessions::InMemory { idle_timeout } = sessions {
        manager.session_config.keep_alive = Some(idle_timeout);
    }
    manager
}

/// A session closed by the client's DELETE: rmcp says 202 Accepted, which
/// the official Python SDK logs as a failed termination on every close; the
/// SDKs take 200 and 204 as done.
fn session_closed<B>(response: hyper::Response<B>) -> hyper::Response<BoxBody<Bytes, Infallible>>
where
    B: hyper::body::Body<Data = Bytes, Error = Infallible> + Send + Sync + 'static,
{
    let mut response = response.map(http_body_util::BodyExt::boxed);
    if response.status() == hyper::StatusCode::ACCEPTED {
        *response.status_mut() = hyper::StatusCode::NO_CONTENT;
        *response.body_mut() = http_body_util::BodyExt::boxed(http_body_util::Empty::new());
    }
    response
}

fn not_found() -> hyper::Response<SplicedBody> {
    let mut response = hyper::Response::new(SplicedBody::Whole(
        [Bytes::from_static(b"not found: MCP is served at /mcp\n")].into(),
    ));
    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
    response
}

/// The address actually bound, for the start-up line (a port of 0 picks a free one).
pub fn bound_address(listener: &TcpListener) -> Option<SocketAddr> {
    listener.local_addr().ok()
}
