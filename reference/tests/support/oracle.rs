//! The gateway's types as the oracle's plain data: the one adapter between
//! `hosted-mcp-gateway` and `hosted-mcp-oracle`, shared by the property
//! tests (`tests/properties.rs`) and the fuzz targets (`fuzz/src/lib.rs`).
//!
//! Both include this file with `#[path = ...] mod`, so there is one copy
//! and no crate for it: the oracle must not depend on the gateway (it would
//! then agree with it by sharing code), the gateway does not depend on its
//! own tests, and a third crate would be one more workspace member, and one
//! more path dependency of the fuzz workspace, for a few dozen lines. Both
//! builds already depend on the gateway, the oracle and `url` under these
//! names, so the file compiles as is in each; it uses nothing else, in
//! particular nothing of `support/mod.rs`, which only integration tests
//! can build. The invariants stay the oracle's: this file turns the
//! gateway's types into the oracle's, holds the destination's slot against
//! the oracle's, and asserts what the oracle says of a request.

use hosted_mcp_gateway::convert::{self, CredentialPlacement, Tool};
use hosted_mcp_gateway::request::{
    CredentialSlot, Destination, OutboundRequest, GATEWAY_ACCEPT, GATEWAY_USER_AGENT,
};
use hosted_mcp_oracle::{self as oracle, Call, Place, Request, Slot};

/// The gateway's placement as the oracle's own type.
fn place(placement: &CredentialPlacement) -> Place {
    match placement {
        CredentialPlacement::Bearer => Place::Bearer,
        CredentialPlacement::Basic => Place::Basic,
        CredentialPlacement::Header(name) => Place::Header(name.clone()),
        CredentialPlacement::Query(name) => Place::Query(name.clone()),
    }
}

/// The destination settled the credential where the oracle's slot says
/// (TC-REQ-012, TC-REQ-013, TC-REQ-014, TC-REQ-015, bearer without a
/// placement as TC-REQ-017 ends): the header's name and exact value, or the
/// query parameter's name and a pair that reads back, as a server reads it,
/// as that name and the credential alone. No credential, no slot.
pub fn assert_credential_settled(
    destination: &Destination,
    credential: &str,
    placement: Option<&CredentialPlacement>,
) {
    let place = placement.map(place);
    let expected = oracle::slot(credential, place.as_ref());
    let settled = match (destination.credential(), &expected) {
        (None, None) => true,
        (
            Some(CredentialSlot::Header { name, value }),
            Some(Slot::Header { name: n, value: v }),
        ) => name.as_str() == n && value.as_bytes() == v.as_bytes(),
        (
            Some(CredentialSlot::Query { name, encoded_pair }),
            Some(Slot::Query { name: n, value: v }),
        ) => {
            let pairs: Vec<(String, String)> =
                url::form_urlencoded::parse(encoded_pair.expose().as_bytes())
                    .map(|(key, value)| (key.into_owned(), value.into_owned()))
                    .collect();
            name == n && pairs == [(n.clone(), v.clone())]
        }
        _ => false,
    };
    // The slot's kind and name only: the values hold the credential.
    assert!(
        settled,
        "TC-REQ-012, TC-REQ-013, TC-REQ-014, TC-REQ-015: the destination did not \
         settle the credential in the oracle's slot ({})",
        match &expected {
            None => "none, for no credential".to_owned(),
            Some(Slot::Header { name, .. }) => format!("the header {name}"),
            Some(Slot::Query { name, .. }) => format!("the query parameter {name:?}"),
        }
    );
}

/// Every safety invariant of one built request: the destination settled
/// the credential in its slot ([`assert_credential_settled`]), and the
/// request passes the oracle's request invariants for the call it was
/// built for (`base` the configured base URL, `tool` the tool called), the
/// gateway's own denied headers added to the spec's.
pub fn assert_request_safe(
    request: &OutboundRequest,
    tool: &Tool,
    base: &str,
    destination: &Destination,
    credential: &str,
    placement: Option<&CredentialPlacement>,
) {
    assert_credential_settled(destination, credential, placement);
    let place = placement.map(place);
    let headers = request
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()))
        .collect();
    let sent = Request {
        method: request.method.as_str(),
        url: request.url.as_str(),
        headers,
        body: request.body.as_deref(),
    };
    oracle::assert_request_safe(
        &sent,
        &Call {
            base,
            credential,
            place: place.as_ref(),
            tool: &tool.name,
            method: &tool.plan.method,
            content_type: tool.plan.body.as_ref().map(|b| b.content_type.as_str()),
            accept: Some(GATEWAY_ACCEPT),
            user_agent: Some(GATEWAY_USER_AGENT),
            also_denied: Some(convert::is_denied_header),
        },
    );
}
