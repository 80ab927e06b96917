//! The metrics, and the recorder each API's calls go through.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

/// Every metric of the gateway, and whether it is ready.
pub struct Metrics {
    registry: Mutex<Registry>,
    calls: Family<CallLabels, Counter>,
    upstream: Family<ClassLabels, Counter>,
    durations: Family<ApiLabels, Histogram>,
    in_flight: Family<ApiLabels, Gauge>,
    waiting: Family<ApiLabels, Gauge>,
    sessions: Family<ApiLabels, Gauge>,
    refused: Family<ReasonLabels, Counter>,
    tokens: Family<OutcomeLabels, Counter>,
    reloads: Family<ReloadLabels, Counter>,
    limited: Family<ReasonLabels, Counter>,
    limits_shared: Family<ApiLabels, Gauge>,
    connections_open: Gauge,
    connections_accepted: Counter,
    connections_closed: Family<CloseLabels, Counter>,
    version: Gauge,
    apis: Gauge,
    ready: AtomicBool,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ApiLabels {
    api: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    api: String,
    tool: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClassLabels {
    api: String,
    class: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    api: String,
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    api: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CloseLabels {
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReloadLabels {
    outcome: String,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let metrics = Metrics {
            registry: Mutex::new(Registry::with_prefix("hosted_mcp")),
            calls: Family::default(),
            upstream: Family::default(),
            // 1 ms to about 33 s: every call ends by the 15 s deadline.
            durations: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.001, 2.0, 16))
            }),
            in_flight: Family::default(),
            waiting: Family::default(),
            sessions: Family::default(),
            refused: Family::default(),
            tokens: Family::default(),
            reloads: Family::default(),
            limited: Family::default(),
            limits_shared: Family::default(),
            connections_open: Gauge::default(),
            connections_accepted: Counter::default(),
            connections_closed: Family::default(),
            version: Gauge::default(),
            apis: Gauge::default(),
            ready: AtomicBool::new(false),
        };
        {
            let mut registry = metrics.registry();
            registry.register(
                "calls",
                "Tool calls answered, by outcome",
                metrics.calls.clone(),
            );
            registry.register(
                "upstream_responses",
                "The APIs' answers by status class",
                metrics.upstream.clone(),
            );
            registry.register(
                "call_duration_seconds",
                "Tool calls from arrival to answer",
                metrics.durations.clone(),
            );
            registry.register(
                "calls_in_flight",
                "Calls sending or answering",
                metrics.in_flight.clone(),
            );
            registry.register(
                "calls_waiting",
                "Calls waiting for a turn",
                metrics.waiting.clone(),
            );
            registry.register("sessions", "Sessions alive", metrics.sessions.clone());
            registry.register(
                "agents_refused",
                "Requests refused before MCP, by reason",
                metrics.refused.clone(),
            );
            registry.register(
                "upstream_tokens",
                "Access tokens fetched for the APIs, by outcome",
                metrics.tokens.clone(),
            );
            registry.register("reloads", "Configuration reloads", metrics.reloads.clone());
            registry.register(
                "agents_limited",
                "Agents' calls refused by their per-agent limits, by reason",
                metrics.limited.clone(),
            );
            registry.register(
                "agent_limits_shared",
                "Whether the store that shares the per-agent limits answers (1) or each copy \
                 limits on its own (0)",
                metrics.limits_shared.clone(),
            );
            registry.register(
                "connections_open",
                "HTTP connections open on the MCP listener",
                metrics.connections_open.clone(),
            );
            registry.register(
                "connections_accepted",
                "HTTP connections accepted on the MCP listener",
                metrics.connections_accepted.clone(),
            );
            registry.register(
                "connections_closed",
                "HTTP connections the gateway closed or refused, by reason (head_timeout, \
                 idle_timeout, send_timeout, evicted, full, client_full)",
                metrics.connections_closed.clone(),
            );
            registry.register(
                "config_version",
                "The configuration's version: 1 at start-up, one more a reload",
                metrics.version.clone(),
            );
            registry.register("apis", "APIs served", metrics.apis.clone());
        }
        metrics
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The recorder of one API's calls, its series looked up once.
    pub fn api(self: &Arc<Self>, api: &str) -> ApiMeter {
        let labels = ApiLabels {
            api: api.to_owned(),
        };
        let class = |class: &str| {
            self.upstream
                .get_or_create(&ClassLabels {
                    api: api.to_owned(),
                    class: class.to_owned(),
                })
                .clone()
        };
        ApiMeter {
            api: api.to_owned(),
            metrics: Arc::clone(self),
            series: Arc::new(ApiSeries {
                durations: self.durations.get_or_create(&labels).clone(),
                in_flight: self.in_flight.get_or_create(&labels).clone(),
                waiting: self.waiting.get_or_create(&labels).clone(),
                classes: ["1xx", "2xx", "3xx", "4xx", "5xx"].map(class),
                calls: RwLock::default(),
            }),
        }
    }

