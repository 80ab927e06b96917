//! The listener's defences, before any request is read: how many
//! connections it holds, and how long it waits on each.
//!
//! - A connection must send a request's head within the head deadline of
//!   its first byte (of being accepted, for a new one); one that has
//!   answered a request may wait idle for the next no longer than the
//!   keep-alive timeout; an answer the client does not read makes no
//!   progress for no longer than the send timeout. Past any of them the
//!   connection is closed. (A body's own deadline is a layer of each API,
//!   [`super::deadline`].)
//! - At most [`ConnectionLimits::max_open`] connections are held, well
//!   below the process's descriptor limit, and at most `per_client` from
//!   one address when set. At the cap, the connection that has waited idle
//!   longest, from the address holding the most, is closed to make room:
//!   a client that only opens connections loses its own, never another
//!   agent's place. When every connection is busy, a new one gets `503`
//!   and is closed.
//!
//! The clock is checked by a timer per connection that fires at its next
//! deadline only, and the state it reads is kept in atomics by the
//! connection's reads and writes and by its requests' start and end.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use crate::errors::AgentMessage;
use crate::watch::Metrics;

/// What the listener holds and how long it waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    pub max_open: usize,
    /// The most connections one client address may hold.
    pub per_client: Option<usize>,
    pub head_timeout: Duration,
    pub idle_timeout: Duration,
    pub send_timeout: Duration,
}

/// The deadlines unless the operator says otherwise.
pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// Descriptors kept for all but client connections, besides one per call
/// in flight (its upstream connection): the listeners, the admin
/// listener's connections, files read on a reload, the authorization
/// servers and the limits store, and the pool's idle connections.
const RESERVED_DESCRIPTORS: usize = 128;

/// The most client connections a process whose descriptor limit is
/// `limit`, serving `calls_in_flight` calls at once, may hold: the limit
/// less the reserve, and at least half of it under a limit too small for
/// the whole reserve.
pub fn max_open_below(limit: u64, calls_in_flight: usize) -> usize {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let reserved = RESERVED_DESCRIPTORS + calls_in_flight.saturating_mul(3) / 2;
    limit - reserved.min(limit / 2)
}

/// The process's limit on open descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptors {
    /// The soft limit the process was started with.
    pub before: u64,
    /// The soft limit now, raised to the hard limit.
    pub now: u64,
}

/// The descriptor limit, raised to the hard limit first as Go's runtime
/// and nginx (`worker_rlimit_nofile`) do.
pub fn descriptor_limit() -> io::Result<Descriptors> {
    let (before, _) = rlimit::Resource::NOFILE.get()?;
    let now = rlimit::increase_nofile_limit(u64::MAX)?;
    Ok(Descriptors { before, now })
}

/// Why the gateway closed or refused a connection, as metrics name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    HeadTimeout,
    IdleTimeout,
    SendTimeout,
    Evicted,
    Full,
    ClientFull,
}

impl Closed {
    pub fn name(self) -> &'static str {
        match self {
            Closed::HeadTimeout => "head_timeout",
            Closed::IdleTimeout => "idle_timeout",
            Closed::SendTimeout => "send_timeout",
            Closed::Evicted => "evicted",
            Closed::Full => "full",
            Closed::ClientFull => "client_full",
        }
    }
}

/// Every connection the listener holds.
pub struct Connections {
    limits: ConnectionLimits,
    metrics: Arc<Metrics>,
    /// Milliseconds are counted from here.
    epoch: Instant,
    next_id: AtomicU64,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    by_id: HashMap<u64, Arc<Connection>>,
    by_address: HashMap<IpAddr, usize>,
}

/// "Not set", for the times kept in milliseconds.
const NEVER: u64 = u64::MAX;

/// One connection's state, as its reads, writes and requests keep it.
pub struct Connection {
    id: u64,
    address: IpAddr,
    epoch: Instant,
    accepted: u64,
    in_flight: AtomicUsize,
    /// Whether it has answered a request (then it waits as a keep-alive).
    answered: AtomicBool,
    /// Since when it waits for a request (accepted, or its last answer).
    waiting_since: AtomicU64,
    /// The first byte of a request not yet read whole; `NEVER` for none.
    head_started: AtomicU64,
    /// Since when a write waits on the client; `NEVER` when none does.
    write_stalled: AtomicU64,
    evict: CancellationToken,
}

