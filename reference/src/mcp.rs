//! The MCP face of the gateway, and the only module that knows MCP.
//!
//! Both protocol eras come from `rmcp`: the `initialize` handshake (2025-06-18,
//! 2025-11-25) with sessions, and 2026-07-28 with `server/discover` and no
//! sessions (TC-PROTO-002, TC-PROTO-003). The tool list is turned into MCP
//! tools and serialized once, at start-up, and those bytes are sent on every
//! `tools/list` ([`tool_list`]).

pub mod jsonrpc;
mod lean;
mod peek;
mod refusal;
mod sessions;
mod single_answer;
mod tool_list;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::Full;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, ServerResult, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::convert;
use crate::gateway::Gateway;
use jsonrpc::Posted;
pub use peek::{requests_in, tools_called};
use sessions::{Seen, SessionTable};
pub use tool_list::{SplicedBody, ToolsAllowed};
use tool_list::{SplicingWriter, ToolList};

/// The path of the one Streamable HTTP endpoint of a gateway serving one
/// API from its flags; one of many APIs is served under it, at
/// `/mcp/{name}`.
pub const ENDPOINT: &str = "/mcp";

/// An MCP server in front of a [`Gateway`]. Cheap to clone: the stateless
/// 2026-07-28 transport makes one per request.
#[derive(Clone)]
pub struct McpServer {
    /// The gateway calls are made with unless the request brings another
    /// (a reload that kept the API's tools, and so its sessions, gives
    /// each request the gateway of its version: [`Said`]).
    gateway: Arc<Gateway>,
    tools: Arc<ToolList>,
    /// Calls being answered, so that stopping waits for them.
    calls: TaskTracker,
}

impl McpServer {
    /// Every tool of `gateway`, to every agent.
    pub fn new(gateway: Arc<Gateway>) -> Self {
        let tools = Arc::new(ToolList::new(&mcp_tools(gateway.tools())));
        Self::with_tools(gateway, tools)
    }

    /// As [`McpServer::new`], with the read-only tools also listed on their
    /// own, for agents let in only for them ([`ToolsAllowed::ReadOnly`]).
    pub fn limitable(gateway: Arc<Gateway>) -> Self {
        let read_only: Vec<convert::Tool> = gateway
            .tools()
            .iter()
            .filter(|tool| tool.hints.read_only)
            .cloned()
            .collect();
        let tools = Arc::new(ToolList::with_read_only(
            &mcp_tools(gateway.tools()),
            &mcp_tools(&read_only),
        ));
        Self::with_tools(gateway, tools)
    }

    /// A server of `gateway` that shares `sibling`'s tool list, serialized
    /// once, when both serve the same compiled tools listed the same way
    /// (`limitable`): the APIs of one document hold its list once.
    pub fn beside(gateway: Arc<Gateway>, sibling: &McpServer, limitable: bool) -> Option<Self> {
        let same = Arc::ptr_eq(gateway.compiled(), sibling.gateway().compiled())
            && sibling.tools.lists_read_only() == limitable;
        same.then(|| Self::with_tools(gateway, Arc::clone(&sibling.tools)))
    }

    fn with_tools(gateway: Arc<Gateway>, tools: Arc<ToolList>) -> Self {
        Self {
            gateway,
            tools,
            calls: TaskTracker::new(),
        }
    }

    /// The gateway calls are made with unless a request brings another.
    pub fn gateway(&self) -> Arc<Gateway> {
        Arc::clone(&self.gateway)
    }

