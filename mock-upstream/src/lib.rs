//! Loopback upstream for the conformance harness.
//!
//! An [`Upstream`] is the API a gateway under test calls. It listens on
//! `127.0.0.1` on a port of its own and does two jobs:
//!
//! - **It records every request exactly as it arrived**: method, the raw
//!   request-target (`/a/%2e%2e/b` stays `/a/%2e%2e/b`, `/a/../b` stays
//!   `/a/../b`), headers and body bytes. Read them with [`Upstream::requests`].
//!   wiremock cannot do this itself: its `Request` goes through the `url`
//!   crate, which resolves dot segments. The bytes of every connection are
//!   kept too ([`Upstream::wire_bytes`]), so that even a request too
//!   malformed to parse leaves a trace.
//! - **It answers**, either with an ordinary [wiremock] stub mounted on
//!   [`Upstream::stubs`] (the request is forwarded there unchanged, and the
//!   stub's status, headers and body come back verbatim, redirects included),
//!   or with a [`Behaviour`] registered for the request's raw path, for what a
//!   stub cannot express: resetting the connection, never answering, slow or
//!   endless bodies, and bodies sent in chosen chunks.
//!
//! A request that matches no stub and no behaviour gets wiremock's `404`.
//!
//! The API may live under a base path ([`Upstream::set_base_path`]), and the
//! upstream can stop listening altogether ([`Upstream::refuse_connections`]).
//!
//! One upstream can serve one test after another: [`Upstream::reset`]
//! forgets every stub, behaviour and recorded request, so that a gateway
//! launched against its base URL can be used again by the next test.
//!
//! Dropping the `Upstream` stops its listener and every connection it is
//! serving, endless bodies included.
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use mock_upstream::{Behaviour, Upstream};
//! use wiremock::matchers::{method, path};
//! use wiremock::{Mock, ResponseTemplate};
//!
//! # async fn example() -> std::io::Result<()> {
//! let upstream = Upstream::start().await?;
//!
//! // An ordinary answer: a wiremock stub.
//! Mock::given(method("GET"))
//!     .and(path("/pets"))
//!     .respond_with(ResponseTemplate::new(200).set_body_string("[]"))
//!     .mount(upstream.stubs())
//!     .await;
//!
//! // What wiremock cannot do: keyed by the exact raw path.
//! upstream.set_behaviour("/slow", Behaviour::DelayHeaders(Duration::from_secs(20)));
//! upstream.set_behaviour("/broken", Behaviour::Reset);
//!
//! // ... point the gateway at `upstream.base_url()` and call it ...
//!
//! for request in upstream.requests() {
//!     println!("{} {}", request.method, request.target);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Limits
//!
//! The front door is a hyper HTTP/1 server. A request hyper itself rejects as
//! malformed (a header name with a space in it, say) is
//! answered `400` by hyper and is not in [`Upstream::requests`]; its bytes are
//! in [`Upstream::wire_bytes`].
//!
//! Dropping an [`Upstream`] never blocks: wiremock's own server waits for a
//! lock in its `Drop`, which can spin forever inside a Tokio task that has
//! used up its cooperative budget, so it is dropped on a thread of its own.

mod behaviour;
mod record;
mod server;
mod shared;

use std::net::SocketAddr;
use std::ops::Deref;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use wiremock::MockServer;

pub use behaviour::Behaviour;
pub use record::RecordedRequest;
pub use shared::WIRE_LIMIT;

use shared::Shared;

/// A loopback upstream for one scenario. See the [crate docs](crate).
pub struct Upstream {
    addr: SocketAddr,
    stubs: Stubs,
    shared: Arc<Shared>,
    base_path: Mutex<String>,
    /// `None` once the upstream refuses connections.
    accept_loop: Mutex<Option<JoinHandle<()>>>,
    /// Once connections are refused: a socket bound to the port but not
    /// listening, so that no other process takes the port and accepts.
    reserved: Mutex<Option<tokio::net::TcpSocket>>,
}

