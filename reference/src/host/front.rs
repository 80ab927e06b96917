//! The HTTP listener: each request goes to the endpoint of the API its path
//! names, in the table as it is when the request arrives.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Either, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use hyper::StatusCode;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use super::census;
use super::table::{Hosted, Routes, Table};
use crate::agents::{Admitted, Bookkeeping, Reach, Refusal, METADATA_PREFIX};
use crate::mcp::{self, SplicedBody, ToolsAllowed};

/// The header MCP's Streamable HTTP carries a session's ID in.
const SESSION_ID: &str = "mcp-session-id";

/// The reason a refusal of another agent's session is counted under.
const SESSION_OF_ANOTHER: &str = "session_of_another";

/// The largest request body read before MCP to learn which tools it calls,
/// for an agent let in for some tools only.
const PEEKED_BODY_LIMIT: usize = 16 * 1024 * 1024;

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

/// TC-PROTO-001: serves every API of `table` over Streamable HTTP on
/// `listener` until `shutdown` completes, logging a census every
/// `census_interval` when the log levels ask for it.
pub async fn serve(
    listener: TcpListener,
    table: Arc<Table>,
    census_interval: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let connections = GracefulShutdown::new();
    let mut census = census::Census::every(census_interval);
    tokio::pin!(shutdown);
    let mut pause = ACCEPT_PAUSE_MIN;
    loop {
        let (stream, _peer) = tokio::select! {
            () = census.due() => {
                census::report(&table.routes(), connections.count()).await;
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
        let table = Arc::clone(&table);
        let watcher = connections.watcher();
        tokio::spawn(async move {
            let route = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let table = Arc::clone(&table);
                async move { Ok::<_, Infallible>(answer(&table, request).await) }
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
    drain(&table, connections).await;
    Ok(())
}

/// The answer to one request: the protected-resource metadata of an API,
/// or its endpoint's answer once its agent is let in; else 404.
async fn answer(table: &Table, request: hyper::Request<Incoming>) -> hyper::Response<SplicedBody> {
    let routes = table.routes();
    let path = request.uri().path();
    if let Some(resource) = path.strip_prefix(METADATA_PREFIX) {
        return metadata(&routes, resource);
    }
    let Some(hosted) = routes.find(path) else {
        return not_found(&routes);
    };
    // The table may change while the request is answered; the API it
    // reached answers it.
    let hosted = Arc::clone(hosted);
    drop(routes);
    let admitted = hosted
        .gate
        .admit(request.headers(), request.uri().query())
        .await;
    let admitted = match admitted {
        Ok(admitted) => admitted,
        Err(refusal) => return refused(table, &hosted, &refusal),
    };
    let allowed = match admitted.reach {
        Reach::All => ToolsAllowed::All,
        Reach::ReadOnly => ToolsAllowed::ReadOnly,
    };
    // Sessions are told apart by agent only where agents are told apart.
    let bound = hosted.gate.checks();
    let session = bound
        .then(|| request.headers().get(SESSION_ID)?.to_str().ok())
        .flatten()
        .map(str::to_owned);
    if let Some(id) = session.as_deref() {
        if !hosted.owners.may_use(id, &admitted.principal) {
            return session_of_another(table, &hosted, &admitted);
        }
    }
    let method = request.method().clone();
    let mut request = match allowed {
        ToolsAllowed::All => request.map(Either::Left),
        ToolsAllowed::ReadOnly => match within_reach(table, &hosted, request).await {
            Ok(request) => request.map(Either::Right),
            Err(response) => return response,
        },
    };
    request.extensions_mut().insert(allowed);
    let response = hosted.endpoint.handle(request).await;
    if bound {
        note_owner(&hosted, &method, session.as_deref(), &response, &admitted).await;
    }
    response
}

/// Keeps the owner of a session the answer opened, and forgets one it
/// closed or found gone.
async fn note_owner(
    hosted: &Hosted,
    method: &hyper::Method,
    asked: Option<&str>,
    response: &hyper::Response<SplicedBody>,
    admitted: &Admitted,
) {
    match asked {
        None => {
            let opened = response
                .headers()
                .get(SESSION_ID)
                .and_then(|id| id.to_str().ok());
            if let Some(id) = opened {
                if hosted.owners.opened(id, &admitted.principal) == Bookkeeping::Prune {
                    hosted
                        .owners
                        .keep_only(&hosted.endpoint.session_ids().await);
                }
            }
        }
        Some(id) => {
            let closed = *method == hyper::Method::DELETE && response.status().is_success();
            if closed || response.status() == StatusCode::NOT_FOUND {
                hosted.owners.ended(id);
            }
        }
    }
}

/// The answer to an agent that shows the ID of another agent's session:
/// the very answer MCP gives for a session that does not exist, so that
/// it learns nothing of it; logged and counted as a refusal.
fn session_of_another(
    table: &Table,
    hosted: &Hosted,
    admitted: &Admitted,
) -> hyper::Response<SplicedBody> {
    table
        .metrics()
        .refused(hosted.settings.metric_name(), SESSION_OF_ANOTHER);
    tracing::warn!(
        api = hosted.settings.name.as_deref(),
        agent = admitted.agent,
        "agent refused: it showed the ID of another agent's session"
    );
    let mut response = hyper::Response::new(SplicedBody::Whole(
        [Bytes::from_static(b"Not Found: Session not found")].into(),
    ));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// The request of an agent let in for read-only tools, read whole: refused
/// with 403 when it calls another tool, so that its client can ask for the
/// scope that lets it (step-up authorization).
async fn within_reach(
    table: &Table,
    hosted: &Hosted,
    request: hyper::Request<Incoming>,
) -> Result<hyper::Request<Full<Bytes>>, hyper::Response<SplicedBody>> {
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, PEEKED_BODY_LIMIT).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Err(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request's body is over {PEEKED_BODY_LIMIT} bytes, or broke off\n"),
            ))
        }
    };
    let server = hosted.endpoint.server();
    let beyond = mcp::tools_called(&body)
        .into_iter()
        .any(|name| !server.may_call(&name, ToolsAllowed::ReadOnly));
    if beyond {
        let needed = hosted.gate.write_scope().unwrap_or_default().to_owned();
        return Err(refused(
            table,
            hosted,
            &Refusal::ScopeInsufficient { needed },
        ));
    }
    Ok(hyper::Request::from_parts(parts, Full::new(body)))
}

/// An agent not let in: the status, challenge and catalogue message the
/// gate gives, logged and counted without what the agent showed.
fn refused(table: &Table, hosted: &Hosted, refusal: &Refusal) -> hyper::Response<SplicedBody> {
    let refused = hosted.gate.refused(refusal);
    table
        .metrics()
        .refused(hosted.settings.metric_name(), refusal.reason());
    tracing::info!(
        api = hosted.settings.name.as_deref(),
        reason = refusal.reason(),
        status = refused.status.as_u16(),
        "agent refused"
    );
    let mut response = plain(refused.status, format!("{}\n", refused.message));
    let headers = response.headers_mut();
    if let Some(challenge) = refused
        .challenge
        .and_then(|c| HeaderValue::from_str(&c).ok())
    {
        headers.insert(WWW_AUTHENTICATE, challenge);
    }
    if let Some(seconds) = refused.retry_after {
        headers.insert(RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// The protected-resource metadata (RFC 9728) of the API whose endpoint is
/// at `resource` (the root, for the one API of the flags).
fn metadata(routes: &Routes, resource: &str) -> hyper::Response<SplicedBody> {
    let hosted = match (resource, routes.apis()) {
        ("" | "/", [only]) => Some(only),
        _ => routes.find(resource),
    };
    match hosted.and_then(|hosted| hosted.gate.metadata()) {
        Some(document) => {
            let mut response = plain(StatusCode::OK, document.to_string());
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        None => plain(
            StatusCode::NOT_FOUND,
            "not found: no API here takes access tokens\n".to_owned(),
        ),
    }
}

fn not_found(routes: &Routes) -> hyper::Response<SplicedBody> {
    let text = match routes.apis() {
        [only] if only.settings.name.is_none() => "not found: MCP is served at /mcp\n".to_owned(),
        _ => "not found: this gateway serves MCP at /mcp/{name}, one endpoint for each API it \
              hosts\n"
            .to_owned(),
    };
    plain(StatusCode::NOT_FOUND, text)
}

/// A response of the gateway's own, in plain text unless said otherwise.
fn plain(status: StatusCode, text: String) -> hyper::Response<SplicedBody> {
    let mut response = hyper::Response::new(SplicedBody::Whole([Bytes::from(text)].into()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Stopping: new connections are refused (the listener is closed), calls
/// in flight are answered (each is bounded by the deadline), idle
/// connections close; what is left then, a session's stream that never ends
/// on its own, is closed by ending the sessions.
async fn drain(table: &Table, connections: GracefulShutdown) {
    table.metrics().set_ready(false);
    let routes = table.routes();
    let endpoints: Vec<_> = routes
        .apis()
        .iter()
        .map(|hosted| Arc::clone(&hosted.endpoint))
        .collect();
    let calls_in_flight: usize = endpoints.iter().map(|e| e.calls_in_flight()).sum();
    tracing::info!(calls_in_flight, "stopping");
    let answered = futures::future::join_all(endpoints.iter().map(|e| e.calls_answered()));
    let _ = tokio::time::timeout(DRAIN_CALLS, answered).await;
    let closed = connections.shutdown();
    tokio::pin!(closed);
    if tokio::time::timeout(DRAIN_ANSWERS, &mut closed)
        .await
        .is_err()
    {
        endpoints.iter().for_each(|e| e.end_sessions());
        let _ = tokio::time::timeout(DRAIN_STREAMS, closed).await;
    }
    endpoints.iter().for_each(|e| e.end_sessions());
    tracing::info!("stopped");
}