    /// Whether an agent allowed `allowed` may call the tool `name`; an
    /// unknown tool is left to the call, which says so.
    pub fn may_call(&self, name: &str, allowed: ToolsAllowed) -> bool {
        allowed == ToolsAllowed::All
            || self
                .gateway()
                .tools()
                .iter()
                .find(|tool| tool.name == name)
                .is_none_or(|tool| tool.hints.read_only)
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

/// What the HTTP layer in front said of the agent, from the request's
/// extensions; all tools when nothing did.
fn allowed(context: &RequestContext<RoleServer>) -> ToolsAllowed {
    said_in(context).allowed
}

/// What the HTTP layers in front said of a request, in its extensions.
struct Said {
    /// Which tools its agent may call; all when nothing said.
    allowed: ToolsAllowed,
    /// The gateway of the API's version that took the request.
    gateway: Option<Arc<Gateway>>,
}

fn said(extensions: Option<&hyper::http::Extensions>) -> Said {
    Said {
        allowed: extensions
            .and_then(|extensions| extensions.get::<ToolsAllowed>())
            .copied()
            .unwrap_or_default(),
        gateway: extensions.and_then(|extensions| extensions.get::<Arc<Gateway>>().cloned()),
    }
}

fn said_in(context: &RequestContext<RoleServer>) -> Said {
    said(
        context
            .extensions
            .get::<hyper::http::request::Parts>()
            .map(|parts| &parts.extensions),
    )
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // A stand-in, replaced by the serialized tools on the way out.
        Ok(self.tools.result(allowed(&context)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(serde_json::Value::Object);
        self.call(&request.name, arguments, said_in(&context))
            .await
            .map(Into::into)
    }

    /// A `tools/call` the SDK could not read as one: its `arguments` are not
    /// an object. The call is still the tool's, so the answer is a tool
    /// result (ARGUMENTS_INVALID), not a JSON-RPC error (TC-PROTO-005).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
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
        let result = self
            .call(&name, params.remove("arguments"), said_in(&context))
            .await?;
        serde_json::to_value(result)
            .map(CustomResult::new)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }
}

impl McpServer {
    /// Only the tool's name and arguments cross into the gateway: nothing of
    /// the agent's own request (headers, cookies) can reach the upstream
    /// (TC-REQ-009).
    ///
    /// The HTTP layer in front refuses a call outside what the agent is
    /// allowed (403) before it gets here; refused here too, so no other way
    /// in can make one.
    async fn call(
        &self,
        name: &str,
        arguments: Option<serde_json::Value>,
        said: Said,
    ) -> Result<CallToolResult, ErrorData> {
        if !self.may_call(name, said.allowed) {
            return Err(ErrorData::invalid_request(
                format!("this agent may call only read-only tools, and `{name}` is not one"),
                None,
            ));
        }
        let _in_flight = self.calls.token();
        let gateway = said.gateway.unwrap_or_else(|| self.gateway());
        match gateway.call(name, arguments).await {
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

/// Browser origins accepted when the endpoint is on loopback, any port.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How the Streamable HTTP endpoints of a gateway are served.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub access: HttpAccess,
    pub sessions: Sessions,
    /// Whether the gateway listens on loopback, where pages served from
    /// loopback are the user's own.
    pub on_loopback: bool,
}

/// TC-PROTO-001: one API's MCP endpoint over Streamable HTTP. `tools/call`
/// and `tools/list` are answered by the endpoint itself ([`lean`]); every
/// other message, and any request the lean path would answer differently
/// from rmcp, goes to rmcp's transport, with the tool list spliced in, the
/// DNS-rebinding guard's refusals explained, and each answer on its POST's
/// own response.
pub struct HttpEndpoint {
    server: McpServer,
    service: StreamableHttpService<McpServer, LocalSessionManager>,
    /// rmcp's sessions, closed from here when idle.
    rmcp_sessions: Arc<LocalSessionManager>,
    gate: lean::Gate,
    /// Ends this endpoint's sessions and their streams.
    closing: CancellationToken,
}

/// The largest request body read: rmcp's own limit, which it answers 413 past.
const REQUEST_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The header a session's ID is in.
const SESSION_ID: &str = "mcp-session-id";

impl HttpEndpoint {
    pub fn new(server: McpServer, options: &HttpOptions) -> Self {
        let closing = CancellationToken::new();
        let mut hosts = vec![
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
        ];
        hosts.extend(options.access.allowed_hosts.iter().cloned());
        // TC-PROTO-007: on loopback, pages served from loopback are the
        // user's own (a local inspector, a dev server), as the official SDKs
        // allow.
        let mut origins = options.access.allowed_origins.clone();
        if options.on_loopback {
            origins.extend(LOOPBACK_ORIGINS.iter().map(|origin| origin.to_string()));
        }
        let table = match options.sessions {
            Sessions::InMemory { idle_timeout } => Some(SessionTable::new(idle_timeout)),
            Sessions::Stateless => None,
        };
        let param_headers = server
            .gateway()
            .tools()
            .iter()
            .filter(|tool| lean::asks_for_param_headers(&tool.input_schema))
            .map(|tool| tool.name.clone())
            .collect();
        let gate = lean::Gate::new(&hosts, table, param_headers);
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            // A 2026-07-28 request's answer goes back as one JSON body rather
            // than an SSE stream of one event, when it is a single message:
            // no stream task, keep-alive timer or chunked framing per call,
            // and no SSE event for a large answer to outgrow (TC-PROTO-009).
            .with_json_response(true)
            .with_legacy_session_mode(matches!(options.sessions, Sessions::InMemory { .. }))
            .with_max_request_body_bytes(REQUEST_BODY_LIMIT)
            .with_cancellation_token(closing.clone());
        let rmcp_sessions = Arc::new(session_manager());
        let made = server.clone();
        let service = StreamableHttpService::new(
            move || Ok(made.clone()),
            Arc::clone(&rmcp_sessions),
            config,
        );
        Self {
            server,
            service,
            rmcp_sessions,
            gate,
            closing,
        }
    }

    /// The MCP server behind the endpoint.
    pub fn server(&self) -> &McpServer {
        &self.server
    }

    /// Answers one HTTP request to the endpoint.
    pub async fn handle<B>(&self, request: hyper::Request<B>) -> hyper::Response<SplicedBody>
    where
        B: hyper::body::Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: std::fmt::Display,
    {
        if self.gate.sessions().is_some_and(SessionTable::sweep_due) {
            self.close_idle_sessions().await;
        }
        if !self.gate.admits(&request) {
            // Boxed: rmcp's transport is the rare path and its future is
            // large, and every future the call is in would hold its size.
            return Box::pin(self.by_rmcp(request)).await;
        }
        let (parts, body) = request.into_parts();
        let body = match lean::read_body(body, REQUEST_BODY_LIMIT).await {
            Ok(body) => body,
            Err(unread) => {
                return unread
                    .response()
                    .map(|text| SplicedBody::Whole([text].into()))
            }
        };
        let posted = jsonrpc::read(&body);
        let initialized = matches!(posted, Posted::Initialized);
        let allowed = parts
            .extensions
            .get::<ToolsAllowed>()
            .copied()
            .unwrap_or_default();
        match posted {
            Posted::Call {
                id,
                name,
                arguments,
                meta,
            } => {
                if let Some(era) = self
                    .gate
                    .era(&parts.headers, "tools/call", Some(&name), &meta)
                {
                    let said = said(Some(&parts.extensions));
                    let result = self
                        .server
                        .call(&name, arguments.map(serde_json::Value::Object), said)
                        .await
                        .map(ServerResult::CallToolResult);
                    return self.answer(era, id, result);
                }
            }
            Posted::List { id, meta } => {
                if let Some(era) = self.gate.era(&parts.headers, "tools/list", None, &meta) {
                    let result = ServerResult::ListToolsResult(self.server.tools.result(allowed));
                    return self.answer(era, id, Ok(result));
                }
            }
            Posted::Initialized | Posted::Other => {}
        }
        let session = session_of(&parts.headers);
        let response =
            Box::pin(self.by_rmcp(hyper::Request::from_parts(parts, Full::new(body)))).await;
        if let (true, Some(id), Some(table)) = (initialized, session, self.gate.sessions()) {
            if response.status().is_success() {
                table.initialized(&id);
            }
        }
        response
    }

    /// A lean request's answer, as one JSON body.
    fn answer(
        &self,
        era: lean::Era,
        id: rmcp::model::RequestId,
        result: Result<ServerResult, ErrorData>,
    ) -> hyper::Response<SplicedBody> {
        let message = lean::message(era, id, result);
        let body = match serde_json::to_vec(&message) {
            Ok(bytes) => Bytes::from(bytes),
            // Never: rmcp's messages are plain JSON values.
            Err(error) => {
                tracing::error!(%error, "an answer could not be written as JSON (a bug)");
                let mut response = hyper::Response::new(SplicedBody::Whole(VecDeque::new()));
                *response.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
                return response;
            }
        };
        let pieces = match self.server.tools.splice(&body) {
            Some(pieces) => VecDeque::from(pieces),
            None => VecDeque::from([body]),
        };
        lean::response(era, SplicedBody::Whole(pieces))
    }

    /// A request rmcp's transport answers, and what its answer says of the
    /// sessions.
    async fn by_rmcp<B>(&self, request: hyper::Request<B>) -> hyper::Response<SplicedBody>
    where
        B: hyper::body::Body + Send + 'static,
        B::Data: Send + 'static,
        B::Error: std::fmt::Display,
    {
        let method = request.method().clone();
        let asked = refusal::Asked::of(&request);
        let session = session_of(request.headers());
        if let (Some(id), Some(table)) = (&session, self.gate.sessions()) {
            if table.used(id) == Seen::Unknown {
                // Idle too long: closed, so that rmcp says it is gone.
                self.close_session(id).await;
            }
        }
        let response = self.service.handle(request).await;
        if let Some(table) = self.gate.sessions() {
            match (&session, response.headers().get(SESSION_ID)) {
                (None, Some(opened)) if response.status().is_success() => {
                    if let Ok(opened) = opened.to_str() {
                        table.opened(opened);
                    }
                }
                (Some(id), _) => {
                    let closed = method == hyper::Method::DELETE && response.status().is_success();
                    if closed || response.status() == hyper::StatusCode::NOT_FOUND {
                        table.ended(id);
                    }
                }
                _ => {}
            }
        }
        let response = match method {
            _ if response.status() == hyper::StatusCode::FORBIDDEN => {
                refusal::explain(response, asked).await
            }
            // TC-PROTO-008, TC-PROTO-009: the answer on the POST's own
            // response, as one JSON body however large.
            hyper::Method::POST => single_answer::answer_as_json(response).await,
            hyper::Method::DELETE => session_closed(response),
            _ => response,
        };
        self.server.tools.splice_response(response).await
    }

    async fn close_session(&self, id: &str) {
        let id: rmcp::transport::streamable_http_server::session::SessionId = id.into();
        // An error means the session is gone already.
        let _ = self.rmcp_sessions.close_session(&id).await;
    }

    /// Closes the sessions idle for the operator's timeout, and forgets
    /// those rmcp ended on its own.
    async fn close_idle_sessions(&self) {
        let Some(table) = self.gate.sessions() else {
            return;
        };
        for id in table.idle() {
            self.close_session(&id).await;
        }
        let alive = self.rmcp_sessions.sessions.read().await;
        table.retain(|id| alive.contains_key(id));
    }

    /// The sessions alive now.
    pub async fn sessions_alive(&self) -> usize {
        self.close_idle_sessions().await;
        self.gate.sessions().map_or(0, SessionTable::len)
    }

    /// The IDs of the sessions alive now.
    pub async fn session_ids(&self) -> std::collections::HashSet<String> {
        self.close_idle_sessions().await;
        self.gate
            .sessions()
            .map(SessionTable::ids)
            .unwrap_or_default()
    }

    /// Tool calls from their arrival to their answer, waiting for a turn
    /// included.
    pub fn calls_in_flight(&self) -> usize {
        self.server.calls.len()
    }

    /// Takes no more calls and completes once those in flight are answered.
    pub async fn calls_answered(&self) {
        self.server.calls.close();
        self.server.calls.wait().await;
    }

    /// Ends every session of the endpoint and its streams.
    pub fn end_sessions(&self) {
        self.closing.cancel();
        if let Some(table) = self.gate.sessions() {
            table.clear();
        }
    }
}

/// The session ID a request shows, if any.
fn session_of(headers: &hyper::HeaderMap) -> Option<String> {
    headers
        .get(SESSION_ID)
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned)
}

/// rmcp's sessions of the `initialize` era.
///
/// rmcp keeps each finished request's SSE events for a late resume (60 s by
/// default), and its session worker scans all of them on every message it
/// handles: at 1,000 calls a second that is 60,000 entries walked per message,
/// CPU and memory that grow with the call rate (and a 1 MB answer held a
/// minute after it was sent). Nothing is kept once a request has been
/// answered: every answer is one message on its POST's own response
/// (TC-PROTO-008), so there is nothing left to resume.
///
/// rmcp's own idle timeout is off: a ready session's calls never reach its
/// session worker, which would close a busy session as idle. The endpoint's
/// table times sessions out instead ([`sessions`]), closing one idle for the
/// operator's timeout even while a call of it waits on the API (its answer
/// is then still sent, on its POST), hence main.rs's warning below the call
/// deadline.
fn session_manager() -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    manager.session_config.completed_cache_ttl = Duration::ZERO;
    manager.session_config.keep_alive = None;
    manager
}

/// A session closed by the client's DELETE: rmcp says 202 Accepted, which
/// the official Python SDK logs as a failed termination on every close; the
/// SDKs take 200 and 204 as done.
fn session_closed(
    response: hyper::Response<BoxBody<Bytes, Infallible>>,
) -> hyper::Response<BoxBody<Bytes, Infallible>> {
    let mut response = response;
    if response.status() == hyper::StatusCode::ACCEPTED {
        *response.status_mut() = hyper::StatusCode::NO_CONTENT;
        *response.body_mut() = http_body_util::BodyExt::boxed(http_body_util::Empty::new());
    }
    response
}

#[cfg(test)]
mod tests {
    //! The lean path against rmcp's transport: the same request, answered
    //! by both, must get the same status, headers and bytes, in every era.

    use std::path::Path;

    use http_body_util::BodyExt as _;
    use serde_json::{json, Value};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::gateway::UpstreamConfig;

    async fn upstream() -> MockServer {
        let server = MockServer::start().await;
        Mock::given(wiremock::matchers::any())
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 1, "name": "Rex"})))
            .mount(&server)
            .await;
        server
    }

    fn server(upstream: &MockServer) -> McpServer {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/petstore.yaml");
        let document = crate::load::load_path(&path).expect("the fixture loads");
        let catalogue = convert::convert(&document).expect("the fixture converts");
        let config = UpstreamConfig {
            base_url: upstream.uri(),
            credential: None,
            placement: None,
            trusted_ca_pem: None,
            also_masked: Vec::new(),
            exchange: None,
        };
        McpServer::limitable(Arc::new(
            Gateway::new(catalogue, config).expect("a gateway"),
        ))
    }

    fn endpoint(server: McpServer, sessions: Sessions) -> HttpEndpoint {
        let options = HttpOptions {
            access: HttpAccess::default(),
            sessions,
            on_loopback: true,
        };
        HttpEndpoint::new(server, &options)
    }

    fn post(
        message: &Value,
        headers: &[(&str, &str)],
        allowed: ToolsAllowed,
    ) -> hyper::Request<Full<Bytes>> {
        let mut request = hyper::Request::post("/mcp")
            .header("host", "localhost:3000")
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .expect("a request");
        request.extensions_mut().insert(allowed);
        request
    }

    /// Status, the headers that matter, and the body.
    async fn read(response: hyper::Response<SplicedBody>) -> (u16, Vec<(String, String)>, String) {
        let status = response.status().as_u16();
        let mut headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter(|(name, _)| name.as_str() != "content-length" && name.as_str() != "date")
            .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or("?").to_owned()))
            .collect();
        headers.sort();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("read")
            .to_bytes();
        (status, headers, String::from_utf8_lossy(&body).into_owned())
    }

    /// The requests an agent makes, each with an answer of another kind.
    fn requests(meta: Option<&Value>) -> Vec<(Value, ToolsAllowed)> {
        let with_meta = |mut params: Value| {
            if let Some(meta) = meta {
                params["_meta"] = meta.clone();
            }
            params
        };
        let call = |id: Value, name: &str, arguments: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": with_meta(json!({"name": name, "arguments": arguments}))})
        };
        let list = |id: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": with_meta(json!({}))});
        vec![
            (
                call(json!(1), "showPetById", json!({"petId": "7"})),
                ToolsAllowed::All,
            ),
            (
                call(json!("s"), "listPets", json!({"limit": 0})),
                ToolsAllowed::All,
            ),
            (call(json!(3), "noSuchTool", json!({})), ToolsAllowed::All),
            (
                call(json!(4), "createPet", json!({"body": {"name": "Rex"}})),
                ToolsAllowed::ReadOnly,
            ),
            (call(json!(5), "listPets", Value::Null), ToolsAllowed::All),
            (list(json!(6)), ToolsAllowed::All),
            (list(json!("seven")), ToolsAllowed::ReadOnly),
        ]
    }

    /// Each request through the endpoint and through rmcp alone.
    async fn compare(endpoint: &HttpEndpoint, headers: &[(&str, &str)], meta: Option<&Value>) {
        for (message, allowed) in requests(meta) {
            let method = message["method"].as_str().expect("a method");
            let name = message["params"]["name"].as_str();
            let mut headers = headers.to_vec();
            let mcp_name = name.unwrap_or_default().to_owned();
            if meta.is_some() {
                headers.push(("mcp-method", method));
                if name.is_some() {
                    headers.push(("mcp-name", &mcp_name));
                }
            }
            let lean_request = post(&message, &headers, allowed);
            let body = serde_json::to_vec(&message).expect("JSON");
            let (jsonrpc::Posted::Call {
                meta: read_meta, ..
            }
            | jsonrpc::Posted::List {
                meta: read_meta, ..
            }) = jsonrpc::read(&body)
            else {
                panic!("{message} is not read as a lean request");
            };
            assert!(endpoint.gate.admits(&lean_request), "{message}");
            assert!(
                endpoint
                    .gate
                    .era(lean_request.headers(), method, name, &read_meta)
                    .is_some(),
                "{message} would go to rmcp"
            );
            let lean = read(endpoint.handle(lean_request).await).await;
            let rmcp = read(endpoint.by_rmcp(post(&message, &headers, allowed)).await).await;
            assert_eq!(lean, rmcp, "{message}");
        }
    }

    #[tokio::test]
    async fn answers_match_rmcp_in_a_session() {
        let upstream = upstream().await;
        let endpoint = endpoint(
            server(&upstream),
            Sessions::InMemory {
                idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            },
        );
        let version = [("mcp-protocol-version", "2025-11-25")];
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "lean-test", "version": "1"}}});
        let opened = endpoint
            .handle(post(&initialize, &version, ToolsAllowed::All))
            .await;
        let session = opened.headers()[SESSION_ID]
            .to_str()
            .expect("an ID")
            .to_owned();
        assert_eq!(endpoint.sessions_alive().await, 1);
        let with_session = [version[0], (SESSION_ID, session.as_str())];
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let accepted = endpoint
            .handle(post(&initialized, &with_session, ToolsAllowed::All))
            .await;
        assert!(accepted.status().is_success());
        compare(&endpoint, &with_session, None).await;
        // Without the version header, as clients of 2025-03-26 post.
        compare(&endpoint, &with_session[1..], None).await;

        let delete = hyper::Request::delete("/mcp")
            .header("host", "localhost")
            .header(SESSION_ID, &session)
            .body(Full::new(Bytes::new()))
            .expect("a request");
        assert_eq!(endpoint.handle(delete).await.status(), 204);
        assert_eq!(endpoint.sessions_alive().await, 0);
        let gone = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
        let after = endpoint
            .handle(post(&gone, &with_session, ToolsAllowed::All))
            .await;
        assert_eq!(after.status(), 404, "a closed session is unknown");
    }

    #[tokio::test]
    async fn answers_match_rmcp_without_sessions() {
        let upstream = upstream().await;
        for sessions in [
            Sessions::Stateless,
            Sessions::InMemory {
                idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            },
        ] {
            let endpoint = endpoint(server(&upstream), sessions);
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "lean-test", "version": "1"},
            });
            compare(
                &endpoint,
                &[("mcp-protocol-version", "2026-07-28")],
                Some(&meta),
            )
            .await;
            if sessions == Sessions::Stateless {
                compare(&endpoint, &[("mcp-protocol-version", "2025-11-25")], None).await;
                compare(&endpoint, &[], None).await;
            }
        }
    }

    #[tokio::test]
    async fn an_idle_session_is_closed_in_rmcp_too() {
        let upstream = upstream().await;
        let endpoint = endpoint(
            server(&upstream),
            Sessions::InMemory {
                idle_timeout: Duration::from_millis(200),
            },
        );
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "lean-test", "version": "1"}}});
        let opened = endpoint
            .handle(post(&initialize, &[], ToolsAllowed::All))
            .await;
        let session = opened.headers()[SESSION_ID]
            .to_str()
            .expect("an ID")
            .to_owned();
        assert_eq!(endpoint.sessions_alive().await, 1);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(endpoint.sessions_alive().await, 0);
        assert!(endpoint.rmcp_sessions.sessions.read().await.is_empty());
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let after = endpoint
            .handle(post(&ping, &[(SESSION_ID, &session)], ToolsAllowed::All))
            .await;
        assert_eq!(after.status(), 404);
    }
}
