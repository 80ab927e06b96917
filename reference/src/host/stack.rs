//! Each hosted API as one stack of tower layers in front of its MCP
//! endpoint, outermost first:
//!
//! 1. the body deadline ([`BodyDeadlineLayer`]): a body must arrive whole in
//!    time;
//! 2. admission ([`Admission`]): the agent's credential checked and taken
//!    out of the request; nothing behind it ever holds one;
//! 3. session ownership ([`SessionOwnershipLayer`]): a session is its
//!    opener's alone;
//! 4. the per-agent limits ([`AgentLimitsLayer`]): calls per second and in
//!    flight, per agent;
//! 5. tool reach ([`ToolReachLayer`]): an agent let in for read-only tools
//!    calls those alone;
//! 6. the endpoint: MCP, and the call flow behind it, which sees the tool's
//!    name and arguments and nothing of the agent.
//!
//! The connections themselves (how many, how slow) are the listener's
//! ([`super::connections`]), before a request is read at all.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tower::util::BoxCloneSyncService;
use tower::{Service, ServiceBuilder};

use super::agent_limits::AgentLimitsLayer;
use super::deadline::BodyDeadlineLayer;
use super::message::{ApiService, Request, Response};
use super::reach::ToolReachLayer;
use crate::agents::{
    Admission, AgentLimits, AliveSessions, Gate, Refusals, SessionOwners, SessionOwnershipLayer,
};
use crate::gateway::Gateway;
use crate::mcp::{HttpEndpoint, SplicedBody};

/// What one API's stack is made of.
pub struct Parts {
    pub gate: Arc<Gate>,
    pub endpoint: Arc<HttpEndpoint>,
    /// The gateway this version of the API calls with.
    pub gateway: Arc<Gateway>,
    pub owners: Arc<SessionOwners>,
    pub limits: Option<Arc<AgentLimits>>,
    pub refusals: Refusals,
    pub body_timeout: Duration,
}

/// The stack of one API.
pub fn api_service(parts: Parts) -> ApiService {
    let Parts {
        gate,
        endpoint,
        gateway,
        owners,
        limits,
        refusals,
        body_timeout,
    } = parts;
    let alive: AliveSessions = {
        let endpoint = Arc::clone(&endpoint);
        Arc::new(move || {
            let endpoint = Arc::clone(&endpoint);
            Box::pin(async move { endpoint.session_ids().await })
        })
    };
    let server = endpoint.server().clone();
    let service = ServiceBuilder::new()
        .layer(BodyDeadlineLayer::new(body_timeout))
        .layer(Admission::<SplicedBody>::layer(
            Arc::clone(&gate),
            refusals.clone(),
        ))
        .layer(SessionOwnershipLayer::new(owners, alive, refusals.clone()))
        .layer(AgentLimitsLayer::new(limits, refusals.clone()))
        .layer(ToolReachLayer::new(gate, server, refusals))
        .service(Endpoint { endpoint, gateway });
    BoxCloneSyncService::new(service)
}

/// The API's MCP endpoint as the innermost service. The gateway goes with
/// each request, so that a reload publishes the new gateway with the new
/// routes in one swap, even where the endpoint (and its sessions) stays.
#[derive(Clone)]
struct Endpoint {
    endpoint: Arc<HttpEndpoint>,
    gateway: Arc<Gateway>,
}

type Answered = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

impl Service<Request> for Endpoint {
    type Response = Response;
    type Error = Infallible;
    type Future = Answered;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        request.extensions_mut().insert(Arc::clone(&self.gateway));
        let endpoint = Arc::clone(&self.endpoint);
        Box::pin(async move { Ok(endpoint.handle(request).await) })
    }
}
