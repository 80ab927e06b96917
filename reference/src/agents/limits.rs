//! Per-agent limits: how many calls one agent may make a second (a token
//! bucket, with a burst) and have in flight, so that one runaway agent
//! cannot spend all of an API's capacity (`--max-calls`) and starve the
//! others. An agent is its key's label, or its token's issuer and subject,
//! or, where anyone may come in, the client's address.
//!
//! Several copies of the gateway behind a balancer share the per-second
//! limit through a store ([`SharedRate`], Redis), as Envoy's global rate
//! limit and Kong's cluster policy do: an agent over its limit is refused
//! whichever copy it reaches. When the store cannot be reached, each copy
//! limits on its own and calls go on. Calls in flight are each copy's own:
//! they end with the call, which a store would have to be told of even
//! when a copy dies.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::shared::SharedRate;

/// What the operator sets for one API; nothing set, nothing limited.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LimitSettings {
    /// Calls an agent may make a second, on average.
    pub calls_per_second: Option<f64>,
    /// Calls an agent may make at once above that rate; the rate itself
    /// (at least 1) when not set.
    pub burst: Option<u32>,
    /// Calls an agent may have sending or answering at once.
    pub calls_in_flight: Option<u32>,
}

impl LimitSettings {
    pub fn is_set(&self) -> bool {
        self.calls_per_second.is_some() || self.calls_in_flight.is_some()
    }
}

/// Agents whose buckets are kept before the full ones are swept.
const BUCKETS_KEPT: usize = 100_000;

/// One API's per-agent limits.
pub struct AgentLimits {
    rate: Option<Rate>,
    in_flight: Option<usize>,
    buckets: Mutex<HashMap<String, Bucket>>,
    flights: Mutex<HashMap<String, usize>>,
    shared: Option<SharedRate>,
}

/// Calls a second, and the most at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub per_second: f64,
    pub burst: f64,
}

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Why a call was refused, and when it may be made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limited {
    pub reason: LimitReason,
    pub retry_after: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitReason {
    Rate,
    InFlight,
}

impl LimitReason {
    /// A short stable name, for metrics.
    pub fn name(self) -> &'static str {
        match self {
            LimitReason::Rate => "rate",
            LimitReason::InFlight => "in_flight",
        }
    }

    /// What is over its limit, for the agent.
    pub fn limit(self) -> &'static str {
        match self {
            LimitReason::Rate => "calls a second",
            LimitReason::InFlight => "calls in flight",
        }
    }
}

/// An agent's calls in flight, counted until dropped.
pub struct InFlight {
    limits: Arc<AgentLimits>,
    agent: String,
    calls: usize,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut flights = self
            .limits
            .flights
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = flights.get_mut(&self.agent) {
            *count = count.saturating_sub(self.calls);
            if *count == 0 {
                flights.remove(&self.agent);
            }
        }
    }
}

impl AgentLimits {
    /// The limits `settings` ask for, shared through `shared` when given;
    /// `None` when nothing is limited.
    pub fn new(settings: &LimitSettings, shared: Option<SharedRate>) -> Option<Arc<AgentLimits>> {
        if !settings.is_set() {
            return None;
        }
        let rate = settings.calls_per_second.map(|per_second| Rate {
            per_second,
            burst: settings.burst.map_or(per_second.max(1.0).ceil(), f64::from),
        });
        Some(Arc::new(AgentLimits {
            rate,
            in_flight: settings.calls_in_flight.map(|n| n as usize),
            buckets: Mutex::new(HashMap::new()),
            flights: Mutex::new(HashMap::new()),
            shared: shared.filter(|_| rate.is_some()),
        }))
    }

    /// Takes `calls` calls for `agent`: counted in flight until the guard
    /// is dropped, or refused with when to come back. Nothing is taken
    /// from the rate when the calls in flight refuse.
    pub async fn take(self: &Arc<Self>, agent: &str, calls: usize) -> Result<InFlight, Limited> {
        let guard = self.enter(agent, calls)?;
        if let Some(rate) = self.rate {
            let shared = match &self.shared {
                Some(shared) => shared.take(agent, rate.per_second, rate.burst, calls).await,
                None => None,
            };
            match shared {
                Some(verdict) => verdict.map_err(|retry_after| Limited {
                    reason: LimitReason::Rate,
                    retry_after,
                })?,
                None => self.take_locally(agent, rate, calls)?,
            }
        }
        Ok(guard)
    }

