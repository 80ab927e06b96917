//! Checked arguments and a tool's plan to the one upstream request.
//!
//! Rules (see `docs/rules.md`): TC-REQ-001, TC-REQ-002, TC-REQ-003,
//! TC-REQ-004, TC-REQ-005, TC-REQ-006, TC-REQ-007, TC-REQ-008, TC-REQ-009,
//! TC-REQ-010, TC-REQ-011, TC-REQ-012, TC-REQ-013, TC-REQ-014, TC-REQ-015,
//! TC-REQ-016, TC-REQ-017, TC-REQ-018, TC-REQ-019, TC-REQ-020.
//!
//! The only inputs are the tool, its checked arguments and the configured
//! destination: nothing of the agent's own MCP request can reach this module,
//! so nothing of it can be forwarded (TC-REQ-009). A [`Refusal`] means nothing
//! is sent.

mod destination;
mod encode;
mod path;
mod query;
mod refusal;
mod style;

use std::fmt;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, USER_AGENT};
use reqwest::{Method, Url};
use serde_json::{Map, Value};

use crate::convert::{self, Location, ParameterPlan, Tool};

pub use destination::{CredentialSlot, Destination, DestinationError};
pub use encode::encode_component;
pub use refusal::Refusal;

/// The gateway's `Accept`: JSON preferred, anything else welcome (TC-REQ-010).
pub const GATEWAY_ACCEPT: &str = "application/json, */*;q=0.8";

/// The gateway's `User-Agent`, naming hosted MCP (TC-REQ-010).
pub const GATEWAY_USER_AGENT: &str = concat!(
    "hosted-mcp-gateway/",
    env!("CARGO_PKG_VERSION"),
    " (hosted-mcp)"
);

/// Carries the tool's name on every request (TC-REQ-010).
pub const OPERATION_HEADER: &str = "x-agentify-operation";

/// One request, ready to send.
#[derive(Clone)]
pub struct OutboundRequest {
    pub method: Method,
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Option<Vec<u8>>,
}

impl OutboundRequest {
    /// `GET https://…`, for messages; may contain the credential, so it is
    /// masked before an agent sees it.
    pub fn target(&self) -> String {
        format!("{} {}", self.method, self.url)
    }
}

/// Without query values and body: the query may carry the credential.
/// Header values are safe to show, since the credential's is marked
/// sensitive and shows as `Sensitive`.
impl fmt::Debug for OutboundRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let query: Vec<_> = self.url.query_pairs().map(|(name, _)| name).collect();
        f.debug_struct("OutboundRequest")
            .field("method", &self.method)
            .field("origin", &self.url.origin().ascii_serialization())
            .field("path", &self.url.path())
            .field("query_names", &query)
            .field("headers", &self.headers)
            .field("body_bytes", &self.body.as_ref().map(Vec::len))
            .finish()
    }
}

/// Builds the request for one call (TC-REQ-001): path, query, headers, body,
/// the gateway's own headers, and the credential last so nothing can replace it.
pub fn build(
    tool: &Tool,
    arguments: &Map<String, Value>,
    destination: &Destination,
) -> Result<OutboundRequest, Refusal> {
    let plan = &tool.plan;
    let method = Method::from_bytes(plan.method.as_bytes()).map_err(|_| Refusal::NotBuildable {
        reason: format!("`{}` is not an HTTP method", plan.method),
    })?;

    let mut url = destination.base().clone();
    url.set_path(&path::render(
        &plan.path,
        &plan.parameters,
        arguments,
        destination,
    )?);

    let mut pairs = query::pairs(&plan.parameters, arguments);
    let mut headers = argument_headers(&plan.parameters, arguments)?;
    add_gateway_headers(&mut headers, &tool.name)?;

    let body = match (&plan.body, arguments.get("body")) {
        (Some(body_plan), Some(body)) => {
            let content_type = HeaderValue::from_str(&body_plan.content_type).map_err(|_| {
                Refusal::NotBuildable {
                    reason: format!(
                        "the content type `{}` is not a valid header value",
                        body_plan.content_type
                    ),
                }
            })?;
            headers.insert(CONTENT_TYPE, content_type);
            // TC-REQ-011: serializing a JSON value cannot fail.
            Some(serde_json::to_vec(body).unwrap_or_default())
        }
        _ => None,
    };

    // TC-REQ-016: the credential goes on last, as the only value in its
    // place, so no argument can replace it or be sent beside it.
    match destination.credential() {
        // TC-REQ-012, TC-REQ-013, TC-REQ-014: `insert` drops any value an
        // argument gave the same header.
        Some(CredentialSlot::Header { name, value }) => {
            headers.insert(name.clone(), value.clone());
        }
        // TC-REQ-015: a pair an argument made under the same name goes, so
        // the parameter appears once.
        Some(CredentialSlot::Query { name, encoded_pair }) => {
            pairs.retain(|pair| pair.name != *name);
            pairs.push(query::Pair {
                name: name.clone(),
                encoded: encoded_pair.expose().to_owned(),
            });
        }
        None => {}
    }
    url.set_query(query::join(destination.base().query(), &pairs).as_deref());

    Ok(OutboundRequest {
        method,
        url,
        headers,
        body,
    })
}

/// Header arguments in simple style (TC-REQ-006), refusing a value that could
/// split the request (TC-REQ-007) and any header only the gateway may set
/// (TC-REQ-008, defense in depth: conversion already leaves those out).
fn argument_headers(
    parameters: &[ParameterPlan],
    arguments: &Map<String, Value>,
) -> Result<HeaderMap, Refusal> {
    let mut headers = HeaderMap::new();
    for parameter in parameters.iter().filter(|p| p.location == Location::Header) {
        let Some(text) = arguments
            .get(&parameter.argument)
            .and_then(|value| style::simple(value, parameter.explode))
        else {
            continue;
        };
        // TC-REQ-008: the converter gives such a header no argument at all;
        // a plan made some other way still cannot set one.
        if convert::is_denied_header(&parameter.name) {
            return Err(Refusal::NotBuildable {
                reason: format!(
                    "argument `{}` would set the header `{}`, which only the gateway sets",
                    parameter.argument, parameter.name
                ),
            });
        }
        // TC-REQ-018: a name HTTP cannot carry (a space, say) is refused by name.
        let name = HeaderName::from_bytes(parameter.name.as_bytes()).map_err(|_| {
            Refusal::NotBuildable {
                reason: format!("`{}` is not a valid HTTP header name", parameter.name),
            }
        })?;
        // TC-REQ-007: only control characters fail here: CR, LF, NUL and
        // their kin.
        let value = HeaderValue::from_bytes(text.as_bytes()).map_err(|_| Refusal::HeaderValue {
            argument: parameter.argument.clone(),
        })?;
        headers.append(name, value);
    }
    Ok(headers)
}

/// TC-REQ-010: the gateway's `Accept`, `User-Agent` and the tool's name, on
/// every request.
fn add_gateway_headers(headers: &mut HeaderMap, tool_name: &str) -> Result<(), Refusal> {
    headers.insert(ACCEPT, HeaderValue::from_static(GATEWAY_ACCEPT));
    headers.insert(USER_AGENT, HeaderValue::from_static(GATEWAY_USER_AGENT));
    let operation = HeaderValue::from_str(tool_name).map_err(|_| Refusal::NotBuildable {
        reason: "the tool's name is not a valid header value".to_owned(),
    })?;
    headers.insert(HeaderName::from_static(OPERATION_HEADER), operation);
    Ok(())
}

#[cfg(test)]
mod tests;
