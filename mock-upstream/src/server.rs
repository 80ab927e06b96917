//! The front door: record each request, then answer it by its behaviour or by
//! forwarding it to the stubs.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::stream::{self, Stream, StreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderMap, HeaderValue, CONNECTION, CONTENT_TYPE, TRANSFER_ENCODING};
use hyper::http::request;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::behaviour::Behaviour;
use crate::record::RecordedRequest;
use crate::shared::{Shared, WIRE_LIMIT};

type Body = UnsyncBoxBody<Bytes, io::Error>;

/// Accepts connections until aborted; aborting it drops (and so aborts) every
/// connection task it started.
pub(crate) async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, stubs: SocketAddr) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve(stream, Arc::clone(&shared), stubs));
                }
                // Out of file descriptors, say: wait a little rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// What [`Behaviour::NotHttp`] sends instead of an answer.
const NOT_HTTP: &[u8] = b"SSH-2.0-OpenSSH_9.6 mock-upstream\r\n";

/// Serves one connection with hyper's HTTP/1 server.
async fn serve(stream: TcpStream, shared: Arc<Shared>, stubs: SocketAddr) -> io::Result<()> {
    // A second handle on the same socket, so that a `Reset` behaviour can set
    // `SO_LINGER` 0 on the socket hyper owns.
    let socket = stream.into_std()?;
    let handle = Arc::new(socket.try_clone()?);
    let stream = TcpStream::from_std(socket)?;

    let accepted = shared.new_connection();
    let connection = accepted.place;
    let stream = WireTap {
        inner: stream,
        received: accepted.received,
    };
    // Watched in this task, beside hyper: when the connection is dropped
    // (its scenario over, or the upstream refusing connections), so is the
    // watcher's copy of the socket, which would keep the connection open.
    let watched = Arc::clone(&handle);
    let closed = accepted.closed;
    let watching = note_close(Arc::clone(&watched), Arc::clone(&closed));

    let service = hyper::service::service_fn(move |request| {
        answer(
            request,
            Arc::clone(&shared),
            stubs,
            Arc::clone(&handle),
            connection,
        )
    });
    let serving =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::pin!(serving, watching);
    let mut noted = false;
    let served = loop {
        tokio::select! {
            served = &mut serving => break served,
            () = &mut watching, if !noted => noted = true,
        }
    };
    // hyper may see the client's close first, and end the connection.
    if !noted && client_closed(&watched) {
        note(&closed);
    }
    served.map_err(io::Error::other)
}

/// Notes when the client closes the connection, even while an answer is
/// held back (hyper itself sees it only when it next writes): the client's
/// own timing, seen from here. Looks at the socket every few milliseconds
/// without reading it, so hyper's reads are untouched.
async fn note_close(watched: Arc<std::net::TcpStream>, closed: Arc<Mutex<Option<Instant>>>) {
    while !client_closed(&watched) {
        tokio::time::sleep(CLOSE_WATCH).await;
    }
    note(&closed);
}

/// Whether the client has closed (or reset) its end: a look at the socket
/// that reads nothing.
fn client_closed(socket: &std::net::TcpStream) -> bool {
    let mut byte = [0u8; 1];
    match socket.peek(&mut byte) {
        // Open: nothing to read now, or bytes hyper has yet to read.
        Err(error) if error.kind() == io::ErrorKind::WouldBlock => false,
        Ok(n) => n == 0,
        Err(_) => true,
    }
}

fn note(closed: &Mutex<Option<Instant>>) {
    closed
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(Instant::now);
}

/// How often [`note_close`] looks.
const CLOSE_WATCH: Duration = Duration::from_millis(10);