    /// An agent refused before MCP.
    pub fn refused(&self, api: &str, reason: &str) {
        self.refused
            .get_or_create(&ReasonLabels {
                api: api.to_owned(),
                reason: reason.to_owned(),
            })
            .inc();
    }

    /// An agent's call refused by its per-agent limit.
    pub fn limited(&self, api: &str, reason: &str) {
        self.limited
            .get_or_create(&ReasonLabels {
                api: api.to_owned(),
                reason: reason.to_owned(),
            })
            .inc();
    }

    /// Whether the per-agent limits' store answers for `api`.
    pub fn limits_shared(&self, api: &str, reached: bool) {
        self.limits_shared
            .get_or_create(&ApiLabels {
                api: api.to_owned(),
            })
            .set(i64::from(reached));
    }

    /// A connection accepted: counted open until [`Metrics::connection_ended`].
    pub fn connection_opened(&self) {
        self.connections_accepted.inc();
        self.connections_open.inc();
    }

    pub fn connection_ended(&self) {
        self.connections_open.dec();
    }

    /// A connection the gateway closed, or refused at once, and why.
    pub fn connection_closed(&self, reason: &str) {
        self.connections_closed
            .get_or_create(&CloseLabels {
                reason: reason.to_owned(),
            })
            .inc();
    }

    /// A reload, applied or refused.
    pub fn reloaded(&self, applied: bool) {
        let outcome = if applied { "applied" } else { "refused" };
        self.reloads
            .get_or_create(&ReloadLabels {
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    /// The configuration served now: its version and its APIs' sessions.
    pub fn serving(&self, version: u64, sessions: &[(String, usize)]) {
        self.version.set(i64::try_from(version).unwrap_or(i64::MAX));
        self.apis
            .set(i64::try_from(sessions.len()).unwrap_or(i64::MAX));
        self.sessions.clear();
        for (api, alive) in sessions {
            self.sessions
                .get_or_create(&ApiLabels { api: api.clone() })
                .set(i64::try_from(*alive).unwrap_or(i64::MAX));
        }
    }

    /// Whether the gateway takes calls: once serving, until it stops.
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    /// The metrics in the OpenMetrics text format Prometheus scrapes.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry());
        text
    }
}

/// Records one API's calls.
#[derive(Clone)]
pub struct ApiMeter {
    api: String,
    metrics: Arc<Metrics>,
    series: Arc<ApiSeries>,
}

/// One API's series, kept rather than looked up (and their labels made)
/// on every call: a call costs a few atomic additions.
struct ApiSeries {
    durations: Histogram,
    in_flight: Gauge,
    waiting: Gauge,
    /// The API's answers by status class, 1xx to 5xx.
    classes: [Counter; 5],
    /// Calls by tool, then by outcome.
    calls: RwLock<HashMap<String, Vec<(String, Counter)>>>,
}

impl std::fmt::Debug for ApiMeter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiMeter").field("api", &self.api).finish()
    }
}