/// A connection taken in, let go of (and uncounted) when dropped.
pub struct Admitted {
    connections: Arc<Connections>,
    pub connection: Arc<Connection>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.connections.release(&self.connection);
    }
}

/// What the connection's timer finds.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing is due before this.
    Until(Instant),
    Close(Closed),
}

impl Connections {
    pub fn new(limits: ConnectionLimits, metrics: Arc<Metrics>) -> Arc<Connections> {
        Arc::new(Connections {
            limits,
            metrics,
            epoch: Instant::now(),
            next_id: AtomicU64::new(0),
            held: Mutex::new(Held::default()),
        })
    }

    pub fn limits(&self) -> ConnectionLimits {
        self.limits
    }

    /// How many are open now.
    pub fn open(&self) -> usize {
        self.lock().by_id.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now(&self) -> u64 {
        millis(self.epoch, Instant::now())
    }

    /// Takes in a connection from `address`, closing an idle one to make
    /// room at the cap, or says why it is refused.
    pub fn admit(self: &Arc<Self>, address: IpAddr) -> Result<Admitted, Closed> {
        let now = self.now();
        let mut held = self.lock();
        let from_address = held.by_address.get(&address).copied().unwrap_or(0);
        if self
            .limits
            .per_client
            .is_some_and(|most| from_address >= most)
        {
            return Err(Closed::ClientFull);
        }
        if held.by_id.len() >= self.limits.max_open {
            let victim = idlest(&held).ok_or(Closed::Full)?;
            // Uncounted now, so that a flood of new connections cannot
            // evict the same idle one over and over.
            held.by_id.remove(&victim.id);
            forget_address(&mut held, victim.address);
            victim.evict.cancel();
            self.metrics.connection_closed(Closed::Evicted.name());
        }
        let connection = Arc::new(Connection {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            address,
            epoch: self.epoch,
            accepted: now,
            in_flight: AtomicUsize::new(0),
            answered: AtomicBool::new(false),
            waiting_since: AtomicU64::new(now),
            head_started: AtomicU64::new(NEVER),
            write_stalled: AtomicU64::new(NEVER),
            evict: CancellationToken::new(),
        });
        held.by_id.insert(connection.id, Arc::clone(&connection));
        *held.by_address.entry(address).or_insert(0) += 1;
        drop(held);
        self.metrics.connection_opened();
        Ok(Admitted {
            connections: Arc::clone(self),
            connection,
        })
    }

    fn release(&self, connection: &Connection) {
        let mut held = self.lock();
        if held.by_id.remove(&connection.id).is_some() {
            forget_address(&mut held, connection.address);
        }
        drop(held);
        self.metrics.connection_ended();
    }

    /// Counts a connection closed for `why`.
    pub fn closed(&self, why: Closed) {
        self.metrics.connection_closed(why.name());
    }

    /// What is due on `connection` now. Nothing wakes the connection's timer
    /// when a request starts or ends, or a head's first byte comes, so that
    /// a busy connection costs no timer work a request: while something may
    /// change, the timer comes back at most a head deadline later, and a
    /// deadline is missed by no more than that.
    pub fn verdict(&self, connection: &Connection) -> Verdict {
        let now = self.now();
        let limits = &self.limits;
        let at = |from: u64, after: Duration| from.saturating_add(after.as_millis() as u64);
        let look_again = at(
            now,
            limits
                .send_timeout
                .min(limits.idle_timeout)
                .min(limits.head_timeout),
        );
        let (due, why) = if connection.in_flight.load(Ordering::Acquire) > 0 {
            match connection.write_stalled.load(Ordering::Acquire) {
                NEVER => (look_again, None),
                stalled => (at(stalled, limits.send_timeout), Some(Closed::SendTimeout)),
            }
        } else {
            match connection.head_started.load(Ordering::Acquire) {
                NEVER if connection.answered.load(Ordering::Acquire) => {
                    let idle = at(
                        connection.waiting_since.load(Ordering::Acquire),
                        limits.idle_timeout,
                    );
                    match idle <= look_again {
                        true => (idle, Some(Closed::IdleTimeout)),
                        false => (look_again, None),
                    }
                }
                NEVER => (
                    at(connection.accepted, limits.head_timeout),
                    Some(Closed::HeadTimeout),
                ),
                started => (at(started, limits.head_timeout), Some(Closed::HeadTimeout)),
            }
        };
        match why {
            Some(why) if due <= now => Verdict::Close(why),
            _ => Verdict::Until(self.epoch + Duration::from_millis(due.max(now + 1))),
        }
    }
}

/// The connection to close for room: idle (no request in flight), from
/// the address holding the most, waiting longest.
fn idlest(held: &Held) -> Option<Arc<Connection>> {
    held.by_id
        .values()
        .filter(|connection| connection.in_flight.load(Ordering::Acquire) == 0)
        .max_by_key(|connection| {
            let from_address = held.by_address.get(&connection.address).copied();
            let since = connection.waiting_since.load(Ordering::Acquire);
            (from_address, std::cmp::Reverse(since))
        })
        .cloned()
}

fn forget_address(held: &mut Held, address: IpAddr) {
    if let Some(count) = held.by_address.get_mut(&address) {
        *count -= 1;
        if *count == 0 {
            held.by_address.remove(&address);
        }
    }
}

fn millis(epoch: Instant, at: Instant) -> u64 {
    at.saturating_duration_since(epoch).as_millis() as u64
}

impl Connection {
    fn now(&self) -> u64 {
        millis(self.epoch, Instant::now())
    }

