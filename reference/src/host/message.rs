//! The request and the answer every layer of an API's stack handles.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use tower::util::BoxCloneSyncService;

use crate::mcp::SplicedBody;

/// Why a request's body broke off: the client, or its deadline. A type of
/// its own rather than a boxed trait object, whose lifetime the compiler
/// cannot always tell in the layers' futures.
#[derive(Debug)]
pub struct BodyError(Box<dyn std::error::Error + Send + Sync>);

impl BodyError {
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        BodyError(Box::new(error))
    }
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for BodyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// A request's body, as every layer sees it.
pub type Body = UnsyncBoxBody<Bytes, BodyError>;

/// A body read whole already, for the layers behind one that read it.
pub fn whole(bytes: Bytes) -> Body {
    http_body_util::BodyExt::boxed_unsync(http_body_util::BodyExt::map_err(
        http_body_util::Full::new(bytes),
        |never| match never {},
    ))
}

pub type Request = hyper::Request<Body>;
pub type Response = hyper::Response<SplicedBody>;
/// One API's stack, ready to answer requests to its endpoint.
pub type ApiService = BoxCloneSyncService<Request, Response, Infallible>;
