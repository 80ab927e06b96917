//! The body-deadline layer: a request's body must arrive whole within a
//! deadline from its head, however slowly it trickles. A client that sends
//! a byte a second holds a connection, a task and a buffer for as long as
//! it likes otherwise; here it gets `408` and loses the connection.
//!
//! Unlike a per-read timeout (tower-http's `RequestBodyTimeout` restarts
//! its clock at each frame), the clock runs for the whole body.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper::header::{HeaderValue, CONNECTION};
use hyper::StatusCode;
use tower::{Layer, Service};

use super::message::{Body, BodyError, Request, Response};
use crate::agents::plain;
use crate::errors::AgentMessage;

/// Makes [`BodyDeadline`] services.
#[derive(Debug, Clone, Copy)]
pub struct BodyDeadlineLayer {
    within: Duration,
}

impl BodyDeadlineLayer {
    pub fn new(within: Duration) -> Self {
        BodyDeadlineLayer { within }
    }
}

impl<S> Layer<S> for BodyDeadlineLayer {
    type Service = BodyDeadline<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BodyDeadline {
            inner,
            within: self.within,
        }
    }
}

/// A service whose requests' bodies must arrive within a deadline.
#[derive(Debug, Clone)]
pub struct BodyDeadline<S> {
    inner: S,
    within: Duration,
}

type Answered = Pin<Box<dyn Future<Output = Result<Response, std::convert::Infallible>> + Send>>;

impl<S> Service<Request> for BodyDeadline<S>
where
    S: Service<Request, Response = Response, Error = std::convert::Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = Answered;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let missed = Arc::new(AtomicBool::new(false));
        let within = self.within;
        let request = request.map(|body| {
            DeadlineBody {
                inner: body,
                deadline: tokio::time::Instant::now() + within,
                timer: None,
                done: false,
                missed: Arc::clone(&missed),
            }
            .boxed_unsync()
        });
        let answered = self.inner.call(request);
        Box::pin(async move {
            let response = answered.await?;
            if !missed.load(Ordering::Relaxed) {
                return Ok(response);
            }
            let message = AgentMessage::RequestTooSlow {
                seconds: within.as_secs(),
            };
            let mut refused: Response = plain(
                StatusCode::REQUEST_TIMEOUT,
                format!("{}\n", message.render()),
            );
            refused
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
            Ok(refused)
        })
    }
}

/// The body's reading broke off at its deadline.
#[derive(Debug, thiserror::Error)]
#[error("the request's body did not arrive within its deadline")]
pub struct BodyTooSlow;

/// A body that fails once its deadline passes before its end. The timer is
/// set only when the body has to be waited for: a body that has arrived
/// with its head (most do) costs none.
struct DeadlineBody {
    inner: Body,
    deadline: tokio::time::Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    done: bool,
    missed: Arc<AtomicBool>,
}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        if self.done {
            return Pin::new(&mut self.inner).poll_frame(cx);
        }
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match polled {
            Poll::Ready(None) => {
                self.done = true;
                return polled;
            }
            Poll::Ready(Some(_)) if tokio::time::Instant::now() < self.deadline => return polled,
            Poll::Pending => {
                let deadline = self.deadline;
                let timer = self
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
            }
            Poll::Ready(Some(_)) => {}
        }
        self.done = true;
        self.missed.store(true, Ordering::Relaxed);
        Poll::Ready(Some(Err(BodyError::new(BodyTooSlow))))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::message::{whole, ApiService};
    use futures::StreamExt as _;
    use http_body_util::StreamBody;

    /// A plain service that reads the whole body, as the endpoint does.
    fn reader() -> ApiService {
        ApiService::new(tower::service_fn(|request: Request| async move {
            let text = match request.into_body().collect().await {
                Ok(body) => String::from_utf8_lossy(&body.to_bytes()).into_owned(),
                Err(error) => format!("broke off: {error}"),
            };
            Ok::<_, std::convert::Infallible>(plain(StatusCode::OK, text))
        }))
    }

    async fn text(response: Response) -> (StatusCode, String) {
        let status = response.status();
        let body = response.into_body().collect().await.expect("a body");
        (
            status,
            String::from_utf8_lossy(&body.to_bytes()).into_owned(),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_on_time_passes_whole() {
        let mut service = BodyDeadlineLayer::new(Duration::from_secs(5)).layer(reader());
        let body = whole(Bytes::from_static(b"{}"));
        let response = service.call(Request::new(body)).await.expect("answered");
        assert_eq!(text(response).await, (StatusCode::OK, "{}".to_owned()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_trickled_past_its_deadline_is_refused_and_the_connection_closed() {
        let mut service = BodyDeadlineLayer::new(Duration::from_secs(5)).layer(reader());
        // A byte a second, for ten seconds.
        let trickle = futures::stream::unfold(0u8, |sent| async move {
            (sent < 10).then_some(())?;
            tokio::time::sleep(Duration::from_secs(1)).await;
            Some((
                Ok::<_, BodyError>(Frame::data(Bytes::from_static(b"x"))),
                sent + 1,
            ))
        });
        let body = StreamBody::new(trickle).boxed_unsync();
        let response = service.call(Request::new(body)).await.expect("answered");
        assert_eq!(response.headers()[CONNECTION], "close");
        let (status, said) = text(response).await;
        assert_eq!(status, StatusCode::REQUEST_TIMEOUT);
        assert!(said.starts_with("[REQUEST_TOO_SLOW]"), "{said}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_body_s_length_and_end_are_known_through_the_deadline() {
        let mut service = BodyDeadlineLayer::new(Duration::from_secs(5)).layer(ApiService::new(
            tower::service_fn(|request: Request| async move {
                let body = request.body();
                let said = format!("{:?} {}", body.size_hint().exact(), body.is_end_stream());
                Ok::<_, std::convert::Infallible>(plain(StatusCode::OK, said))
            }),
        ));
        for (sent, said) in [(&b"{}"[..], "Some(2) false"), (b"", "Some(0) true")] {
            let body = whole(Bytes::from_static(sent));
            let response = service.call(Request::new(body)).await.expect("answered");
            assert_eq!(text(response).await.1, said);
        }
    }

    #[tokio::test]
    async fn a_body_that_never_keeps_the_reader_waiting_still_ends_by_its_deadline() {
        let mut service = BodyDeadlineLayer::new(Duration::from_secs(1)).layer(reader());
        // Forty frames, each ready when asked for, 50 ms apart: two seconds
        // of a body that is always there to read.
        let steady = futures::stream::iter(0..40).map(|_| {
            std::thread::sleep(Duration::from_millis(50));
            Ok::<_, BodyError>(Frame::data(Bytes::from_static(b"x")))
        });
        let body = StreamBody::new(steady).boxed_unsync();
        let response = service.call(Request::new(body)).await.expect("answered");
        let (status, said) = text(response).await;
        assert_eq!(status, StatusCode::REQUEST_TIMEOUT, "{said}");
    }
}
