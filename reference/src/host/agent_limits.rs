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
use std::time::Duration;

use futures::future::Either;
use http_body_util::{BodyExt as _, Limited as LimitedBody};
use hyper::header::{HeaderValue, RETRY_AFTER};
use hyper::{Method, StatusCode};
use tower::{Layer, Service};

use super::message::{whole, Request, Response};
use crate::agents::{plain, Admitted, AgentLimits, Limited, Refusals};
use crate::errors::AgentMessage;
use crate::mcp;

/// The largest request body read to count its requests.
const COUNTED_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// The longest a refusal is held before it is sent (never longer than the
/// wait it announces): a client that ignores `Retry-After` and asks again at
/// once, over and over, then makes a few requests a second on each of its
/// connections rather than thousands, and the gateway's time goes to the
/// other agents rather than to refusing it.
const REFUSAL_PAUSE: Duration = Duration::from_millis(250);

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

/// The inner service's own future where nothing is to be done, so that a
/// request passed on costs no box of its own.
type PassedOrAnswered<F> = Either<F, Answered>;

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
    type Future = PassedOrAnswered<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let limits = match &self.layer.limits {
            Some(limits) if request.method() == Method::POST => Arc::clone(limits),
            _ => return Either::Left(self.inner.call(request)),
        };
        let inner = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, inner);
        let refusals = self.layer.refusals.clone();
        let agent = agent_of(&request);
        Either::Right(Box::pin(async move {
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
                Err(limited) => {
                    tokio::time::sleep(REFUSAL_PAUSE.min(limited.retry_after)).await;
                    Ok(over_the_limit(&refusals, limited))
                }
            }
        }))
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

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use tower::ServiceExt as _;

    use super::*;
    use crate::agents::{LimitSettings, Reach};
    use crate::host::message::{whole, ApiService};
    use crate::watch::Metrics;

    /// A plain service that takes a second to answer.
    fn slow() -> ApiService {
        ApiService::new(tower::service_fn(|_: Request| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Ok::<_, std::convert::Infallible>(plain(StatusCode::OK, "answered".to_owned()))
        }))
    }

    fn post(account: &str, body: &'static str) -> Request {
        let mut request = Request::new(whole(Bytes::from_static(body.as_bytes())));
        *request.method_mut() = Method::POST;
        request.extensions_mut().insert(Admitted {
            agent: account.to_owned(),
            principal: account.to_owned(),
            account: account.to_owned(),
            reach: Reach::All,
        });
        request
    }

    const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#;
    const NOTICE: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

    #[tokio::test(start_paused = true)]
    async fn an_agent_over_its_calls_in_flight_gets_429_and_others_go_on() {
        let limits = AgentLimits::new(
            &LimitSettings {
                calls_in_flight: Some(1),
                ..LimitSettings::default()
            },
            None,
        );
        let metrics = Arc::new(Metrics::new());
        let refusals = Refusals::new(Arc::clone(&metrics), "default", None);
        let service = AgentLimitsLayer::new(limits, refusals).layer(slow());
        let first = tokio::spawn(service.clone().oneshot(post("key ada", CALL)));
        tokio::task::yield_now().await;
        let second = service
            .clone()
            .oneshot(post("key ada", CALL))
            .await
            .expect("answered");
        assert_eq!(second.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(second.headers()[RETRY_AFTER], "1");
        let told = second.into_body().collect().await.expect("read").to_bytes();
        let told = String::from_utf8_lossy(&told);
        assert!(told.starts_with("[AGENT_RATE_LIMITED]"), "{told}");
        assert!(told.contains("calls in flight"), "{told}");
        assert!(
            metrics
                .encode()
                .contains(r#"hosted_mcp_agents_limited_total{api="default",reason="in_flight"} 1"#),
            "{}",
            metrics.encode()
        );
        // Another agent, a notification and a stream are not held back.
        let other = service
            .clone()
            .oneshot(post("key bob", CALL))
            .await
            .expect("answered");
        assert_eq!(other.status(), StatusCode::OK);
        let notice = service
            .clone()
            .oneshot(post("key ada", NOTICE))
            .await
            .expect("answered");
        assert_eq!(notice.status(), StatusCode::OK);
        let mut stream = Request::new(whole(Bytes::new()));
        stream.extensions_mut().insert(Admitted::anyone());
        let stream = service.clone().oneshot(stream).await.expect("answered");
        assert_eq!(stream.status(), StatusCode::OK);
        let first = first.await.expect("joined").expect("answered");
        assert_eq!(first.status(), StatusCode::OK);
        // Its call ended: the agent may call again.
        let again = service
            .oneshot(post("key ada", CALL))
            .await
            .expect("answered");
        assert_eq!(again.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn with_no_limits_every_request_passes_untouched() {
        let refusals = Refusals::new(Arc::new(Metrics::new()), "default", None);
        let service = AgentLimitsLayer::new(None, refusals).layer(slow());
        let calls = (0..5).map(|_| service.clone().oneshot(post("key ada", CALL)));
        for answered in futures::future::join_all(calls).await {
            assert_eq!(answered.expect("answered").status(), StatusCode::OK);
        }
    }

    /// A call of `size` bytes, spaces after its JSON.
    fn padded(size: usize) -> Request {
        let mut body = CALL.as_bytes().to_vec();
        body.resize(size, b' ');
        let mut request = post("key ada", "");
        *request.body_mut() = whole(Bytes::from(body));
        request
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_is_read_up_to_its_limit_to_count_its_calls() {
        let limits = AgentLimits::new(
            &LimitSettings {
                calls_in_flight: Some(1),
                ..LimitSettings::default()
            },
            None,
        );
        let refusals = Refusals::new(Arc::new(Metrics::new()), "default", None);
        let service = AgentLimitsLayer::new(limits, refusals).layer(slow());
        // A batch of 8 MB is far from the limit (16 MiB).
        let large = service.clone().oneshot(padded(8 << 20)).await;
        assert_eq!(large.expect("answered").status(), StatusCode::OK);
        let at_the_limit = service.clone().oneshot(padded(COUNTED_BODY_LIMIT)).await;
        assert_eq!(at_the_limit.expect("answered").status(), StatusCode::OK);
        let over = service.oneshot(padded(COUNTED_BODY_LIMIT + 1)).await;
        assert_eq!(
            over.expect("answered").status(),
            StatusCode::PAYLOAD_TOO_LARGE
        );
    }
}