    /// Counts the calls in flight, refusing those over the limit.
    fn enter(self: &Arc<Self>, agent: &str, calls: usize) -> Result<InFlight, Limited> {
        let mut flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        let count = flights.entry(agent.to_owned()).or_insert(0);
        if let Some(most) = self.in_flight {
            if *count + calls > most {
                if *count == 0 {
                    flights.remove(agent);
                }
                return Err(Limited {
                    reason: LimitReason::InFlight,
                    retry_after: Duration::from_secs(1),
                });
            }
        }
        *count += calls;
        Ok(InFlight {
            limits: Arc::clone(self),
            agent: agent.to_owned(),
            calls,
        })
    }

    /// The token bucket of this copy alone.
    fn take_locally(&self, agent: &str, rate: Rate, calls: usize) -> Result<(), Limited> {
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= BUCKETS_KEPT && !buckets.contains_key(agent) {
            // Buckets that would be full again are as good as new.
            buckets.retain(|_, bucket| refilled(bucket, rate, now) < rate.burst);
        }
        let bucket = buckets.entry(agent.to_owned()).or_insert(Bucket {
            tokens: rate.burst,
            at: now,
        });
        bucket.tokens = refilled(bucket, rate, now);
        bucket.at = now;
        let wanted = calls as f64;
        if bucket.tokens >= wanted {
            bucket.tokens -= wanted;
            return Ok(());
        }
        let missing = wanted - bucket.tokens;
        Err(Limited {
            reason: LimitReason::Rate,
            retry_after: Duration::from_secs_f64(missing / rate.per_second),
        })
    }

    /// The calls `agent` has in flight now.
    pub fn in_flight(&self, agent: &str) -> usize {
        let flights = self.flights.lock().unwrap_or_else(PoisonError::into_inner);
        flights.get(agent).copied().unwrap_or(0)
    }
}

/// The tokens of `bucket` at `now`.
fn refilled(bucket: &Bucket, rate: Rate, now: Instant) -> f64 {
    let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
    (bucket.tokens + elapsed * rate.per_second).min(rate.burst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(settings: LimitSettings) -> Arc<AgentLimits> {
        AgentLimits::new(&settings, None).expect("limits")
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_then_the_rate_per_agent() {
        let limits = limits(LimitSettings {
            calls_per_second: Some(2.0),
            burst: Some(3),
            calls_in_flight: None,
        });
        for _ in 0..3 {
            assert!(limits.take("a", 1).await.is_ok());
        }
        let refused = limits.take("a", 1).await.err().expect("over the burst");
        assert_eq!(refused.reason, LimitReason::Rate);
        assert_eq!(refused.retry_after, Duration::from_millis(500));
        // Another agent is not touched by it.
        assert!(limits.take("b", 1).await.is_ok());
        tokio::time::advance(Duration::from_millis(500)).await;
        assert!(limits.take("a", 1).await.is_ok(), "a token came back");
        assert!(limits.take("a", 1).await.is_err());
        // Half a token back: the other half comes in a quarter second.
        tokio::time::advance(Duration::from_millis(250)).await;
        let refused = limits.take("a", 1).await.err().expect("half a token");
        assert_eq!(refused.retry_after, Duration::from_millis(250));
    }

    #[tokio::test]
    async fn calls_in_flight_end_with_their_guards() {
        let limits = limits(LimitSettings {
            calls_per_second: None,
            burst: None,
            calls_in_flight: Some(2),
        });
        let one = limits.take("a", 1).await.expect("first");
        let two = limits.take("a", 1).await.expect("second");
        assert_eq!(limits.in_flight("a"), 2);
        let refused = limits.take("a", 1).await.err().expect("a third");
        assert_eq!(refused.reason, LimitReason::InFlight);
        assert!(limits.take("b", 2).await.is_ok(), "another agent's own");
        drop(one);
        let three = limits.take("a", 1).await.expect("a place again");
        // The refusal and the ended call took nothing from the count.
        assert!(limits.take("a", 1).await.is_err(), "two in flight again");
        drop((two, three));
        assert_eq!(limits.in_flight("a"), 0, "forgotten once idle");
        assert!(limits.take("a", 3).await.is_err(), "a batch over the limit");
    }

    #[tokio::test(start_paused = true)]
    async fn a_refusal_in_flight_takes_nothing_from_the_rate() {
        let limits = limits(LimitSettings {
            calls_per_second: Some(1.0),
            burst: Some(1),
            calls_in_flight: Some(1),
        });
        let held = limits.take("a", 1).await.expect("first");
        assert_eq!(
            limits.take("a", 1).await.err().map(|l| l.reason),
            Some(LimitReason::InFlight)
        );
        drop(held);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(
            limits.take("a", 1).await.is_ok(),
            "the bucket was left alone"
        );
    }

    #[test]
    fn nothing_set_limits_nothing() {
        assert!(AgentLimits::new(&LimitSettings::default(), None).is_none());
    }
}
