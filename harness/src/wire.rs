//! What the harness's MCP client sees on the wire, and the transport rules
//! it holds the gateway to there.
//!
//! Over Streamable HTTP the client is rmcp's, but the HTTP exchanges are
//! ours ([`ObservedHttp`]): every POST's status, headers and body bytes are
//! logged, and a POST carrying a request must be answered on its own
//! response (JSON or an SSE stream). A gateway that answers `202 Accepted`
//! and sends the result on the GET stream breaks the transport, a rule of
//! its own (TC-PROTO-008, judged by raw HTTP in that rule's scenarios).
//! Clients differ there: the official TypeScript SDK's takes the result
//! from the GET stream, the Python SDK's (2.x) fails the call. Elsewhere the
//! harness takes it, and the scenario carries a note: each rule is judged on
//! its own, not failed for a transport that rule is not about.
//! Over stdio the gateway's stdout is tapped ([`Tap`]). When a call never
//! answers, the [`WireLog`] says what came instead.

use std::{
    borrow::Cow,
    collections::{HashMap, VecDeque},
    fmt::Write as _,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
};

use bytes::Bytes;
use futures::{stream::BoxStream, StreamExt as _};
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use rmcp::{
    model::{ClientJsonRpcMessage, ServerJsonRpcMessage},
    transport::streamable_http_client::{
        SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    },
};
use sse_stream::{Sse, SseStream};
use tokio::io::{AsyncRead, ReadBuf};

/// Bytes of a body or stream kept for a message.
const KEEP: usize = 4096;
/// POSTs remembered.
const POSTS: usize = 8;
/// Largest JSON answer read (a 1 MB tool result, JSON-escaped, fits).
const MAX_JSON: usize = 16 * 1024 * 1024;
/// Largest error body read.
const MAX_ERROR: usize = 64 * 1024;

/// The last bytes of a stream, and how many there were in all.
#[derive(Debug, Default, Clone)]
struct Tail {
    bytes: VecDeque<u8>,
    total: usize,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len();
        self.bytes.extend(chunk);
        let excess = self.bytes.len().saturating_sub(KEEP);
        self.bytes.drain(..excess);
    }

    fn show(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let text = String::from_utf8_lossy(&[a, b].concat()).into_owned();
        if self.total > self.bytes.len() {
            format!("[… {} bytes before …]{text}", self.total - self.bytes.len())
        } else {
            text
        }
    }
}

/// One POST and what came back.
#[derive(Debug, Clone)]
struct Post {
    /// `tools/call (id 3)`, `notifications/initialized`, ...
    what: String,
    answer: Option<(u16, Vec<(String, String)>)>,
    body: Tail,
    error: Option<String>,
    /// A transport rule the answer broke.
    violation: Option<String>,
}

#[derive(Debug, Default)]
struct Log {
    /// Set when the session ends: its transport must not reach the network
    /// again, or a background retry could land on another scenario's
    /// listener once this gateway's port is free.
    closed: bool,
    posts: VecDeque<Post>,
    next_post: usize,
    get_stream: Option<Tail>,
    stdout: Tail,
    /// What stdout carried line by line: MCP messages, or anything else.
    stdout_lines: StdoutLines,
    /// The bytes of the largest SSE event's data received, on any stream:
    /// the official Python SDK refuses an event over 1 MiB (TC-PROTO-009).
    largest_event: usize,
}

impl Log {
    /// The POSTs kept that were sent at or after `mark`, in order.
    fn posts_since(&self, mark: Mark) -> impl Iterator<Item = &Post> {
        let first = self.next_post - self.posts.len();
        self.posts
            .iter()
            .enumerate()
            .filter(move |(index, _)| first + index >= mark.post)
            .map(|(_, post)| post)
    }
}

/// Everything one MCP session saw; cheap to clone, shared with the transport.
#[derive(Debug, Clone, Default)]
pub struct WireLog(Arc<Mutex<Log>>);

/// A point in a [`WireLog`], to describe only what came after it.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    post: usize,
    stdout: usize,
}

