//! How a refusal reaches the agent, the log and the metrics: the status,
//! challenge and catalogue message the gate gives, and a log line and a
//! count by reason, never with what the agent showed.

use std::sync::Arc;

use bytes::Bytes;
use hyper::header::{HeaderValue, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use hyper::{Response, StatusCode};

use super::admitted::Refusal;
use super::gate::Gate;
use crate::watch::Metrics;

/// Where one API's refusals are told and counted.
#[derive(Clone)]
pub struct Refusals {
    metrics: Arc<Metrics>,
    /// The API as metrics name it.
    metric_name: Arc<str>,
    /// The API as the log names it; `None` for the one API of the flags.
    name: Option<Arc<str>>,
}

impl Refusals {
    pub fn new(metrics: Arc<Metrics>, metric_name: &str, name: Option<&str>) -> Refusals {
        Refusals {
            metrics,
            metric_name: metric_name.into(),
            name: name.map(Into::into),
        }
    }

    /// The answer to an agent `gate` refuses for `refusal`, logged and
    /// counted.
    pub fn respond<B: From<Bytes>>(&self, gate: &Gate, refusal: &Refusal) -> Response<B> {
        let refused = gate.refused(refusal);
        self.count(refusal.reason());
        tracing::info!(
            api = self.name.as_deref(),
            reason = refusal.reason(),
            status = refused.status.as_u16(),
            "agent refused"
        );
        let mut response = plain(refused.status, format!("{}\n", refused.message));
        let headers = response.headers_mut();
        if let Some(challenge) = refused
            .challenge
            .and_then(|c| HeaderValue::from_str(&c).ok())
        {
            headers.insert(WWW_AUTHENTICATE, challenge);
        }
        if let Some(seconds) = refused.retry_after {
            headers.insert(RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }

    /// Counts a refusal the caller answers and logs itself.
    pub fn count(&self, reason: &str) {
        self.metrics.refused(&self.metric_name, reason);
    }

    /// The API as the log names it.
    pub fn api(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Where the metrics are recorded.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The API as metrics name it.
    pub fn metric_name(&self) -> &str {
        &self.metric_name
    }
}

/// A response of the gateway's own, in plain text.
pub fn plain<B: From<Bytes>>(status: StatusCode, text: String) -> Response<B> {
    let mut response = Response::new(B::from(Bytes::from(text)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