/// Records the request, then answers it. An `Err` makes hyper drop the
/// connection without writing anything.
async fn answer(
    request: Request<Incoming>,
    shared: Arc<Shared>,
    stubs: SocketAddr,
    socket: Arc<std::net::TcpStream>,
    connection: usize,
) -> io::Result<Response<Body>> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.map_err(io::Error::other)?.to_bytes();
    let recorded = RecordedRequest::new(
        parts.method.to_string(),
        // `Uri` keeps the request-target's bytes as received: no dot-segment
        // resolution, no change to percent-encoding.
        parts.uri.to_string(),
        parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
            .collect(),
        body.to_vec(),
    );
    let behaviour = shared.behaviours().get(&recorded.path).cloned();
    shared.record(recorded, connection);

    match behaviour {
        None => Ok(forward(stubs, parts, body).await),
        Some(Behaviour::DelayHeaders(delay)) => {
            tokio::time::sleep(delay).await;
            Ok(forward(stubs, parts, body).await)
        }
        Some(Behaviour::Reset) => {
            socket2::SockRef::from(&*socket).set_linger(Some(Duration::ZERO))?;
            Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "mock-upstream resets this connection on purpose",
            ))
        }
        Some(Behaviour::Stall) => std::future::pending().await,
        Some(Behaviour::NotHttp) => {
            // Written past hyper, on the socket itself; the error then makes
            // hyper close the connection without writing anything of its own.
            io::Write::write_all(&mut &*socket, NOT_HTTP)?;
            Err(io::Error::other(
                "mock-upstream answers this connection with bytes that are not HTTP",
            ))
        }
        Some(Behaviour::Trickle {
            status,
            content_type,
            chunk,
            interval,
        }) => {
            let chunk = Bytes::from(chunk);
            let chunks = stream::unfold((), move |()| {
                let chunk = chunk.clone();
                async move {
                    tokio::time::sleep(interval).await;
                    Some((chunk, ()))
                }
            });
            Ok(streamed(status, &content_type, chunks))
        }
        Some(Behaviour::Endless {
            content_type,
            chunk,
        }) => {
            // An empty chunk would spin forever without sending a byte.
            let chunks = if chunk.is_empty() {
                stream::empty().boxed()
            } else {
                stream::repeat(Bytes::from(chunk)).boxed()
            };
            Ok(streamed(200, &content_type, chunks))
        }
        Some(Behaviour::Chunked {
            status,
            content_type,
            chunks,
            pause,
        }) => {
            let chunks = stream::iter(chunks.into_iter().enumerate()).then(move |(i, chunk)| {
                async move {
                    // hyper flushes what it has written while the next chunk waits.
                    if i > 0 {
                        tokio::time::sleep(pause).await;
                    }
                    Bytes::from(chunk)
                }
            });
            Ok(streamed(status, &content_type, chunks))
        }
    }
}

/// A response whose body is `chunks`, sent with chunked transfer-encoding.
/// An empty `content_type` sends no `Content-Type` header.
fn streamed<S>(status: u16, content_type: &str, chunks: S) -> Response<Body>
where
    S: Stream<Item = Bytes> + Send + 'static,
{
    let body = StreamBody::new(chunks.map(|chunk| Ok(Frame::data(chunk))));
    let mut response = Response::new(body.boxed_unsync());
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if !content_type.is_empty() {
        if let Ok(value) = HeaderValue::from_str(content_type) {
            response.headers_mut().insert(CONTENT_TYPE, value);
        }
    }
    response
}

/// Sends the request unchanged to the stubs and hands back their answer
/// verbatim. Redirects are answers like any other: nothing is followed.
async fn forward(stubs: SocketAddr, parts: request::Parts, body: Bytes) -> Response<Body> {
    match exchange_with_stubs(stubs, parts, body).await {
        Ok(response) => response,
        Err(error) => {
            let mut response = Response::new(full(format!(
                "mock-upstream could not reach its stubs: {error}"
            )));
            *response.status_mut() = StatusCode::BAD_GATEWAY;
            response
        }
    }
}

async fn exchange_with_stubs(
    stubs: SocketAddr,
    mut parts: request::Parts,
    body: Bytes,
) -> Result<Response<Body>, Box<dyn std::error::Error + Send + Sync>> {
    let stream = TcpStream::connect(stubs).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;

    parts.extensions = Default::default();
    remove_hop_by_hop(&mut parts.headers);
    let request = Request::from_parts(parts, Full::new(body));
    let exchange = async move {
        let response = sender.send_request(request).await?;
        let (parts, body) = response.into_parts();
        let body = body.collect().await?.to_bytes();
        Ok::<_, hyper::Error>((parts, body))
        // `sender` is dropped here, which lets `connection` finish.
    };
    let (answer, _) = tokio::join!(exchange, connection);
    let (mut parts, body) = answer?;

    remove_hop_by_hop(&mut parts.headers);
    Ok(Response::from_parts(parts, full(body)))
}

/// Headers about one connection, which must not be copied to another.
fn remove_hop_by_hop(headers: &mut HeaderMap) {
    headers.remove(CONNECTION);
    headers.remove(TRANSFER_ENCODING);
}

fn full(body: impl Into<Bytes>) -> Body {
    Full::new(body.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// A connection that keeps a copy of every byte it reads (up to
/// [`WIRE_LIMIT`]), so that even a request hyper refuses to parse is seen.
struct WireTap {
    inner: TcpStream,
    received: Arc<Mutex<Vec<u8>>>,
}

impl AsyncRead for WireTap {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let already = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let fresh = &buf.filled()[already..];
        if !fresh.is_empty() {
            let mut received = self.received.lock().unwrap_or_else(PoisonError::into_inner);
            let room = WIRE_LIMIT.saturating_sub(received.len());
            received.extend_from_slice(&fresh[..fresh.len().min(room)]);
        }
        polled
    }
}

impl AsyncWrite for WireTap {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
