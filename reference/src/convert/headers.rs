//! Headers an argument may never set. Convert leaves them out of the arguments and
//! the request builder refuses them, both from this one list.

/// Header names, compared without regard to case, that only the gateway sets:
/// credentials, framing, routing and tracing.
pub const DENIED_HEADERS: [&str; 21] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "host",
    "content-length",
    "content-type",
    "accept",
    "accept-encoding",
    "connection",
    "transfer-encoding",
    "x-api-key",
    "api-key",
    "x-forwarded-for",
    "forwarded",
    "x-request-id",
    "traceparent",
    "tracestate",
    "user-agent",
    "x-real-ip",
    "x-payment",
];

/// Header name prefixes, compared without regard to case, that belong to the gateway
/// and the protocols around it.
pub const DENIED_HEADER_PREFIXES: [&str; 3] = ["x-agentify-", "mcp-", "payment-"];

/// TC-ARG-006, TC-REQ-008: whether `name` is a header no argument may set.
pub fn is_denied_header(name: &str) -> bool {
    let name = name.trim();
    DENIED_HEADERS
        .iter()
        .any(|denied| name.eq_ignore_ascii_case(denied))
        || DENIED_HEADER_PREFIXES.iter().any(|prefix| {
            name.get(..prefix.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
        })
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case("Authorization", true)]
    #[case("authorization", true)]
    #[case("AUTHORIZATION", true)]
    #[case("Proxy-Authorization", true)]
    #[case("Set-Cookie", true)]
    #[case("Content-Type", true)]
    #[case("X-Api-Key", true)]
    #[case("api-key", true)]
    #[case("TraceParent", true)]
    #[case("X-Payment", true)]
    #[case("X-Agentify-Operation", true)]
    #[case("x-agentify-anything", true)]
    #[case("Mcp-Session-Id", true)]
    #[case("PAYMENT-Signature", true)]
    #[case(" Host ", true)]
    #[case("X-Agentify", false)]
    #[case("X-Payments", false)]
    #[case("Idempotency-Key", false)]
    #[case("xero-tenant-id", false)]
    #[case("X-Registry-Auth", false)]
    #[case("Mcp", false)]
    #[case("Ümcp-x", false)]
    fn denied_headers(#[case] name: &str, #[case] denied: bool) {
        assert_eq!(is_denied_header(name), denied);
    }
}
