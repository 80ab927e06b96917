//! What the [`Upstream`](crate::Upstream) handle and its connections share:
//! the requests recorded, the behaviours set, and each connection's bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::behaviour::Behaviour;
use crate::record::RecordedRequest;

/// How many bytes of each connection
/// [`Upstream::wire_bytes`](crate::Upstream::wire_bytes) keeps.
pub const WIRE_LIMIT: usize = 4 * 1024 * 1024;

/// State shared between the [`Upstream`](crate::Upstream) handle and its
/// connections.
#[derive(Default)]
pub(crate) struct Shared {
    requests: Mutex<Vec<RecordedRequest>>,
    /// When each of `requests` arrived, and on which connection; pushed
    /// while `requests` is held, so the two stay in step.
    arrivals: Mutex<Vec<Arrival>>,
    behaviours: Mutex<HashMap<String, Behaviour>>,
    connections: Mutex<Vec<Connection>>,
}

/// The bytes one connection sent, and whether it was opened before the
/// last [`Upstream::reset`](crate::Upstream::reset) (a client's kept-alive
/// connection).
pub(crate) struct Connection {
    pub(crate) received: Arc<Mutex<Vec<u8>>>,
    pub(crate) before_reset: bool,
    /// When the client closed it, once it has.
    pub(crate) closed: Arc<Mutex<Option<Instant>>>,
}

/// A connection just accepted: its place among the connections, a buffer
/// for its bytes, and where its closing time goes.
pub(crate) struct NewConnection {
    pub(crate) place: usize,
    pub(crate) received: Arc<Mutex<Vec<u8>>>,
    pub(crate) closed: Arc<Mutex<Option<Instant>>>,
}

/// When a request arrived, and the connection (its place among the
/// connections) it came on.
#[derive(Clone, Copy)]
pub(crate) struct Arrival {
    pub(crate) at: Instant,
    pub(crate) connection: usize,
}

impl Shared {
    pub(crate) fn requests(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        self.requests.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn behaviours(&self) -> MutexGuard<'_, HashMap<String, Behaviour>> {
        self.behaviours
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a request that arrived on `connection` just now.
    pub(crate) fn record(&self, request: RecordedRequest, connection: usize) {
        let mut requests = self.requests();
        requests.push(request);
        self.arrivals().push(Arrival {
            at: Instant::now(),
            connection,
        });
    }

    pub(crate) fn arrivals(&self) -> MutexGuard<'_, Vec<Arrival>> {
        self.arrivals.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A newly accepted connection.
    pub(crate) fn new_connection(&self) -> NewConnection {
        let received = Arc::default();
        let closed = Arc::default();
        let mut connections = self.connections();
        connections.push(Connection {
            received: Arc::clone(&received),
            before_reset: false,
            closed: Arc::clone(&closed),
        });
        NewConnection {
            place: connections.len() - 1,
            received,
            closed,
        }
    }

    pub(crate) fn connections(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