impl WireLog {
    fn with<R>(&self, f: impl FnOnce(&mut Log) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Ends the session: from now on its HTTP client sends nothing.
    pub fn close(&self) {
        self.with(|log| log.closed = true);
    }

    fn closed(&self) -> bool {
        self.with(|log| log.closed)
    }

    /// The first transport rule an answer broke since `mark`.
    pub fn violation(&self, mark: Mark) -> Option<String> {
        self.with(|log| {
            log.posts_since(mark)
                .find_map(|post| post.violation.clone())
        })
    }

    /// The HTTP status that answered the first POST since `mark`, if any.
    pub fn first_status(&self, mark: Mark) -> Option<u16> {
        self.with(|log| {
            log.posts_since(mark)
                .next()
                .and_then(|post| post.answer.as_ref().map(|(status, _)| *status))
        })
    }

    /// The bytes of the largest SSE event's data this session received.
    pub fn largest_event(&self) -> usize {
        self.with(|log| log.largest_event)
    }

    /// The lines on a stdio gateway's stdout so far that were not a JSON-RPC
    /// message: how many, and the first of them.
    pub fn stdout_strays(&self) -> (usize, Option<String>) {
        self.with(|log| {
            (
                log.stdout_lines.strays,
                log.stdout_lines.first_stray.clone(),
            )
        })
    }

    /// How many JSON-RPC messages a stdio gateway wrote on stdout so far.
    pub fn stdout_messages(&self) -> usize {
        self.with(|log| log.stdout_lines.messages)
    }

    fn saw_event(&self, event: &Sse) {
        let size = event.data.as_deref().map_or(0, str::len);
        self.with(|log| log.largest_event = log.largest_event.max(size));
    }

    /// Marks the present, before a call.
    pub fn mark(&self) -> Mark {
        self.with(|log| Mark {
            post: log.next_post,
            stdout: log.stdout.total,
        })
    }

    /// What was seen since `mark`: each POST with its status, headers and
    /// body, the GET stream, and for stdio the bytes on stdout.
    pub fn since(&self, mark: Mark) -> String {
        self.with(|log| {
            let mut out = String::new();
            let first = log.next_post - log.posts.len();
            for (index, post) in log.posts.iter().enumerate() {
                if first + index < mark.post {
                    continue;
                }
                let _ = write!(out, "\nPOST carrying {}: ", post.what);
                match &post.answer {
                    None => out.push_str("no HTTP answer yet"),
                    Some((status, headers)) => {
                        let _ = write!(out, "HTTP {status}");
                        for (name, value) in headers {
                            let _ = write!(out, "\n  {name}: {value}");
                        }
                        let _ = write!(out, "\n  body so far ({} bytes):", post.body.total);
                        if post.body.total > 0 {
                            let _ = write!(out, " {}", post.body.show());
                        }
                    }
                }
                if let Some(error) = &post.error {
                    let _ = write!(out, "\n  then: {error}");
                }
            }
            if let Some(stream) = &log.get_stream {
                let _ = write!(
                    out,
                    "\nGET stream, {} bytes in all: {}",
                    stream.total,
                    stream.show()
                );
            }
            if log.stdout.total > 0 {
                let _ = write!(
                    out,
                    "\nstdout: {} bytes since the call; its last bytes: {:?}",
                    log.stdout.total - mark.stdout,
                    log.stdout.show()
                );
            }
            if out.is_empty() {
                out.push_str("\nnothing at all");
            }
            out
        })
    }

    fn post(&self, what: String) -> usize {
        self.with(|log| {
            if log.posts.len() == POSTS {
                log.posts.pop_front();
            }
            log.posts.push_back(Post {
                what,
                answer: None,
                body: Tail::default(),
                error: None,
                violation: None,
            });
            log.next_post += 1;
            log.next_post - 1
        })
    }

    fn update(&self, post: usize, f: impl FnOnce(&mut Post)) {
        self.with(|log| {
            let first = log.next_post - log.posts.len();
            if let Some(entry) = post.checked_sub(first).and_then(|i| log.posts.get_mut(i)) {
                f(entry);
            }
        });
    }
}

/// An HTTP client for a gateway's endpoint. reqwest is built without a TLS
/// crypto provider (aws-lc, its default, takes a minute of a first build),
/// so ring is installed as the process's, unless one was chosen already.
pub fn http_client() -> reqwest::Client {
    // An error means a provider is installed already, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// An rmcp Streamable HTTP client that logs every exchange to a [`WireLog`].
#[derive(Debug, Clone)]
pub struct ObservedHttp {
    http: reqwest::Client,
    log: WireLog,
}

impl ObservedHttp {
    pub fn new(log: WireLog) -> Self {
        Self {
            http: http_client(),
            log,
        }
    }
}

type HttpError = StreamableHttpError<reqwest::Error>;

/// What a JSON-RPC message is, for the log: its method and id.
fn what(message: &ClientJsonRpcMessage) -> (String, bool) {
    let value = serde_json::to_value(message).unwrap_or_default();
    let method = value["method"].as_str().unwrap_or("a response");
    match value.get("id").filter(|_| value.get("method").is_some()) {
        Some(id) => (format!("{method} (id {id})"), true),
        None => (method.to_owned(), false),
    }
}

impl StreamableHttpClient for ObservedHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        if self.log.closed() {
            return Err(StreamableHttpError::TransportChannelClosed);
        }
        let (what, is_request) = what(&message);
        let entry = self.log.post(what.clone());
        let mut request = self
            .http
            .post(uri.as_ref())
            .header(ACCEPT, "application/json, text/event-stream")
            .json(&message);
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        if let Some(session) = &session_id {
            request = request.header("mcp-session-id", session.as_ref());
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => {
                self.log.update(entry, |p| {
                    p.error = Some(format!("the request failed: {error}"))
                });
                return Err(StreamableHttpError::Client(error));
            }
        };
        let status = response.status();
        let headers = response.headers();
        let shown = headers
            .iter()
            .map(|(n, v)| {
                (
                    n.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        self.log
            .update(entry, |p| p.answer = Some((status.as_u16(), shown)));
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let session = header("mcp-session-id");
        let content_type = header(CONTENT_TYPE.as_str()).unwrap_or_default();
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();

        if status.as_u16() == 202 || status.as_u16() == 204 {
            if is_request {
                let broken = format!(
                    "the gateway answered the POST carrying {what} with HTTP {status} and no \
                     result, then sent the result on another stream (TC-PROTO-008's matter: over \
                     Streamable HTTP a request is answered on its own POST response)"
                );
                self.log.update(entry, |p| p.violation = Some(broken));
            }
            // rmcp then waits for the result on the session's GET stream.
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status.as_u16() == 404 && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        if status.is_success() && media == "text/event-stream" {
            let log = self.log.clone();
            let bytes = response.bytes_stream().map(move |chunk| {
                if let Ok(chunk) = &chunk {
                    log.update(entry, |p| p.body.push(chunk));
                }
                chunk
            });
            let log = self.log.clone();
            let events: BoxStream<'static, Result<Sse, SseError>> =
                SseStream::from_bytes_stream(bytes)
                    .inspect(move |event| {
                        if let Ok(event) = event {
                            log.saw_event(event);
                        }
                    })
                    .boxed();
            return Ok(StreamableHttpPostResponse::Sse(events, session));
        }
        let limit = if status.is_success() {
            MAX_JSON
        } else {
            MAX_ERROR
        };
        let body = self.read_body(entry, response, limit).await?;
        if status.is_success() && body.is_empty() && !is_request {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        let parsed = serde_json::from_slice::<ServerJsonRpcMessage>(&body);
        match parsed {
            Ok(message)
                if status.is_success() || matches!(message, ServerJsonRpcMessage::Error(_)) =>
            {
                if status.is_success() && media != "application/json" && !media.ends_with("+json") {
                    return Err(StreamableHttpError::UnexpectedContentType(Some(
                        content_type,
                    )));
                }
                Ok(StreamableHttpPostResponse::Json(message, session))
            }
            _ => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!(
                    "HTTP {status} ({content_type}) answered the POST carrying {what}: {}",
                    String::from_utf8_lossy(&body[..body.len().min(1024)])
                ),
            ))),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        if self.log.closed() {
            return Ok(());
        }
        self.http
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        if self.log.closed() {
            return Err(StreamableHttpError::TransportChannelClosed);
        }
        let stream = self
            .http
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await?;
        self.log.with(|log| log.get_stream = Some(Tail::default()));
        let log = self.log.clone();
        Ok(stream
            .map(move |event| {
                if let Ok(event) = &event {
                    log.saw_event(event);
                    let text = format!(
                        "event: {}\ndata: {}\n\n",
                        event.event.as_deref().unwrap_or("message"),
                        event.data.as_deref().unwrap_or_default()
                    );
                    log.with(|log| {
                        if let Some(tail) = &mut log.get_stream {
                            tail.push(text.as_bytes());
                        }
                    });
                }
                event
            })
            .boxed())
    }
}

impl ObservedHttp {
    async fn read_body(
        &self,
        entry: usize,
        response: reqwest::Response,
        limit: usize,
    ) -> Result<Vec<u8>, HttpError> {
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk: Bytes = chunk.map_err(StreamableHttpError::Client)?;
            self.log.update(entry, |p| p.body.push(&chunk));
            if body.len() + chunk.len() > limit {
                return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!("an answer longer than {limit} bytes"),
                )));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// Judges a stdio gateway's stdout line by line: each line must be one
/// JSON-RPC message (TC-PROTO-001). rmcp's client skips a line it cannot
/// read, the official Python SDK's fails on it, so a banner or a log line
/// on stdout is seen here or nowhere.
#[derive(Debug, Default)]
struct StdoutLines {
    /// The line under way, up to its newline.
    line: Vec<u8>,
    /// Lines that were one JSON-RPC message each.
    messages: usize,
    strays: usize,
    first_stray: Option<String>,
}

/// The one field every JSON-RPC message has; reading it into this also
/// checks that the whole line is one JSON object.
#[derive(serde::Deserialize)]
struct JsonRpc<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
}

impl StdoutLines {
    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&bytes[..end]);
            let line = std::mem::take(&mut self.line);
            self.judge(&line);
            bytes = &bytes[end + 1..];
        }
        self.line.extend_from_slice(bytes);
    }

    fn judge(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let message = serde_json::from_slice::<JsonRpc>(line);
        if message.is_ok_and(|m| m.jsonrpc == "2.0") {
            self.messages += 1;
            return;
        }
        self.strays += 1;
        if self.first_stray.is_none() {
            let text = String::from_utf8_lossy(line);
            let shown: String = text.chars().take(200).collect();
            self.first_stray = Some(if shown.len() < text.len() {
                format!("{shown}…")
            } else {
                shown
            });
        }
    }
}

