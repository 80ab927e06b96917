//! What the [`Upstream`](crate::Upstream) handle and its connections share:
//! the requests recorded, the behaviours set, and each connection's bytes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

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
    behaviours: Mutex<HashMap<String, Behaviour>>,
    connections: Mutex<Vec<Connection>>,
}

/// The bytes one connection sent, and whether it was opened before the
/// last [`Upstream::reset`](crate::Upstream::reset) (a client's kept-alive
/// connection).
pub(crate) struct Connection {
    pub(crate) received: Arc<Mutex<Vec<u8>>>,
    pub(crate) before_reset: bool,
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

    /// A buffer for the bytes of a newly accepted connection.
    pub(crate) fn new_connection(&self) -> Arc<Mutex<Vec<u8>>> {
        let received = Arc::default();
        self.connections().push(Connection {
            received: Arc::clone(&received),
            before_reset: false,
        });
        received
    }

    pub(crate) fn connections(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