/// Counts one call in a gauge while it lives.
pub struct Counted(Gauge);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl ApiMeter {
    /// A call waiting for a turn, until dropped.
    pub fn waiting(&self) -> Counted {
        let gauge = self.series.waiting.clone();
        gauge.inc();
        Counted(gauge)
    }

    /// A call sending or answering, until dropped.
    pub fn in_flight(&self) -> Counted {
        let gauge = self.series.in_flight.clone();
        gauge.inc();
        Counted(gauge)
    }

    /// The counter of `tool`'s calls that ended in `outcome`, made on its
    /// first use.
    fn calls(&self, tool: &str, outcome: &str) -> Counter {
        let series = &self.series.calls;
        let known = series
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .and_then(|outcomes| {
                outcomes
                    .iter()
                    .find(|(known, _)| known == outcome)
                    .map(|(_, counter)| counter.clone())
            });
        if let Some(counter) = known {
            return counter;
        }
        let counter = self
            .metrics
            .calls
            .get_or_create(&CallLabels {
                api: self.api.clone(),
                tool: tool.to_owned(),
                outcome: outcome.to_owned(),
            })
            .clone();
        series
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(tool.to_owned())
            .or_default()
            .push((outcome.to_owned(), counter.clone()));
        counter
    }

    /// A call answered: its tool, its outcome (`ok` or a catalogue code),
    /// the API's status if it answered, and how long the call took.
    pub fn answered(&self, tool: &str, outcome: &str, status: Option<u16>, took: Duration) {
        self.calls(tool, outcome).inc();
        if let Some(status) = status {
            match usize::from(status / 100).checked_sub(1) {
                Some(class) if class < 5 => {
                    self.series.classes[class].inc();
                }
                _ => {
                    self.metrics
                        .upstream
                        .get_or_create(&ClassLabels {
                            api: self.api.clone(),
                            class: format!("{}xx", status / 100),
                        })
                        .inc();
                }
            }
        }
        self.series.durations.observe(took.as_secs_f64());
    }

    /// An access token fetched for the API, or a fetch that failed.
    pub fn token_fetched(&self, ok: bool) {
        let outcome = if ok { "fetched" } else { "failed" };
        self.metrics
            .tokens
            .get_or_create(&OutcomeLabels {
                api: self.api.clone(),
                outcome: outcome.to_owned(),
            })
            .inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_and_refusals_show_in_the_text_prometheus_reads() {
        let metrics = Arc::new(Metrics::new());
        let pets = metrics.api("pets");
        {
            let _waiting = pets.waiting();
            let _in_flight = pets.in_flight();
            pets.answered("listPets", "ok", Some(200), Duration::from_millis(3));
            pets.answered(
                "listPets",
                "UPSTREAM_STATUS",
                Some(503),
                Duration::from_millis(9),
            );
        }
        metrics.refused("pets", "no_credential");
        metrics.reloaded(true);
        metrics.serving(2, &[("pets".to_owned(), 3)]);
        let text = metrics.encode();
        for line in [
            "hosted_mcp_calls_total{api=\"pets\",tool=\"listPets\",outcome=\"ok\"} 1",
            "hosted_mcp_calls_total{api=\"pets\",tool=\"listPets\",outcome=\"UPSTREAM_STATUS\"} 1",
            "hosted_mcp_upstream_responses_total{api=\"pets\",class=\"5xx\"} 1",
            "hosted_mcp_call_duration_seconds_count{api=\"pets\"} 2",
            "hosted_mcp_calls_in_flight{api=\"pets\"} 0",
            "hosted_mcp_calls_waiting{api=\"pets\"} 0",
            "hosted_mcp_sessions{api=\"pets\"} 3",
            "hosted_mcp_agents_refused_total{api=\"pets\",reason=\"no_credential\"} 1",
            "hosted_mcp_reloads_total{outcome=\"applied\"} 1",
            "hosted_mcp_config_version 2",
            "hosted_mcp_apis 1",
        ] {
            assert!(text.contains(line), "{line} is not in:\n{text}");
        }
    }
}
