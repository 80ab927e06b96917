//! The per-second limit shared by every copy of the gateway through Redis:
//! each agent's bucket is one key, taken from atomically by a Lua script
//! (the generic cell rate algorithm, on Redis's own clock, so the copies'
//! clocks need not agree), one round trip a call.
//!
//! Redis out of reach must not stop the calls: a call whose answer does not
//! come within [`STORE_DEADLINE`] is limited by its copy alone, the loss is
//! said once in the log and in a metric, and Redis is tried again at most
//! once a second until it answers, which is said too.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::MultiplexedConnection;
use tokio::time::Instant;

use super::errors::GateError;
use crate::watch::Metrics;

/// How long a call waits for the store before limiting on its own.
pub const STORE_DEADLINE: Duration = Duration::from_millis(100);

/// How long after a failure the store is tried again.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// Takes `ARGV[3]` calls from the bucket at `KEYS[1]`: 0 when they are
/// let through, else the microseconds until they would be. `ARGV[1]` is
/// the time one call stands for, `ARGV[2]` the burst's.
const TAKE: &str = r"
local clock = redis.call('TIME')
local now = clock[1] * 1000000 + clock[2]
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local due = tonumber(redis.call('GET', KEYS[1])) or now
if due < now then due = now end
local after = due + interval * tonumber(ARGV[3])
local allowed_at = after - tolerance
if allowed_at > now then return allowed_at - now end
redis.call('SET', KEYS[1], after, 'PX', math.ceil((after - now) / 1000) + 1000)
return 0
";

/// The store of one API's per-second limits.
#[derive(Clone)]
pub struct SharedRate {
    inner: Arc<Store>,
}

struct Store {
    client: redis::Client,
    script: redis::Script,
    /// Keys are `hosted-mcp:limit:{api}:{agent}`.
    prefix: String,
    connection: tokio::sync::Mutex<Option<MultiplexedConnection>>,
    /// Whether the last call reached the store, for one log line a change.
    reached: AtomicBool,
    /// No attempt before this, after a failure.
    next_attempt: Mutex<Option<Instant>>,
    metrics: Arc<Metrics>,
    api: String,
}

impl SharedRate {
    /// The store at `url` (`redis://host:port/db`), for the API `api`;
    /// nothing is connected until a call needs it.
    pub fn new(url: &str, api: &str, metrics: Arc<Metrics>) -> Result<SharedRate, GateError> {
        let client = redis::Client::open(url).map_err(|_| GateError::LimitsStoreUrl)?;
        metrics.limits_shared(api, true);
        Ok(SharedRate {
            inner: Arc::new(Store {
                client,
                script: redis::Script::new(TAKE),
                prefix: format!("hosted-mcp:limit:{api}:"),
                connection: tokio::sync::Mutex::new(None),
                reached: AtomicBool::new(true),
                next_attempt: Mutex::new(None),
                metrics,
                api: api.to_owned(),
            }),
        })
    }

    /// The store's verdict on `calls` calls of `agent` at `per_second`
    /// with `burst`: let through, or how long until they would be; `None`
    /// when it cannot be had in time (the caller limits alone).
    pub async fn take(
        &self,
        agent: &str,
        per_second: f64,
        burst: f64,
        calls: usize,
    ) -> Option<Result<(), Duration>> {
        let store = &self.inner;
        if store.waiting() {
            return None;
        }
        let interval = (1_000_000.0 / per_second).round() as u64;
        let tolerance = (burst * 1_000_000.0 / per_second).round() as u64;
        let asked = tokio::time::timeout(STORE_DEADLINE, async {
            let mut connection = store.connection().await?;
            let key = format!("{}{agent}", store.prefix);
            store
                .script
                .key(key)
                .arg(interval)
                .arg(tolerance)
                .arg(calls)
                .invoke_async::<u64>(&mut connection)
                .await
        })
        .await;
        match asked {
            Ok(Ok(wait)) => {
                store.reached_now();
                Some(match wait {
                    0 => Ok(()),
                    micros => Err(Duration::from_micros(micros)),
                })
            }
            Ok(Err(error)) => {
                store.lost(&error.to_string()).await;
                None
            }
            Err(_) => {
                store.lost("no answer within 100 ms").await;
                None
            }
        }
    }
}

impl Store {
    /// Whether a recent failure says not to try yet.
    fn waiting(&self) -> bool {
        let next = self
            .next_attempt
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        next.is_some_and(|at| Instant::now() < at)
    }

    async fn connection(&self) -> redis::RedisResult<MultiplexedConnection> {
        let mut held = self.connection.lock().await;
        if let Some(connection) = held.as_ref() {
            return Ok(connection.clone());
        }
        let connection = self.client.get_multiplexed_async_connection().await?;
        *held = Some(connection.clone());
        Ok(connection)
    }

