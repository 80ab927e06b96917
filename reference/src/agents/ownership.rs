//! The session-ownership layer: a session of the `initialize` era is the
//! agent's that opened it ([`SessionOwners`]). A request that shows the ID
//! of another agent's session gets the very answer MCP gives for a session
//! that does not exist, logged and counted; the answers that open and close
//! sessions are watched to keep the owners.
//!
//! It sits behind the admission layer and reads the [`Admitted`] agent it
//! left; where agents are not told apart (anyone may come in), it passes
//! every request on.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::future::Either;
use hyper::{Method, Request, Response, StatusCode};
use tower::{Layer, Service};

use super::admitted::Admitted;
use super::refusals::{plain, Refusals};
use super::sessions::{Bookkeeping, SessionOwners};

/// The header MCP's Streamable HTTP carries a session's ID in.
const SESSION_ID: &str = "mcp-session-id";

/// The reason a refusal of another agent's session is counted under.
const SESSION_OF_ANOTHER: &str = "session_of_another";

/// What MCP answers for a session that does not exist, word for word.
const NO_SUCH_SESSION: &str = "Not Found: Session not found";

/// The IDs of the sessions an endpoint has alive now.
pub type AliveSessions =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = HashSet<String>> + Send>> + Send + Sync>;

/// Makes [`SessionOwnership`] services.
#[derive(Clone)]
pub struct SessionOwnershipLayer {
    owners: Arc<SessionOwners>,
    alive: AliveSessions,
    refusals: Refusals,
}

impl SessionOwnershipLayer {
    /// Keeps `owners` of the sessions of an endpoint whose live sessions
    /// `alive` lists.
    pub fn new(owners: Arc<SessionOwners>, alive: AliveSessions, refusals: Refusals) -> Self {
        SessionOwnershipLayer {
            owners,
            alive,
            refusals,
        }
    }
}

impl<S> Layer<S> for SessionOwnershipLayer {
    type Service = SessionOwnership<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SessionOwnership {
            inner,
            layer: self.clone(),
        }
    }
}

/// A service whose sessions are each one agent's.
#[derive(Clone)]
pub struct SessionOwnership<S> {
    inner: S,
    layer: SessionOwnershipLayer,
}

type Pending<R, E> = Pin<Box<dyn Future<Output = Result<R, E>> + Send>>;

/// The inner service's own future where nothing is to be done, so that a
/// request passed on costs no box of its own.
type PassedOrPending<F, R, E> = futures::future::Either<F, Pending<R, E>>;

impl<S, B, ResBody> Service<Request<B>> for SessionOwnership<S>
where
    S: Service<Request<B>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Send,
    B: Send + 'static,
    ResBody: From<Bytes> + Send + 'static,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future = PassedOrPending<S::Future, Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, inner);
        let layer = self.layer.clone();
        let told_apart = request
            .extensions()
            .get::<Admitted>()
            .filter(|admitted| admitted.told_apart())
            .map(|admitted| (admitted.principal.clone(), admitted.agent.clone()));
        let Some((principal, agent)) = told_apart else {
            return Either::Left(inner.call(request));
        };
        let asked = request
            .headers()
            .get(SESSION_ID)
            .and_then(|id| id.to_str().ok())
            .map(str::to_owned);
        if let Some(id) = &asked {
            if !layer.owners.may_use(id, &principal) {
                layer.refusals.count(SESSION_OF_ANOTHER);
                tracing::warn!(
                    api = layer.refusals.api(),
                    agent,
                    "agent refused: it showed the ID of another agent's session"
                );
                let refused = plain(StatusCode::NOT_FOUND, NO_SUCH_SESSION.to_owned());
                return Either::Right(Box::pin(async move { Ok(refused) }));
            }
        }
        let method = request.method().clone();
        Either::Right(Box::pin(async move {
            let response = inner.call(request).await?;
            let answered = Answered::of(&response);
            layer
                .note(&method, asked.as_deref(), &answered, &principal)
                .await;
            Ok(response)
        }))
    }
}