    /// A request's head was read: it is in flight until its answer ends.
    pub fn request_started(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.head_started.store(NEVER, Ordering::Release);
    }

    /// A request's answer was written (or dropped).
    pub fn request_ended(&self) {
        self.answered.store(true, Ordering::Release);
        self.waiting_since.store(self.now(), Ordering::Release);
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }

    /// Completes when the listener closes this connection for room.
    pub fn evicted(&self) -> WaitForCancellationFutureOwned {
        self.evict.clone().cancelled_owned()
    }

    fn read_some(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0
            && self.head_started.load(Ordering::Acquire) == NEVER
        {
            self.head_started.store(self.now(), Ordering::Release);
        }
    }

    fn write_waits(&self) {
        if self.write_stalled.load(Ordering::Acquire) == NEVER {
            self.write_stalled.store(self.now(), Ordering::Release);
        }
    }

    fn wrote_some(&self) {
        self.write_stalled.store(NEVER, Ordering::Release);
    }
}

/// A client's socket, telling its connection of every read and write.
pub struct Watched {
    stream: TcpStream,
    connection: Arc<Connection>,
}

impl Watched {
    pub fn new(stream: TcpStream, connection: Arc<Connection>) -> Watched {
        Watched { stream, connection }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.connection.read_some();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.wrote(&polled);
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.wrote(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

impl Watched {
    fn wrote(&self, polled: &Poll<io::Result<usize>>) {
        match polled {
            Poll::Pending => self.connection.write_waits(),
            Poll::Ready(Ok(written)) if *written > 0 => self.connection.wrote_some(),
            Poll::Ready(_) => {}
        }
    }
}

/// An answer's body that ends its request when it is done with (written
/// whole, or dropped with its connection).
pub struct Answering<B> {
    body: B,
    connection: Arc<Connection>,
}

impl<B> Answering<B> {
    pub fn new(body: B, connection: Arc<Connection>) -> Self {
        Answering { body, connection }
    }
}

impl<B> Drop for Answering<B> {
    fn drop(&mut self) {
        self.connection.request_ended();
    }
}

impl<B: HttpBody<Data = Bytes> + Unpin> HttpBody for Answering<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Tells a connection refused at once why, as far as it will read, and
/// closes it: a plain `503` with `Retry-After`, written without waiting.
/// What the client sent already is read first, so that the close is not a
/// reset that could throw the answer away.
pub fn refuse(stream: TcpStream, why: Closed) {
    let mut sent = [0u8; 4096];
    while matches!(stream.try_read(&mut sent), Ok(read) if read > 0) {}
    let said = match why {
        Closed::ClientFull => "your address holds as many connections as one client may",
        _ => "it holds as many connections as it may, each busy",
    };
    let text = format!("{}\n", AgentMessage::GatewayFull { why: said }.render());
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{text}",
        text.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_for_the_calls_and_files() {
        assert_eq!(max_open_below(4096, 128), 4096 - 128 - 192);
        assert_eq!(max_open_below(1024, 128), 1024 - 320);
        assert_eq!(max_open_below(32, 128), 16, "half, under a tiny limit");
        assert_eq!(max_open_below(1, 128), 1);
    }

    fn connections(max_open: usize, per_client: Option<usize>) -> Arc<Connections> {
        Connections::new(
            ConnectionLimits {
                max_open,
                per_client,
                head_timeout: Duration::from_secs(10),
                idle_timeout: Duration::from_secs(60),
                send_timeout: Duration::from_secs(30),
            },
            Arc::new(Metrics::new()),
        )
    }

    fn at(address: &str) -> IpAddr {
        address.parse().expect("an address")
    }

    #[tokio::test(start_paused = true)]
    async fn at_the_cap_the_idlest_of_the_busiest_address_makes_room() {
        let connections = connections(3, None);
        let mine = connections.admit(at("10.0.0.1")).expect("room");
        mine.connection.request_started();
        tokio::time::advance(Duration::from_secs(1)).await;
        let first = connections.admit(at("10.0.0.9")).expect("room");
        tokio::time::advance(Duration::from_secs(1)).await;
        let second = connections.admit(at("10.0.0.9")).expect("room");
        let third = connections.admit(at("10.0.0.2")).expect("room made");
        assert_eq!(connections.open(), 3);
        // The first of the address holding two, idle longest, made room.
        tokio::time::timeout(Duration::from_millis(1), first.connection.evicted())
            .await
            .expect("told to close");
        drop(first);
        assert_eq!(connections.open(), 3, "uncounted once, when evicted");
        drop((second, third));
        // A busy connection is never closed for room: at the cap with every
        // connection busy, a new one is refused.
        let busy = connections.admit(at("10.0.0.3")).expect("room");
        busy.connection.request_started();
        let other = connections.admit(at("10.0.0.4")).expect("room");
        other.connection.request_started();
        assert_eq!(connections.admit(at("10.0.0.5")).err(), Some(Closed::Full));
        drop(mine);
    }

    #[tokio::test(start_paused = true)]
    async fn one_client_holds_no_more_than_its_share() {
        let connections = connections(10, Some(2));
        let _one = connections.admit(at("10.0.0.1")).expect("room");
        let _two = connections.admit(at("10.0.0.1")).expect("room");
        assert_eq!(
            connections.admit(at("10.0.0.1")).err(),
            Some(Closed::ClientFull)
        );
        assert!(connections.admit(at("10.0.0.2")).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn each_wait_has_its_deadline() {
        let connections = connections(10, None);
        let admitted = connections.admit(at("10.0.0.1")).expect("room");
        let connection = &admitted.connection;
        // A new connection that sends nothing: the head deadline.
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(
            connections.verdict(connection),
            Verdict::Close(Closed::HeadTimeout)
        );
        // A request, answered: then the keep-alive deadline, from the answer.
        connection.request_started();
        assert!(matches!(connections.verdict(connection), Verdict::Until(_)));
        connection.request_ended();
        tokio::time::advance(Duration::from_secs(59)).await;
        assert!(matches!(connections.verdict(connection), Verdict::Until(_)));
        // A byte of the next head starts the head deadline.
        connection.read_some();
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(
            connections.verdict(connection),
            Verdict::Close(Closed::HeadTimeout)
        );
        // An answer the client does not read: the send deadline.
        connection.request_started();
        connection.write_waits();
        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(matches!(connections.verdict(connection), Verdict::Until(_)));
        connection.wrote_some();
        connection.write_waits();
        tokio::time::advance(Duration::from_secs(30)).await;
        assert_eq!(
            connections.verdict(connection),
            Verdict::Close(Closed::SendTimeout)
        );
        // Idle after an answer, past the keep-alive timeout.
        connection.request_ended();
        tokio::time::advance(Duration::from_secs(60)).await;
        assert_eq!(
            connections.verdict(connection),
            Verdict::Close(Closed::IdleTimeout)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_let_go_of_frees_its_place_and_its_address_s() {
        let connections = connections(10, Some(2));
        let first = connections.admit(at("10.0.0.1")).expect("room");
        let _second = connections.admit(at("10.0.0.1")).expect("room");
        drop(first);
        assert_eq!(connections.open(), 1);
        // The address holds one again: one more, and no further.
        let _third = connections.admit(at("10.0.0.1")).expect("room again");
        assert_eq!(
            connections.admit(at("10.0.0.1")).err(),
            Some(Closed::ClientFull)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_timer_is_always_set_ahead() {
        // Zero deadlines: nothing is due while a request is in flight, and
        // the timer still comes back later, never at once.
        let connections = Connections::new(
            ConnectionLimits {
                max_open: 10,
                per_client: None,
                head_timeout: Duration::ZERO,
                idle_timeout: Duration::ZERO,
                send_timeout: Duration::ZERO,
            },
            Arc::new(Metrics::new()),
        );
        let admitted = connections.admit(at("10.0.0.1")).expect("room");
        admitted.connection.request_started();
        tokio::time::advance(Duration::from_secs(5)).await;
        match connections.verdict(&admitted.connection) {
            Verdict::Until(at) => assert!(at > Instant::now()),
            closed => panic!("closed while in flight: {closed:?}"),
        }
    }

    #[tokio::test]
    async fn closes_are_counted_by_reason() {
        let metrics = Arc::new(Metrics::new());
        let connections = Connections::new(connections(1, None).limits(), Arc::clone(&metrics));
        for why in [
            Closed::HeadTimeout,
            Closed::IdleTimeout,
            Closed::SendTimeout,
        ] {
            connections.closed(why);
        }
        let _held = connections.admit(at("10.0.0.1")).expect("room");
        let _evicting = connections.admit(at("10.0.0.2")).expect("room made");
        let text = metrics.encode();
        for reason in ["head_timeout", "idle_timeout", "send_timeout", "evicted"] {
            let series = format!("hosted_mcp_connections_closed_total{{reason=\"{reason}\"}} 1");
            assert!(text.contains(&series), "{series} in:\n{text}");
        }
        let names: Vec<_> = [Closed::Full, Closed::ClientFull].map(Closed::name).into();
        assert_eq!(names, ["full", "client_full"]);
    }

    /// A loopback connection: the gateway's end, watched, and the client's.
    async fn watched_pair(connections: &Arc<Connections>) -> (Watched, TcpStream, Admitted) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let client = TcpStream::connect(listener.local_addr().expect("an address"))
            .await
            .expect("connected");
        let (server, peer) = listener.accept().await.expect("accepted");
        let admitted = connections.admit(peer.ip()).expect("room");
        let watched = Watched::new(server, Arc::clone(&admitted.connection));
        (watched, client, admitted)
    }

    fn waker_context() -> Context<'static> {
        Context::from_waker(futures::task::noop_waker_ref())
    }

    #[tokio::test]
    async fn a_byte_read_starts_the_head_deadline_and_nothing_else_does() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let connections = connections(10, None);
        let (mut watched, mut client, admitted) = watched_pair(&connections).await;
        let head_started = || admitted.connection.head_started.load(Ordering::Acquire);
        // Nothing to read yet.
        let mut buf = [0u8; 64];
        let mut read_buf = ReadBuf::new(&mut buf);
        let polled = Pin::new(&mut watched).poll_read(&mut waker_context(), &mut read_buf);
        assert!(polled.is_pending());
        assert_eq!(head_started(), NEVER);

        client.write_all(b"GET / HTTP/1.1\r\n").await.expect("sent");
        let read = watched.read(&mut buf).await.expect("read");
        assert_eq!(&buf[..read], b"GET / HTTP/1.1\r\n");
        assert_ne!(head_started(), NEVER);

        // The end of the stream is no byte of a head.
        let (mut watched, client, admitted) = watched_pair(&connections).await;
        drop(client);
        assert_eq!(watched.read(&mut buf).await.expect("the end"), 0);
        assert_eq!(
            admitted.connection.head_started.load(Ordering::Acquire),
            NEVER
        );

        // Nor is a byte read while a request is in flight (its body).
        admitted.connection.request_started();
        admitted.connection.read_some();
        assert_eq!(
            admitted.connection.head_started.load(Ordering::Acquire),
            NEVER
        );
    }

    #[tokio::test]
    async fn a_write_the_client_does_not_read_starts_the_send_deadline() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let connections = connections(10, None);
        let (mut watched, mut client, admitted) = watched_pair(&connections).await;
        let stalled = || admitted.connection.write_stalled.load(Ordering::Acquire);
        // Writing nothing is no progress; a byte is.
        admitted.connection.write_waits();
        let nothing = Pin::new(&mut watched).poll_write(&mut waker_context(), &[]);
        assert!(matches!(nothing, Poll::Ready(Ok(0))));
        assert_ne!(stalled(), NEVER);
        let byte = Pin::new(&mut watched).poll_write(&mut waker_context(), b"x");
        assert!(matches!(byte, Poll::Ready(Ok(1))));
        assert_eq!(stalled(), NEVER);

        let chunk = vec![b'x'; 64 * 1024];
        let mut written = 1;
        // Until the socket's buffers are full.
        for _ in 0..10_000 {
            match Pin::new(&mut watched).poll_write(&mut waker_context(), &chunk) {
                Poll::Ready(Ok(0)) => panic!("a write took nothing"),
                Poll::Ready(Ok(n)) => written += n,
                Poll::Ready(Err(error)) => panic!("{error}"),
                Poll::Pending => break,
            }
        }
        assert_ne!(stalled(), NEVER, "{written} bytes written and never waited");

        // The client reads all: the next write goes, and the wait is over.
        let reader = tokio::spawn(async move {
            let mut got = vec![0u8; written];
            client.read_exact(&mut got).await.expect("read");
            got.iter().all(|byte| *byte == b'x')
        });
        watched.write_all(b"x").await.expect("written");
        assert_eq!(stalled(), NEVER);
        assert!(reader.await.expect("the reader"));
    }

    #[tokio::test]
    async fn writes_and_the_end_reach_the_client_whole() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let connections = connections(10, None);
        let (mut watched, mut client, _admitted) = watched_pair(&connections).await;
        assert!(watched.is_write_vectored());
        let parts = [
            io::IoSlice::new(b"HTTP/1.1 200 OK\r\n"),
            io::IoSlice::new(b"\r\n"),
        ];
        assert_eq!(watched.write_vectored(&parts).await.expect("written"), 19);
        watched.write_all(b"done").await.expect("written");
        watched.flush().await.expect("flushed");
        watched.shutdown().await.expect("shut down");
        let mut got = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), client.read_to_end(&mut got))
            .await
            .expect("the end reached the client")
            .expect("read");
        assert_eq!(got, b"HTTP/1.1 200 OK\r\n\r\ndone");
    }

    #[tokio::test]
    async fn an_answer_s_body_passes_whole_and_ends_its_request() {
        use http_body_util::{BodyExt as _, Full};
        let connections = connections(10, None);
        let admitted = connections.admit(at("10.0.0.1")).expect("room");
        let connection = &admitted.connection;
        connection.request_started();
        let body = Answering::new(
            Full::new(Bytes::from_static(b"answer")),
            Arc::clone(connection),
        );
        assert_eq!(body.size_hint().exact(), Some(6));
        assert!(!body.is_end_stream());
        let read = body.collect().await.expect("read").to_bytes();
        assert_eq!(read, "answer");
        assert_eq!(connection.in_flight.load(Ordering::Acquire), 0);
        assert!(connection.answered.load(Ordering::Acquire));

        connection.request_started();
        let empty = Answering::new(Full::new(Bytes::new()), Arc::clone(connection));
        assert!(empty.is_end_stream());
    }

    #[tokio::test]
    async fn a_connection_refused_is_told_why() {
        use tokio::io::AsyncReadExt as _;
        for (why, said) in [
            (Closed::ClientFull, "your address holds as many connections"),
            (Closed::Full, "each busy"),
        ] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a port");
            let mut client = TcpStream::connect(listener.local_addr().expect("an address"))
                .await
                .expect("connected");
            let (server, _) = listener.accept().await.expect("accepted");
            refuse(server, why);
            let mut got = String::new();
            tokio::time::timeout(Duration::from_secs(10), client.read_to_string(&mut got))
                .await
                .expect("closed")
                .expect("read");
            assert!(
                got.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
                "{got}"
            );
            assert!(
                got.contains("retry-after: 1\r\n") && got.contains(said),
                "{got}"
            );
        }
    }
}