impl Upstream {
    /// Starts an upstream on a free port of `127.0.0.1`, with a fresh
    /// wiremock server behind it. Must be called inside a Tokio runtime.
    pub async fn start() -> std::io::Result<Upstream> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let stubs = MockServer::start().await;
        let shared = Arc::new(Shared::default());
        let accept_loop = tokio::spawn(server::accept_loop(
            listener,
            Arc::clone(&shared),
            *stubs.address(),
        ));
        Ok(Upstream {
            addr,
            stubs: Stubs(Some(stubs)),
            shared,
            base_path: Mutex::default(),
            accept_loop: Mutex::new(Some(accept_loop)),
            reserved: Mutex::default(),
        })
    }

    /// The URL to give the gateway as its base URL: `http://127.0.0.1:PORT`,
    /// followed by the base path if one was set.
    pub fn base_url(&self) -> String {
        let base_path = self
            .base_path
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        format!("http://{}{}", self.addr, *base_path)
    }

    /// Puts the API under `path` (such as `/api/v1`, or `/api/v1?version=2`
    /// for an API whose base URL carries a query of its own):
    /// [`Upstream::base_url`] ends with it from now on. Requests are still
    /// recorded and stubbed by their whole path; nothing outside the base
    /// path is refused.
    pub fn set_base_path(&self, path: &str) {
        *self
            .base_path
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = path.to_owned();
    }

    /// The wiremock server that answers every request without a behaviour.
    /// Mount ordinary [`wiremock::Mock`]s here.
    ///
    /// Its matchers see the request after the `url` crate has parsed it (dot
    /// segments resolved); use [`Upstream::requests`] to see the raw one.
    pub fn stubs(&self) -> &MockServer {
        &self.stubs
    }

    /// Gives requests whose raw path (the request-target before any `?`) is
    /// exactly `path` this behaviour, replacing any earlier one for that path.
    pub fn set_behaviour(&self, path: &str, behaviour: Behaviour) {
        self.shared.behaviours().insert(path.to_owned(), behaviour);
    }

    /// Every request that reached this upstream so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests().clone()
    }

    /// How long the client kept the connection of the latest request to
    /// `path` (its raw path) open after the request arrived: from its
    /// arrival to the client closing the connection. `None` while it is
    /// open, or when no such request came. A gateway's own deadline shows
    /// here, apart from how long its answer took to reach its client.
    pub fn held_open(&self, path: &str) -> Option<Duration> {
        let requests = self.shared.requests();
        let at = requests.iter().rposition(|request| request.path == path)?;
        let arrival = *self.shared.arrivals().get(at)?;
        drop(requests);
        let closed = *self
            .shared
            .connections()
            .get(arrival.connection)?
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        closed.map(|closed| closed.saturating_duration_since(arrival.at))
    }

    /// Every byte received so far, one buffer per connection in the order
    /// they were accepted (the first [`WIRE_LIMIT`] bytes of each). A
    /// connection opened without sending anything has an empty buffer.
    ///
    /// After a [`Upstream::reset`], a connection opened before it is listed
    /// only once it sends again, with the bytes sent since.
    pub fn wire_bytes(&self) -> Vec<Vec<u8>> {
        self.shared
            .connections()
            .iter()
            .map(|c| {
                let received = c.received.lock().unwrap_or_else(PoisonError::into_inner);
                (c.before_reset, received.clone())
            })
            .filter(|(before_reset, received)| !before_reset || !received.is_empty())
            .map(|(_, received)| received)
            .collect()
    }

    /// Forgets every stub, behaviour, recorded request and received byte, and
    /// the base path, so the next test starts from a fresh upstream on the
    /// same port. Connections stay open: a client that keeps its connection
    /// alive is recorded as one that opened a new one. Errors once
    /// [`Upstream::refuse_connections`] was called: that cannot be undone.
    pub async fn reset(&self) -> std::io::Result<()> {
        if self
            .accept_loop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
        {
            return Err(std::io::Error::other(
                "the upstream refuses connections for good",
            ));
        }
        self.stubs.reset().await;
        {
            let mut requests = self.shared.requests();
            requests.clear();
            self.shared.arrivals().clear();
        }
        self.shared.behaviours().clear();
        for connection in self.shared.connections().iter_mut() {
            // Taken, not cleared: a buffer may hold up to WIRE_LIMIT bytes.
            std::mem::take(
                &mut *connection
                    .received
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner),
            );
            connection.before_reset = true;
        }
        self.set_base_path("");
        Ok(())
    }

    /// Stops listening and closes every open connection: once this returns,
    /// a connection to [`Upstream::base_url`] is refused. What was recorded
    /// stays.
    pub async fn refuse_connections(&self) {
        if let Some(accept_loop) = self.take_accept_loop() {
            accept_loop.abort();
            // Resolves once the task, and with it the listener, is dropped.
            let _ = accept_loop.await;
            // Connecting to a port that is bound but not listening is refused.
            // Should the bind fail, the port is merely closed, as before.
            let reserve = tokio::net::TcpSocket::new_v4().and_then(|socket| {
                socket.bind(self.addr)?;
                Ok(socket)
            });
            *self.reserved.lock().unwrap_or_else(PoisonError::into_inner) = reserve.ok();
        }
    }

    fn take_accept_loop(&self) -> Option<JoinHandle<()>> {
        self.accept_loop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        // The accept loop owns every connection task; aborting it drops them all.
        if let Some(accept_loop) = self.take_accept_loop() {
            accept_loop.abort();
        }
    }
}

/// The wiremock server, dropped on a thread of its own (see the crate's
/// docs); present until then.
struct Stubs(Option<MockServer>);

impl Deref for Stubs {
    type Target = MockServer;

    fn deref(&self) -> &MockServer {
        self.0
            .as_ref()
            .expect("the stubs live until the upstream is dropped")
    }
}

impl Drop for Stubs {
    fn drop(&mut self) {
        if let Some(server) = self.0.take() {
            // Should no thread be available, the server is dropped right here.
            let _ = std::thread::Builder::new()
                .name("drop-stubs".into())
                .spawn(move || drop(server));
        }
    }
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("base_url", &self.base_url())
            .field("stubs", &self.stubs.uri())
            .finish_non_exhaustive()
    }
}
