//! Refusals of the DNS-rebinding guard, told so an operator can act.
//!
//! rmcp's guard answers a request for a `Host` or from an `Origin` it does
//! not accept with `403 Forbidden: Host header is not allowed`, and logs the
//! host as a Rust debug struct. Neither says which name was refused nor how
//! to accept it. The guard stays rmcp's; its two refusals are reworded here,
//! naming the value and the option that accepts it, and logged once.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::header::HeaderValue;
use hyper::StatusCode;

/// What a request said of itself, kept for explaining a refusal.
pub struct Asked {
    host: Option<HeaderValue>,
    origin: Option<HeaderValue>,
}

impl Asked {
    pub fn of<B>(request: &hyper::Request<B>) -> Asked {
        Asked {
            host: request.headers().get(hyper::header::HOST).cloned(),
            origin: request.headers().get(hyper::header::ORIGIN).cloned(),
        }
    }
}

/// `response` reworded when it refuses the request's `Host` or `Origin`.
pub async fn explain(
    response: hyper::Response<BoxBody<Bytes, Infallible>>,
    asked: Asked,
) -> hyper::Response<BoxBody<Bytes, Infallible>> {
    if response.status() != StatusCode::FORBIDDEN {
        return response;
    }
    let (parts, body) = response.into_parts();
    let said = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    };
    let text = match refused(&said) {
        Some(Refused::Host) => {
            let host = shown(asked.host.as_ref());
            // The name without its port, as --allowed-host takes it.
            let authority = host.parse::<hyper::http::uri::Authority>();
            let name = authority.as_ref().map_or(host.as_str(), |a| a.host());
            tracing::warn!(
                host = %host,
                "refused a request for a Host this gateway does not serve; accept it with --allowed-host {name}"
            );
            format!(
                "Forbidden: this gateway does not serve the Host {host:?}. If it is your gateway's \
                 public name, start the gateway with --allowed-host {name}\n"
            )
        }
        Some(Refused::Origin) => {
            let origin = shown(asked.origin.as_ref());
            tracing::warn!(
                origin = %origin,
                "refused a browser request from an Origin not allowed; allow it with --allowed-origin {origin}"
            );
            format!(
                "Forbidden: browser pages from the Origin {origin:?} may not call this gateway. \
                 To allow them, start the gateway with --allowed-origin {origin}\n"
            )
        }
        None => return hyper::Response::from_parts(parts, Full::new(said).boxed()),
    };
    let mut response = hyper::Response::from_parts(parts, Full::new(Bytes::from(text)).boxed());
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response.headers_mut().remove(hyper::header::CONTENT_LENGTH);
    response
}

enum Refused {
    Host,
    Origin,
}

/// Which guard refused, from rmcp's own words.
fn refused(said: &[u8]) -> Option<Refused> {
    match said {
        b"Forbidden: Host header is not allowed" => Some(Refused::Host),
        b"Forbidden: Origin header is not allowed" => Some(Refused::Origin),
        _ => None,
    }
}

/// A header value as text for the message, whatever bytes it holds.
fn shown(value: Option<&HeaderValue>) -> String {
    value.map_or_else(String::new, |value| {
        String::from_utf8_lossy(value.as_bytes()).into_owned()
    })
}