/// A stdio gateway's stdout, read by the MCP client and logged on the way.
pub struct Tap<R> {
    inner: R,
    log: WireLog,
}

impl<R> Tap<R> {
    pub fn new(inner: R, log: WireLog) -> Self {
        Self { inner, log }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Tap<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let new = &buf.filled()[before..];
        if !new.is_empty() {
            self.log.with(|log| {
                log.stdout.push(new);
                log.stdout_lines.feed(new);
            });
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_what_came_since_a_mark() {
        let log = WireLog::default();
        let first = log.post("initialize (id 0)".into());
        log.update(first, |p| p.answer = Some((200, vec![])));
        let mark = log.mark();
        let call = log.post("tools/call (id 1)".into());
        log.update(call, |p| {
            p.answer = Some((202, vec![("content-length".into(), "0".into())]));
        });
        let seen = log.since(mark);
        assert!(
            seen.contains("POST carrying tools/call (id 1): HTTP 202"),
            "{seen}"
        );
        assert!(seen.contains("content-length: 0"));
        assert!(!seen.contains("initialize"));
    }

    #[test]
    fn keeps_the_tail_of_long_streams() {
        let mut tail = Tail::default();
        tail.push(&vec![b'a'; KEEP]);
        tail.push(b"END");
        assert_eq!(tail.total, KEEP + 3);
        assert!(tail.show().starts_with("[… 3 bytes before …]"));
        assert!(tail.show().ends_with("END"));
    }

    #[test]
    fn tells_messages_from_other_lines_on_stdout() {
        let mut lines = StdoutLines::default();
        lines.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n{\"jsonrpc\":");
        lines.feed(b"\"2.0\",\"method\":\"x\"}\n");
        assert_eq!((lines.strays, lines.first_stray.as_deref()), (0, None));
        lines.feed(b"Gateway listening\n\n{\"jsonrpc\":\"1.0\"}\n{\"jsonrpc\":\"2.0\"} x\n");
        assert_eq!(lines.strays, 4);
        assert_eq!(lines.first_stray.as_deref(), Some("Gateway listening"));
    }

    #[test]
    fn an_empty_log_says_so() {
        let log = WireLog::default();
        assert_eq!(log.since(log.mark()), "\nnothing at all");
    }
}
