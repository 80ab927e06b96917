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
use hyper::{Method, Request, Response, StatusCode};
use tower::{Layer, Service};

use super::refusals::{plain, Refusals};
use super::sessions::{Bookkeeping, SessionOwners};
use super::Admitted;

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
    type Future = Pending<Self::Response, Self::Error>;

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
            return Box::pin(inner.call(request));
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
                return Box::pin(async move { Ok(refused) });
            }
        }
        let method = request.method().clone();
        Box::pin(async move {
            let response = inner.call(request).await?;
            let answered = Answered::of(&response);
            layer
                .note(&method, asked.as_deref(), &answered, &principal)
                .await;
            Ok(response)
        })
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
