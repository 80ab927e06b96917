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

use super::refusals::Refusals;
use super::{Admitted, Gate};

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
                Ok(admitted) => {
                    request.extensions_mut().insert::<Admitted>(admitted);
                    Ok(request)
                }
                Err(refusal) => Err(refusals.respond(&gate, &refusal)),
            }
        })
    }
}
