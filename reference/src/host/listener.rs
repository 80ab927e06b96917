//! The HTTP listener: accepts connections within the [`Connections`]'
//! limits, serves each on a task of its own, closes it at its deadlines,
//! and drains on the way out.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::{TcpListener, TcpStream};

use super::agent_limits::ClientAddress;
use super::census;
use super::connections::{self, Admitted, Answering, Connections, Verdict, Watched};
use super::front;
use super::table::Table;

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
    connections: Arc<Connections>,
    census_interval: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut census = census::Census::every(census_interval);
    tokio::pin!(shutdown);
    let mut pause = ACCEPT_PAUSE_MIN;
    loop {
        let (stream, peer) = tokio::select! {
            () = census.due() => {
                census::report(&table.routes(), connections.open()).await;
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
        let admitted = match connections.admit(peer.ip()) {
            Ok(admitted) => admitted,
            Err(why) => {
                connections.closed(why);
                connections::refuse(stream, why);
                continue;
            }
        };
        // Each answer is written as soon as it is ready. With Nagle's
        // algorithm on, a response written in two segments (headers, then the
        // SSE event) waited for the client's delayed ACK: ~40 ms a call.
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve_connection(
            stream,
            ClientAddress(peer),
            admitted,
            Arc::clone(&table),
            Arc::clone(&connections),
            graceful.watcher(),
        ));
    }
    drop(listener);
    drain(&table, graceful).await;
    Ok(())
}

/// One connection, until the client closes it, it misses a deadline, or
/// the listener closes it for room.
async fn serve_connection(
    stream: TcpStream,
    client: ClientAddress,
    admitted: Admitted,
    table: Arc<Table>,
    connections: Arc<Connections>,
    watcher: Watcher,
) {
    let connection = Arc::clone(&admitted.connection);
    let answering = Arc::clone(&connection);
    let route = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        answering.request_started();
        let table = Arc::clone(&table);
        let connection = Arc::clone(&answering);
        async move {
            let response = front::answer(table, request, client).await;
            Ok::<_, Infallible>(response.map(|body| Answering::new(body, connection)))
        }
    });
    let io = TokioIo::new(Watched::new(stream, Arc::clone(&connection)));
    let served =
        watcher.watch(hyper::server::conn::http1::Builder::new().serve_connection(io, route));
    tokio::pin!(served);
    let deadline = tokio::time::sleep(Duration::ZERO);
    tokio::pin!(deadline);
    let evicted = connection.evicted();
    tokio::pin!(evicted);
    loop {
        tokio::select! {
            // A client that misbehaves only loses its own connection.
            _ = &mut served => break,
            () = &mut deadline => match connections.verdict(&connection) {
                Verdict::Until(at) => deadline.as_mut().reset(at),
                Verdict::Close(why) => {
                    connections.closed(why);
                    break;
                }
            },
            () = &mut evicted => break,
        }
    }
    drop(admitted);
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
