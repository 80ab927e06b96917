//! The router in front of the APIs: each request goes to the stack of the
//! API its path names, in the table as it is when the request arrives; the
//! protected-resource metadata of an API is answered here; anything else
//! is 404.

use std::sync::Arc;

use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::StatusCode;
use tower::ServiceExt as _;

use super::agent_limits::ClientAddress;
use super::message::{BodyError, Response};
use super::table::{Routes, Table};
use crate::agents::{plain, METADATA_PREFIX};

/// The answer to one request from `client`.
pub async fn answer(
    table: Arc<Table>,
    request: hyper::Request<Incoming>,
    client: ClientAddress,
) -> Response {
    let routes = table.routes();
    let path = request.uri().path();
    if let Some(resource) = path.strip_prefix(METADATA_PREFIX) {
        return metadata(&routes, resource);
    }
    let Some(hosted) = routes.find(path) else {
        return not_found(&routes);
    };
    // The table may change while the request is answered; the API it
    // reached answers it, with the gateway of that version.
    let service = hosted.service.clone();
    drop(routes);
    let mut request = request.map(|body| body.map_err(BodyError::new).boxed_unsync());
    request.extensions_mut().insert(client);
    match service.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The protected-resource metadata (RFC 9728) of the API whose endpoint is
/// at `resource` (the root, for the one API of the flags).
fn metadata(routes: &Routes, resource: &str) -> Response {
    let hosted = match (resource, routes.apis()) {
        ("" | "/", [only]) => Some(only),
        _ => routes.find(resource),
    };
    match hosted.and_then(|hosted| hosted.gate.metadata()) {
        Some(document) => {
            let mut response: Response = plain(StatusCode::OK, document.to_string());
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        None => plain(
            StatusCode::NOT_FOUND,
            "not found: no API here takes access tokens\n".to_owned(),
        ),
    }
}

fn not_found(routes: &Routes) -> Response {
    let text = match routes.apis() {
        [only] if only.settings.name.is_none() => "not found: MCP is served at /mcp\n",
        _ => {
            "not found: this gateway serves MCP at /mcp/{name}, one endpoint for each API it \
             hosts\n"
        }
    };
    plain(StatusCode::NOT_FOUND, text.to_owned())
}
