//! The per-agent limit layer: each request an agent posts (a tool call, a
//! listing, a batch counting each of its requests) is taken from its
//! [`AgentLimits`] before MCP reads it; over the limit, `429` with
//! `Retry-After` and nothing sent. Notifications and answers are not
//! counted, nor are streams (GET) and session ends (DELETE).

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http_body_util::{BodyExt as _, Limited as LimitedBody};
use hyper::header::{HeaderValue, RETRY_AFTER};
use hyper::{Method, StatusCode};
use tower::{Layer, Service};

use super::stack::{whole, Request, Response};
use crate::agents::{plain, Admitted, AgentLimits, Limited, Refusals};
use crate::errors::AgentMessage;
use crate::mcp;

/// The largest request body read to count its requests.
const COUNTED_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// The client's address, put in each request's extensions by the
/// listener: who an agent is where anyone may come in.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddress(pub SocketAddr);

/// Makes [`AgentLimited`] services.
#[derive(Clone)]
pub struct AgentLimitsLayer {
    limits: Option<Arc<AgentLimits>>,
    refusals: Refusals,
}

impl AgentLimitsLayer {
    /// Limits by `limits`; with none, passes every request on.
    pub fn new(limits: Option<Arc<AgentLimits>>, refusals: Refusals) -> Self {
        AgentLimitsLayer { limits, refusals }
    }
}

impl<S> Layer<S> for AgentLimitsLayer {
    type Service = AgentLimited<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AgentLimited {
            inner,
            layer: self.clone(),
        }
    }
}

/// A service whose agents each keep to their limits.
#[derive(Clone)]
pub struct AgentLimited<S> {
    inner: S,
    layer: AgentLimitsLayer,
}

type Answered = Pin<Box<dyn Future<Output = Result<Response, std::convert::Infallible>> + Send>>;

impl<S> Service<Request> for AgentLimited<S>
where
    S: Service<Request, Response = Response, Error = std::convert::Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = Answered;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let limits = match &self.layer.limits {
            Some(limits) if request.method() == Method::POST => Arc::clone(limits),
            _ => return Box::pin(self.inner.call(request)),
        };
        let inner = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, inner);
        let refusals = self.layer.refusals.clone();
        let agent = agent_of(&request);
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = match LimitedBody::new(body, COUNTED_BODY_LIMIT).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => {
                    return Ok(plain(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!(
                            "the request's body is over {COUNTED_BODY_LIMIT} bytes, or broke off\n"
                        ),
                    ))
                }
            };
            let requests = mcp::requests_in(&body);
            let body = whole(body);
            let request = Request::from_parts(parts, body);
            if requests == 0 {
                return inner.call(request).await;
            }
            match limits.take(&agent, requests).await {
                Ok(in_flight) => {
                    let answered = inner.call(request).await;
                    drop(in_flight);
                    answered
                }
                Err(limited) => Ok(over_the_limit(&refusals, limited)),
            }
        })
    }
}

/// Who the request's agent is, for its limits.
fn agent_of(request: &Request) -> String {
    let admitted = request.extensions().get::<Admitted>();
    match admitted.filter(|admitted| admitted.told_apart()) {
        Some(admitted) => admitted.account.clone(),
        None => match request.extensions().get::<ClientAddress>() {
            Some(ClientAddress(address)) => format!("address {}", address.ip()),
            None => "anyone".to_owned(),
        },
    }
}

/// `429 Too Many Requests`, with when to come back, counted.
fn over_the_limit(refusals: &Refusals, limited: Limited) -> Response {
    refusals
        .metrics()
        .limited(refusals.metric_name(), limited.reason.name());
    let seconds = limited.retry_after.as_secs_f64().ceil().max(1.0) as u64;
    let message = AgentMessage::AgentRateLimited {
        limit: limited.reason.limit(),
        seconds,
    };
    let mut response: Response = plain(
        StatusCode::TOO_MANY_REQUESTS,
        format!("{}\n", message.render()),
    );
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds));
    response
}
