//! What the upstream can do with a request besides answering from the stubs.

use std::time::Duration;

/// What the upstream does with a request whose raw path has been given a
/// behaviour with [`Upstream::set_behaviour`](crate::Upstream::set_behaviour),
/// instead of forwarding it to the stubs. Every such request is still
/// recorded, body included, first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Read the whole request, then close the connection without answering
    /// (with `SO_LINGER` 0, so the peer sees a reset).
    Reset,
    /// Read the whole request and never answer.
    Stall,
    /// Read the whole request, answer with bytes that are not HTTP at all
    /// (an SSH banner, as when a base URL points at the wrong service), then
    /// close the connection.
    NotHttp,
    /// Wait this long, then answer from the stubs as usual.
    DelayHeaders(Duration),
    /// Send the status and headers at once, then `chunk` every `interval`,
    /// until the client goes away.
    Trickle {
        status: u16,
        content_type: String,
        chunk: Vec<u8>,
        interval: Duration,
    },
    /// A `200` whose body repeats `chunk` as fast as the client reads, until
    /// the client goes away.
    Endless {
        content_type: String,
        chunk: Vec<u8>,
    },
    /// A body sent as exactly these chunks, each flushed to the wire with a
    /// `pause` before the next, so that a value can be split across two reads.
    Chunked {
        status: u16,
        content_type: String,
        chunks: Vec<Vec<u8>>,
        pause: Duration,
    },
}
