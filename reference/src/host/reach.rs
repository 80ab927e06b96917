//! The reach layer: which tools the admitted agent may call, told to MCP
//! (the [`ToolsAllowed`] extension that lists and calls go by), and, for an
//! agent let in for read-only tools only, a call of any other tool refused
//! with `403 insufficient_scope` before MCP reads it, so that its client
//! can ask for the scope that lets it (step-up authorization).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::Either;
use http_body_util::{BodyExt as _, Limited};
use hyper::StatusCode;
use tower::{Layer, Service};

use super::message::{whole, Request, Response};
use crate::agents::{plain, Admitted, Gate, Reach, Refusal, Refusals};
use crate::mcp::{self, McpServer, ToolsAllowed};

/// The largest request body read to learn which tools it calls.
const PEEKED_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// Makes [`ToolReach`] services.
#[derive(Clone)]
pub struct ToolReachLayer {
    gate: Arc<Gate>,
    server: McpServer,
    refusals: Refusals,
}

impl ToolReachLayer {
    pub fn new(gate: Arc<Gate>, server: McpServer, refusals: Refusals) -> Self {
        ToolReachLayer {
            gate,
            server,
            refusals,
        }
    }
}

impl<S> Layer<S> for ToolReachLayer {
    type Service = ToolReach<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ToolReach {
            inner,
            layer: self.clone(),
        }
    }
}

/// A service whose agents call only the tools they may.
#[derive(Clone)]
pub struct ToolReach<S> {
    inner: S,
    layer: ToolReachLayer,
}

type Answered = Pin<Box<dyn Future<Output = Result<Response, std::convert::Infallible>> + Send>>;

/// The inner service's own future where nothing is to be done, so that a
/// request passed on costs no box of its own.
type PassedOrAnswered<F> = Either<F, Answered>;

impl<S> Service<Request> for ToolReach<S>
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
        let reach = request
            .extensions()
            .get::<Admitted>()
            .map_or(Reach::All, |admitted| admitted.reach);
        // Every tool is MCP's default: nothing to say.
        if reach == Reach::All {
            return Either::Left(self.inner.call(request));
        }
        let inner = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, inner);
        let layer = self.layer.clone();
        Either::Right(Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let body = match Limited::new(body, PEEKED_BODY_LIMIT).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => {
                    return Ok(plain(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!(
                            "the request's body is over {PEEKED_BODY_LIMIT} bytes, or broke off\n"
                        ),
                    ))
                }
            };
            let beyond = mcp::tools_called(&body)
                .iter()
                .any(|name| !layer.server.may_call(name, ToolsAllowed::ReadOnly));
            if beyond {
                let needed = layer.gate.write_scope().unwrap_or_default().to_owned();
                let refusal = Refusal::ScopeInsufficient { needed };
                return Ok(layer.refusals.respond(&layer.gate, &refusal));
            }
            parts.extensions.insert(ToolsAllowed::ReadOnly);
            let body = whole(body);
            inner.call(Request::from_parts(parts, body)).await
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use bytes::Bytes;
    use tower::ServiceExt as _;

    use super::*;
    use crate::agents::{authority_client, AgentsSettings, Authorities, Resource};
    use crate::gateway::{Gateway, UpstreamConfig};
    use crate::host::message::{whole, ApiService};
    use crate::watch::Metrics;

    /// A plain service that answers with the tools the agent may call.
    fn endpoint() -> ApiService {
        ApiService::new(tower::service_fn(|request: Request| async move {
            let allowed = request.extensions().get::<ToolsAllowed>().copied();
            Ok::<_, std::convert::Infallible>(plain(StatusCode::OK, format!("{allowed:?}")))
        }))
    }

    fn server() -> McpServer {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/petstore.yaml");
        let document = crate::load::load_path(&path).expect("the fixture loads");
        let catalogue = crate::convert::convert(&document).expect("it converts");
        let upstream = UpstreamConfig {
            base_url: "http://127.0.0.1:9".to_owned(),
            credential: None,
            placement: None,
            trusted_ca_pem: None,
            also_masked: Vec::new(),
            exchange: None,
        };
        McpServer::limitable(Arc::new(
            Gateway::new(catalogue, upstream).expect("a gateway"),
        ))
    }

    fn call(tool: &str, reach: Reach) -> Request {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}"}}}}"#
        );
        let mut request = Request::new(whole(Bytes::from(body)));
        let mut admitted = Admitted::anyone();
        admitted.reach = reach;
        request.extensions_mut().insert(admitted);
        request
    }

    async fn text(response: Response) -> (StatusCode, String) {
        let status = response.status();
        let body = response.into_body().collect().await.expect("a body");
        (
            status,
            String::from_utf8_lossy(&body.to_bytes()).into_owned(),
        )
    }

    /// The scope layer of an open gate over [`endpoint`].
    fn reach_over_endpoint() -> <ToolReachLayer as Layer<ApiService>>::Service {
        let resource = Resource::at("http://localhost", "/mcp");
        let client = authority_client().expect("a client");
        let gate = Gate::build(
            &AgentsSettings::default(),
            resource,
            &Authorities::default(),
            &client,
        )
        .expect("a gate");
        let refusals = Refusals::new(Arc::new(Metrics::new()), "default", None);
        ToolReachLayer::new(Arc::new(gate), server(), refusals).layer(endpoint())
    }

    #[tokio::test]
    async fn a_read_only_agent_calls_read_only_tools_alone() {
        let service = reach_over_endpoint();
        let (status, said) = text(
            service
                .clone()
                .oneshot(call("listPets", Reach::ReadOnly))
                .await
                .expect("answered"),
        )
        .await;
        assert_eq!((status, said.as_str()), (StatusCode::OK, "Some(ReadOnly)"));
        let (status, said) = text(
            service
                .clone()
                .oneshot(call("createPet", Reach::ReadOnly))
                .await
                .expect("answered"),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{said}");
        assert!(said.starts_with("[AGENT_SCOPE_INSUFFICIENT]"), "{said}");
        let (status, said) = text(
            service
                .oneshot(call("createPet", Reach::All))
                .await
                .expect("answered"),
        )
        .await;
        // Every tool is MCP's default: nothing said.
        assert_eq!((status, said.as_str()), (StatusCode::OK, "None"));
    }

    #[tokio::test]
    async fn a_body_is_read_up_to_its_limit_to_learn_its_tools() {
        let service = reach_over_endpoint();
        let padded = |size: usize| {
            let mut request = call("listPets", Reach::ReadOnly);
            let mut body =
                br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"listPets"}}"#
                    .to_vec();
            body.resize(size, b' ');
            *request.body_mut() = whole(Bytes::from(body));
            request
        };
        // A batch of 8 MB is far from the limit (16 MiB).
        let large = service.clone().oneshot(padded(8 << 20)).await;
        assert_eq!(large.expect("answered").status(), StatusCode::OK);
        let at_the_limit = service.clone().oneshot(padded(PEEKED_BODY_LIMIT)).await;
        let (status, said) = text(at_the_limit.expect("answered")).await;
        assert_eq!((status, said.as_str()), (StatusCode::OK, "Some(ReadOnly)"));
        let over = service.oneshot(padded(PEEKED_BODY_LIMIT + 1)).await;
        assert_eq!(
            over.expect("answered").status(),
            StatusCode::PAYLOAD_TOO_LARGE
        );
    }
}
