//! The operator log's lines, written to stderr by a thread of their own in
//! batches: a call's answer never waits on a write to stderr, and a line
//! costs the call a copy into a buffer, not a wake-up of the writing thread.
//!
//! (A channel with a thread reading it, as tracing-appender's, wakes that
//! thread for every line: measured on the call path one call at a time,
//! that wake-up and the context switches cost more CPU than the write it
//! saved. Here the thread is woken by the first line of a batch only, and
//! writes what came in the next few milliseconds at once.)
//!
//! No line is dropped: past [`MOST_PENDING`] bytes waiting, the line's
//! writer writes them itself. What is waiting is written when the guard
//! drops, as the gateway exits.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the writing thread gathers lines after the first of a batch.
const BATCH_WINDOW: Duration = Duration::from_millis(20);

/// The most bytes left waiting for the writing thread.
const MOST_PENDING: usize = 4 * 1024 * 1024;

/// Where lines go: `MakeWriter` for tracing-subscriber's fmt layer.
#[derive(Clone)]
pub struct LogLines {
    shared: Arc<Shared>,
}

struct Shared {
    pending: Mutex<Pending>,
    arrived: Condvar,
}

#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    stopping: bool,
}

/// Writes what is waiting, and stops the writing thread, when dropped.
pub struct Flushed {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl LogLines {
    /// Lines for stderr, and the guard to hold until the process ends.
    pub fn to_stderr() -> (LogLines, Flushed) {
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            arrived: Condvar::new(),
        });
        let writing = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("hosted-mcp-gateway-log".to_owned())
            .spawn(move || write_batches(&writing))
            .ok();
        let guard = Flushed {
            shared: Arc::clone(&shared),
            thread,
        };
        (LogLines { shared }, guard)
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The writing thread: waits for a first line, gathers for the window,
/// writes the batch; until told to stop.
fn write_batches(shared: &Shared) {
    loop {
        let mut pending = shared.lock();
        while pending.bytes.is_empty() && !pending.stopping {
            pending = shared
                .arrived
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if !pending.stopping {
            drop(pending);
            std::thread::sleep(BATCH_WINDOW);
            pending = shared.lock();
        }
        let batch = std::mem::take(&mut pending.bytes);
        let stopping = pending.stopping;
        drop(pending);
        let _ = io::stderr().write_all(&batch);
        if stopping {
            return;
        }
    }
}

impl Drop for Flushed {
    fn drop(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.arrived.notify_one();
        match self.thread.take() {
            Some(thread) => {
                let _ = thread.join();
            }
            // No thread could be started: what is waiting is written here.
            None => {
                let batch = std::mem::take(&mut self.shared.lock().bytes);
                let _ = io::stderr().write_all(&batch);
            }
        }
    }
}

/// One event's line, kept whole until it is done with.
pub struct Line {
    shared: Arc<Shared>,
    bytes: Vec<u8>,
}

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.bytes.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        let mut pending = self.shared.lock();
        let first = pending.bytes.is_empty();
        pending.bytes.extend_from_slice(&self.bytes);
        if pending.bytes.len() > MOST_PENDING {
            // The writing thread fell behind: wait for stderr here rather
            // than hold more or drop lines.
            let batch = std::mem::take(&mut pending.bytes);
            drop(pending);
            let _ = io::stderr().write_all(&batch);
        } else if first {
            drop(pending);
            self.shared.arrived.notify_one();
        }
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogLines {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line {
            shared: Arc::clone(&self.shared),
            bytes: Vec::with_capacity(256),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::fmt::MakeWriter as _;

    #[test]
    fn lines_are_kept_whole_and_in_order_until_written() {
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            arrived: Condvar::new(),
        });
        let lines = LogLines {
            shared: Arc::clone(&shared),
        };
        for n in 0..3 {
            let mut line = lines.make_writer();
            write!(line, "line ").expect("written");
            writeln!(line, "{n}").expect("written");
        }
        let pending = String::from_utf8(shared.lock().bytes.clone()).expect("text");
        assert_eq!(pending, "line 0\nline 1\nline 2\n");
    }
}