    /// The store answered: said once after a loss.
    fn reached_now(&self) {
        if !self.reached.swap(true, Ordering::Relaxed) {
            self.metrics.limits_shared(&self.api, true);
            tracing::info!(
                api = %self.api,
                "the limits store answers again: agents' limits are shared by every copy"
            );
        }
    }

    /// The store did not answer: the connection is dropped, and tried again
    /// in a second; said once.
    async fn lost(&self, why: &str) {
        *self.connection.lock().await = None;
        *self
            .next_attempt
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(Instant::now() + RETRY_AFTER_FAILURE);
        if self.reached.swap(false, Ordering::Relaxed) {
            self.metrics.limits_shared(&self.api, false);
            tracing::warn!(
                api = %self.api,
                "the limits store cannot be reached ({why}): each copy limits its agents on its \
                 own until it answers, and calls go on"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::process::{Child, Command, Stdio};

    /// redis-server on loopback, keeping nothing on disk; stopped when
    /// dropped.
    struct Redis(Child);

    impl Redis {
        async fn on(port: u16) -> Redis {
            let path = ["/usr/bin/redis-server", "/usr/sbin/redis-server"]
                .into_iter()
                .find(|path| Path::new(path).is_file())
                .expect(
                    "redis-server is not installed: install Debian's package `redis-server`, \
                     as .ci/run does",
                );
            let child = Command::new(path)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .stdout(Stdio::null())
                .spawn()
                .expect("redis-server starts");
            let redis = Redis(child);
            for _ in 0..1000 {
                if tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok()
                {
                    return redis;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("redis-server did not listen on {port} within 10 s");
        }
    }

    impl Drop for Redis {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port()
    }

    fn store_at(port: u16, metrics: &Arc<Metrics>) -> SharedRate {
        SharedRate::new(
            &format!("redis://127.0.0.1:{port}/"),
            "pets",
            Arc::clone(metrics),
        )
        .expect("a store")
    }

    fn shared_gauge(metrics: &Metrics) -> String {
        metrics
            .encode()
            .lines()
            .find(|line| line.starts_with("hosted_mcp_agent_limits_shared{api=\"pets\"}"))
            .expect("the gauge is set")
            .to_owned()
    }

    /// One call every two seconds, two at once: slow enough that no
    /// machine's pause lets a third through.
    const PER_SECOND: f64 = 0.5;
    const BURST: f64 = 2.0;

    #[tokio::test]
    async fn the_store_lets_each_agent_through_at_its_rate_and_burst() {
        let port = free_port();
        let _redis = Redis::on(port).await;
        let rate = store_at(port, &Arc::new(Metrics::new()));
        for _ in 0..2 {
            assert_eq!(rate.take("ada", PER_SECOND, BURST, 1).await, Some(Ok(())));
        }
        match rate.take("ada", PER_SECOND, BURST, 1).await {
            Some(Err(wait)) => assert!(wait > Duration::ZERO && wait <= Duration::from_secs(2)),
            other => panic!("a third call at once was not held back: {other:?}"),
        }
        // Another agent's bucket is its own; two calls at once are two.
        assert_eq!(rate.take("bob", PER_SECOND, BURST, 2).await, Some(Ok(())));
        assert!(matches!(
            rate.take("bob", PER_SECOND, BURST, 1).await,
            Some(Err(_))
        ));
    }

    #[tokio::test]
    async fn the_store_out_of_reach_is_asked_again_a_second_later_and_said_back() {
        let port = free_port();
        let metrics = Arc::new(Metrics::new());
        let rate = store_at(port, &metrics);
        let store = &rate.inner;
        let before = Instant::now();
        assert_eq!(rate.take("ada", PER_SECOND, BURST, 1).await, None);
        assert_eq!(
            shared_gauge(&metrics),
            "hosted_mcp_agent_limits_shared{api=\"pets\"} 0"
        );
        let next = store
            .next_attempt
            .lock()
            .expect("not poisoned")
            .expect("a next attempt");
        assert!(next >= before + RETRY_AFTER_FAILURE);
        assert!(store.waiting());

        // The second passed, and the store is back.
        let _redis = Redis::on(port).await;
        *store.next_attempt.lock().expect("not poisoned") =
            Some(Instant::now() - Duration::from_millis(1));
        assert!(!store.waiting());
        assert_eq!(rate.take("ada", PER_SECOND, BURST, 1).await, Some(Ok(())));
        assert_eq!(
            shared_gauge(&metrics),
            "hosted_mcp_agent_limits_shared{api=\"pets\"} 1"
        );
    }
}