impl SessionOwnershipLayer {
    /// Keeps the owner of a session the answer opened, and forgets one it
    /// closed or found gone.
    async fn note(
        &self,
        method: &Method,
        asked: Option<&str>,
        answered: &Answered,
        principal: &str,
    ) {
        match asked {
            None => {
                let Some(id) = &answered.opened else {
                    return;
                };
                if self.owners.opened(id, principal) == Bookkeeping::Prune {
                    self.owners.keep_only(&(self.alive)().await);
                }
            }
            Some(id) => {
                let closed = *method == Method::DELETE && answered.status.is_success();
                if closed || answered.status == StatusCode::NOT_FOUND {
                    self.owners.ended(id);
                }
            }
        }
    }
}

/// What an answer says of the sessions: its status, and the session it
/// opened.
struct Answered {
    status: StatusCode,
    opened: Option<String>,
}

impl Answered {
    fn of<B>(response: &Response<B>) -> Answered {
        Answered {
            status: response.status(),
            opened: response
                .headers()
                .get(SESSION_ID)
                .and_then(|id| id.to_str().ok())
                .map(str::to_owned),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use http_body_util::Full;
    use tower::{Service as _, ServiceExt as _};

    use super::*;
    use crate::agents::admitted::Reach;
    use crate::watch::Metrics;

    /// A plain service standing for MCP: a request without a session opens
    /// `s1`; a DELETE closes it.
    fn endpoint(
        calls: Arc<AtomicUsize>,
    ) -> impl Service<
        Request<Full<Bytes>>,
        Response = Response<Full<Bytes>>,
        Error = std::convert::Infallible,
        Future = impl Future<Output = Result<Response<Full<Bytes>>, std::convert::Infallible>> + Send,
    > + Clone {
        tower::service_fn(move |request: Request<Full<Bytes>>| {
            calls.fetch_add(1, Ordering::Relaxed);
            let opens = !request.headers().contains_key(SESSION_ID);
            async move {
                let mut response = Response::new(Full::new(Bytes::new()));
                if opens {
                    response
                        .headers_mut()
                        .insert(SESSION_ID, "s1".parse().expect("a header"));
                }
                Ok(response)
            }
        })
    }

    fn agent(principal: &str) -> Admitted {
        Admitted {
            agent: principal.to_owned(),
            principal: principal.to_owned(),
            account: principal.to_owned(),
            reach: Reach::All,
        }
    }

    fn request(method: Method, session: Option<&str>, admitted: Admitted) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(Bytes::new()));
        *request.method_mut() = method;
        if let Some(id) = session {
            request
                .headers_mut()
                .insert(SESSION_ID, id.parse().expect("a header"));
        }
        request.extensions_mut().insert(admitted);
        request
    }

    #[tokio::test]
    async fn a_session_is_its_openers_alone_until_it_closes_it() {
        let calls = Arc::new(AtomicUsize::new(0));
        let owners = Arc::new(SessionOwners::default());
        let alive: AliveSessions =
            Arc::new(|| Box::pin(async { HashSet::from(["s1".to_owned()]) }));
        let refusals = Refusals::new(Arc::new(Metrics::new()), "default", None);
        let layer = SessionOwnershipLayer::new(Arc::clone(&owners), alive, refusals);
        let service = layer.layer(endpoint(Arc::clone(&calls)));
        let send = |request| {
            let mut service = service.clone();
            async move {
                service
                    .ready()
                    .await
                    .expect("ready")
                    .call(request)
                    .await
                    .expect("answered")
            }
        };
        let opened = send(request(Method::POST, None, agent("key:ada"))).await;
        assert_eq!(opened.headers()[SESSION_ID], "s1");
        let own = send(request(Method::POST, Some("s1"), agent("key:ada"))).await;
        assert_eq!(own.status(), StatusCode::OK);
        let other = send(request(Method::POST, Some("s1"), agent("key:eve"))).await;
        assert_eq!(other.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            calls.load(Ordering::Relaxed),
            2,
            "the other agent reached it"
        );
        // Closed by its agent, it is forgotten.
        send(request(Method::DELETE, Some("s1"), agent("key:ada"))).await;
        assert!(owners.may_use("s1", "key:eve"));
        // Where anyone comes in, agents are not told apart.
        let anyone = send(request(Method::POST, Some("s2"), Admitted::anyone())).await;
        assert_eq!(anyone.status(), StatusCode::OK);
    }
}
