//! The admission layer: the first thing each request to an API meets.
//!
//! It is tower-http's `AsyncRequireAuthorization` with the API's [`Gate`]
//! as its `AsyncAuthorizeRequest`: the credential the request shows is
//! checked, and the request goes on with the [`Admitted`] agent in its
//! extensions, or is answered with the gate's refusal. Either way the
//! agent's own credential headers are taken out first, so that no layer
//! behind it, and no part of MCP or of the call, ever holds them.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use hyper::{Request, Response};
use tower_http::auth::{AsyncAuthorizeRequest, AsyncRequireAuthorizationLayer};

use super::admitted::Admitted;
use super::gate::Gate;
use super::refusals::Refusals;

/// The gate of one API, as a request authorizer.
pub struct Admission<ResBody> {
    gate: Arc<Gate>,
    refusals: Refusals,
    _body: PhantomData<fn() -> ResBody>,
}

impl<ResBody> Clone for Admission<ResBody> {
    fn clone(&self) -> Self {
        Admission {
            gate: Arc::clone(&self.gate),
            refusals: self.refusals.clone(),
            _body: PhantomData,
        }
    }
}

impl<ResBody> Admission<ResBody> {
    /// The layer that lets in the agents `gate` lets in.
    pub fn layer(gate: Arc<Gate>, refusals: Refusals) -> AsyncRequireAuthorizationLayer<Self> {
        AsyncRequireAuthorizationLayer::new(Admission {
            gate,
            refusals,
            _body: PhantomData,
        })
    }
}

type Decided<B, ResBody> =
    Pin<Box<dyn Future<Output = Result<Request<B>, Response<ResBody>>> + Send>>;

impl<B, ResBody> AsyncAuthorizeRequest<B> for Admission<ResBody>
where
    B: Send + 'static,
    ResBody: From<Bytes> + Send + 'static,
{
    type RequestBody = B;
    type ResponseBody = ResBody;
    type Future = Decided<B, ResBody>;

    fn authorize(&mut self, mut request: Request<B>) -> Self::Future {
        let gate = Arc::clone(&self.gate);
        let refusals = self.refusals.clone();
        Box::pin(async move {
            let decided = gate.admit(request.headers(), request.uri().query()).await;
            gate.strip_credentials(request.headers_mut());
            match decided {
                // Anyone, where agents are not told apart, is what the
                // layers behind take a request without an agent for.
                Ok(admitted) if !admitted.told_apart() => Ok(request),
                Ok(admitted) => {
                    request.extensions_mut().insert::<Admitted>(admitted);
                    Ok(request)
                }
                Err(refusal) => Err(refusals.respond(&gate, &refusal)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use bytes::Bytes;
    use http_body_util::{BodyExt as _, Full};
    use hyper::StatusCode;
    use tower::{Layer as _, Service as _, ServiceExt as _};

    use super::*;
    use crate::agents::admitted::{AgentsSettings, KeysSettings};
    use crate::agents::authority::Authorities;
    use crate::agents::gate::{authority_client, Resource};
    use crate::agents::keys::line_for;
    use crate::watch::Metrics;

    type Seen = Arc<Mutex<Vec<(Option<Admitted>, bool)>>>;

    /// A plain service that notes the agent it is given and whether an
    /// `Authorization` header reached it.
    fn inner(
        seen: Seen,
    ) -> impl tower::Service<
        Request<Full<Bytes>>,
        Response = Response<Full<Bytes>>,
        Error = std::convert::Infallible,
        Future = impl Send,
    > + Clone {
        tower::service_fn(move |request: Request<Full<Bytes>>| {
            let seen = Arc::clone(&seen);
            async move {
                let admitted = request.extensions().get::<Admitted>().cloned();
                let authorization = request.headers().contains_key("authorization");
                seen.lock().expect("noted").push((admitted, authorization));
                Ok(Response::new(Full::new(Bytes::from_static(b"served"))))
            }
        })
    }

    fn gate(keys: bool) -> Arc<Gate> {
        static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let file = keys.then(|| {
            // A file of each test's own: tests run at once.
            let n = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let file =
                std::env::temp_dir().join(format!("admission-{}-{n}.keys", std::process::id()));
            std::fs::write(&file, line_for("key-of-ada-1d2e", "ada")).expect("written");
            file
        });
        let settings = AgentsSettings {
            keys: file.clone().map(|file| KeysSettings { file, header: None }),
            oauth: None,
        };
        let resource = Resource::at("http://localhost", "/mcp");
        let client = authority_client().expect("a client");
        let gate = Gate::build(&settings, resource, &Authorities::default(), &client);
        // The gate read the file whole; nothing is left behind in the temp dir.
        if let Some(file) = file {
            std::fs::remove_file(file).expect("removed");
        }
        Arc::new(gate.expect("a gate"))
    }

    /// The answer's status, what the service saw, the challenge, and the
    /// metrics after.
    async fn admit(
        gate: Arc<Gate>,
        authorization: Option<&str>,
    ) -> (StatusCode, Seen, String, String) {
        let seen = Seen::default();
        let metrics = Arc::new(Metrics::new());
        let refusals = Refusals::new(Arc::clone(&metrics), "default", None);
        let mut service =
            Admission::<Full<Bytes>>::layer(gate, refusals).layer(inner(Arc::clone(&seen)));
        let mut request = Request::new(Full::new(Bytes::new()));
        if let Some(value) = authorization {
            request
                .headers_mut()
                .insert("authorization", value.parse().expect("a header"));
        }
        let response = service
            .ready()
            .await
            .expect("ready")
            .call(request)
            .await
            .expect("answered");
        let status = response.status();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().expect("ASCII").to_owned())
            .unwrap_or_default();
        let _ = response.into_body().collect().await;
        (status, seen, challenge, metrics.encode())
    }

    #[tokio::test]
    async fn a_known_key_lets_its_agent_in_without_its_credential() {
        let (status, seen, _, _) = admit(gate(true), Some("Bearer key-of-ada-1d2e")).await;
        assert_eq!(status, StatusCode::OK);
        let seen = seen.lock().expect("seen");
        let (admitted, authorization) = &seen[0];
        assert_eq!(admitted.as_ref().map(|a| a.agent.as_str()), Some("ada"));
        assert_eq!(
            admitted.as_ref().map(|a| a.account.as_str()),
            Some("key ada")
        );
        assert!(!authorization, "the credential went past the gate");
    }

    #[tokio::test]
    async fn no_key_or_a_wrong_one_is_refused_before_the_service() {
        for (shown, reason) in [
            (None, "no_credential"),
            (Some("Bearer key-of-eve-0000"), "key_unknown"),
            (Some("Basic YWRhOg=="), "no_credential"),
        ] {
            let (status, seen, challenge, counted) = admit(gate(true), shown).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{shown:?}");
            assert!(
                counted.contains(&format!(r#"reason="{reason}""#)),
                "{shown:?}: {counted}"
            );
            assert!(challenge.starts_with("Bearer "), "{challenge}");
            assert!(
                seen.lock().expect("seen").is_empty(),
                "{shown:?} reached it"
            );
        }
    }

    #[tokio::test]
    async fn an_open_gate_lets_anyone_in_and_still_takes_the_header_out() {
        let (status, seen, _, _) = admit(gate(false), Some("Bearer whatever")).await;
        assert_eq!(status, StatusCode::OK);
        let seen = seen.lock().expect("seen");
        let (admitted, authorization) = &seen[0];
        assert!(admitted.is_none(), "no agent told apart");
        assert!(!authorization);
    }
}
