//! The request invariants: one built request against the configuration and
//! the operation it was built from (TC-REQ-001, TC-REQ-003, TC-REQ-004,
//! TC-REQ-007, TC-REQ-008, TC-REQ-010, TC-REQ-011, TC-REQ-012, TC-REQ-013,
//! TC-REQ-014, TC-REQ-015, TC-REQ-016). How values are encoded and styled
//! (TC-REQ-002, TC-REQ-005, TC-REQ-006) and what the agent's own request
//! carried (TC-REQ-009) are not checked here.

use base64::Engine as _;
use percent_encoding::percent_decode_str;
use url::{form_urlencoded, Url};

use crate::place::{basic_pair, Place};
use crate::violation::{holds, Violation};

/// The header names no argument may set (TC-REQ-008), lower-case.
pub const DENIED_HEADERS: &[&str] = &[
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

/// The prefixes of header names no argument may set (TC-REQ-008).
pub const DENIED_HEADER_PREFIXES: &[&str] = &["x-agentify-", "mcp-", "payment-"];

/// The header that carries the tool's name (TC-REQ-010).
pub const OPERATION_HEADER: &str = "x-agentify-operation";

/// The token the gateway's `User-Agent` must contain (TC-REQ-010).
const USER_AGENT_TOKEN: &str = "hosted-mcp";

/// Whether the spec forbids an argument to set the header `name`, compared
/// without regard to case (TC-REQ-008).
pub fn spec_denied(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    DENIED_HEADERS.contains(&name.as_str())
        || DENIED_HEADER_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

/// A request as it went out, as plain data.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The URL as sent.
    pub url: &'a str,
    /// Every header, in any order, repeats included.
    pub headers: Vec<(&'a str, &'a [u8])>,
    pub body: Option<&'a [u8]>,
}

/// What a request is built from: the configuration and the operation.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    /// The configured base URL (the verified host).
    pub base: &'a str,
    /// The stored credential; empty for none.
    pub credential: &'a str,
    /// Where the credential goes; `None` for a bearer token (TC-REQ-017).
    pub place: Option<&'a Place>,
    /// The tool's name, which `X-Agentify-Operation` carries.
    pub tool: &'a str,
    /// The operation's method, as the plan has it.
    pub method: &'a str,
    /// The operation's content type; `None` when it takes no body.
    pub content_type: Option<&'a str>,
    /// The gateway's own `Accept`, when the caller knows it; otherwise any
    /// value will do.
    pub accept: Option<&'a str>,
    /// The gateway's own `User-Agent`, when the caller knows it; either way
    /// it must contain `hosted-mcp`.
    pub user_agent: Option<&'a str>,
    /// Header names the gateway refuses beyond the spec's list; an argument
    /// may set none of them either.
    pub also_denied: Option<fn(&str) -> bool>,
}

/// Where and how the credential must ride, worked out from the
/// configuration alone (TC-REQ-012, TC-REQ-013, TC-REQ-014, TC-REQ-015).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// A header (its name lower-case) holding exactly this value.
    Header { name: String, value: String },
    /// A query parameter holding the credential.
    Query { name: String, value: String },
}

/// The credential's slot; `None` for an empty credential.
pub fn slot(credential: &str, place: Option<&Place>) -> Option<Slot> {
    if credential.is_empty() {
        return None;
    }
    Some(match place.unwrap_or(&Place::Bearer) {
        Place::Bearer => Slot::Header {
            name: "authorization".to_owned(),
            value: format!("Bearer {credential}"),
        },
        Place::Basic => Slot::Header {
            name: "authorization".to_owned(),
            value: format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(basic_pair(credential))
            ),
        },
        Place::Header(name) => Slot::Header {
            name: name.to_ascii_lowercase(),
            value: credential.to_owned(),
        },
        Place::Query(name) => Slot::Query {
            name: name.clone(),
            value: credential.to_owned(),
        },
    })
}

/// Every invariant of one built request.
pub fn check_request(request: &Request, call: &Call) -> Result<(), Violation> {
    let slot = slot(call.credential, call.place);
    check_url(request.url, call.base, slot.as_ref())?;
    ensure!(
        request.method == call.method,
        "TC-REQ-001: the method is {:?}, the operation's is {:?}",
        request.method,
        call.method
    );
    check_headers(
        &request.headers,
        call,
        slot.as_ref(),
        request.body.is_some(),
    )?;
    if let Some(body) = request.body {
        ensure!(
            call.content_type.is_some(),
            "TC-REQ-011: a body for an operation that takes none"
        );
        ensure!(
            serde_json::from_slice::<serde_json::Value>(body).is_ok(),
            "TC-REQ-011: the body is not JSON: {:?}",
            String::from_utf8_lossy(body)
        );
    }
    Ok(())
}

/// [`check_request`], panicking with the violation.
#[track_caller]
pub fn assert_request_safe(request: &Request, call: &Call) {
    holds(check_request(request, call));
}

/// The path as written in `url`, not as a URL parser would resolve it:
/// from the end of the authority to the query or fragment.
fn raw_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let start = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let rest = &rest[start..];
    &rest[..rest.find(['?', '#']).unwrap_or(rest.len())]
}

/// The URL: the base URL's scheme, host, port and user info, its path or
/// under it with no dot segment after it (TC-REQ-001, TC-REQ-003,
/// TC-REQ-004), no fragment, the base URL's own query first, and a query
/// credential once among the pairs after it (TC-REQ-015, TC-REQ-016).
fn check_url(sent: &str, base: &str, slot: Option<&Slot>) -> Result<(), Violation> {
    let Ok(base) = Url::parse(base) else {
        return Err(Violation(format!("the base URL {base:?} does not parse")));
    };
    let Ok(url) = Url::parse(sent) else {
        return Err(Violation(format!(
            "TC-REQ-001: the request's URL {sent:?} does not parse"
        )));
    };
    ensure!(
        url.scheme() == base.scheme()
            && url.host_str() == base.host_str()
            && url.port_or_known_default() == base.port_or_known_default(),
        "TC-REQ-001: {sent} left the verified host {base}"
    );
    ensure!(
        url.username() == base.username() && url.password() == base.password(),
        "TC-REQ-001: {sent} has user info the base URL {base} has not"
    );
    ensure!(
        url.fragment().is_none(),
        "TC-REQ-001: {sent} has a fragment"
    );

    let base_path = base.path().trim_end_matches('/');
    let path = raw_path(sent);
    let under = path
        .strip_prefix(base_path)
        .filter(|rest| rest.is_empty() || rest.starts_with('/'));
    let Some(under) = under else {
        return Err(Violation(format!(
            "TC-REQ-004: the path {path} left the base path {base_path:?}"
        )));
    };
    for segment in under.split('/') {
        let decoded = percent_decode_str(segment).decode_utf8_lossy();
        ensure!(
            decoded != "." && decoded != "..",
            "TC-REQ-003: dot segment {segment:?} in {path}"
        );
    }

    let query = url.query().unwrap_or_default();
    let ours = match base.query().filter(|query| !query.is_empty()) {
        Some(base_query) => {
            let after = query.strip_prefix(base_query);
            let Some(after) = after.filter(|after| after.is_empty() || after.starts_with('&'))
            else {
                return Err(Violation(format!(
                    "TC-REQ-001: the query {query:?} does not start with the base URL's {base_query:?}"
                )));
            };
            after.strip_prefix('&').unwrap_or(after)
        }
        None => query,
    };
    if let Some(Slot::Query { name, value }) = slot {
        // The operator's own base query is theirs: counted from after it.
        let values: Vec<String> = form_urlencoded::parse(ours.as_bytes())
            .filter(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
            .collect();
        ensure!(
            values.len() == 1,
            "TC-REQ-015: the credential's parameter {name:?} is in {query:?} {} times",
            values.len()
        );
        ensure!(
            values[0] == *value,
            "TC-REQ-016: the credential's parameter {name:?} holds {:?}, not the credential",
            values[0]
        );
    }
    Ok(())
}

/// The headers: no CR, LF or NUL (TC-REQ-007); the gateway's own, each
/// once with its value (TC-REQ-010), `Content-Type` with a body and only
/// then (TC-REQ-011); the credential's header once, holding the credential
/// alone (TC-REQ-012, TC-REQ-013, TC-REQ-014, TC-REQ-016); no other header
/// the spec, or the gateway, denies an argument (TC-REQ-008).
fn check_headers(
    headers: &[(&str, &[u8])],
    call: &Call,
    slot: Option<&Slot>,
    has_body: bool,
) -> Result<(), Violation> {
    let credential_header = match slot {
        Some(Slot::Header { name, value }) => Some((name.as_str(), value.as_str())),
        _ => None,
    };
    // The gateway's own headers and what each must hold (`None`: anything).
    let mut ours: Vec<(&str, Option<&str>)> = vec![
        ("accept", call.accept),
        ("user-agent", call.user_agent),
        (OPERATION_HEADER, Some(call.tool)),
    ];
    if has_body {
        ours.push(("content-type", call.content_type));
    }
    if let Some((name, value)) = credential_header {
        // The credential goes on last: its header is the credential's.
        ours.retain(|(own, _)| *own != name);
        ours.push((name, Some(value)));
    }

    for &(name, value) in headers {
        ensure!(
            !name
                .bytes()
                .chain(value.iter().copied())
                .any(|byte| matches!(byte, b'\r' | b'\n' | b'\0')),
            "TC-REQ-007: CR, LF or NUL in the header {name:?}: {:?}",
            String::from_utf8_lossy(value)
        );
        let lower = name.to_ascii_lowercase();
        if ours.iter().any(|(own, _)| *own == lower) {
            continue;
        }
        ensure!(
            !spec_denied(&lower) && !call.also_denied.is_some_and(|denied| denied(&lower)),
            "TC-REQ-008: an argument set the denied header {name:?}"
        );
    }

    for (name, expected) in ours {
        let values: Vec<&[u8]> = headers
            .iter()
            .filter(|(sent, _)| sent.eq_ignore_ascii_case(name))
            .map(|&(_, value)| value)
            .collect();
        let rule = if Some(name) == credential_header.map(|(name, _)| name) {
            match call.place {
                Some(Place::Header(_)) => "TC-REQ-012, TC-REQ-016",
                Some(Place::Basic) => "TC-REQ-014, TC-REQ-016",
                _ => "TC-REQ-013, TC-REQ-016",
            }
        } else if name == "content-type" {
            "TC-REQ-011"
        } else {
            "TC-REQ-010"
        };
        ensure!(
            values.len() == 1,
            "{rule}: the header {name:?} sent {} times, once expected",
            values.len()
        );
        if let Some(expected) = expected {
            ensure!(
                values[0] == expected.as_bytes(),
                "{rule}: the header {name:?} holds {:?}, not {expected:?}",
                String::from_utf8_lossy(values[0])
            );
        }
        if name == "user-agent" {
            ensure!(
                String::from_utf8_lossy(values[0]).contains(USER_AGENT_TOKEN),
                "TC-REQ-010: the User-Agent {:?} does not name {USER_AGENT_TOKEN}",
                String::from_utf8_lossy(values[0])
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "https://api.example.com/v1?fixed=1";

    fn call(place: Option<&Place>) -> Call<'_> {
        Call {
            base: BASE,
            credential: "sk live",
            place,
            tool: "doThing",
            method: "POST",
            content_type: Some("application/json"),
            accept: Some("application/json"),
            user_agent: None,
            also_denied: Some(|name| name == "x-gateway-only"),
        }
    }

    fn request<'a>(url: &'a str, extra: &[(&'a str, &'a [u8])]) -> Request<'a> {
        let mut headers: Vec<(&str, &[u8])> = vec![
            ("accept", b"application/json"),
            ("user-agent", b"gw/1 (hosted-mcp)"),
            ("x-agentify-operation", b"doThing"),
            ("content-type", b"application/json"),
        ];
        headers.extend_from_slice(extra);
        Request {
            method: "POST",
            url,
            headers,
            body: Some(b"{\"a\":1}"),
        }
    }

    const BEARER: &[(&str, &[u8])] = &[("authorization", b"Bearer sk live")];

    #[test]
    fn a_safe_request_passes() {
        let good = request("https://api.example.com/v1/things/a?fixed=1&q=2", BEARER);
        assert_eq!(check_request(&good, &call(None)), Ok(()));
        let query = Place::Query("api_key".to_owned());
        let good = request(
            "https://api.example.com/v1/things?fixed=1&api_key=sk%20live",
            &[],
        );
        assert_eq!(check_request(&good, &call(Some(&query))), Ok(()));
        let header = Place::Header("X-Pet-Key".to_owned());
        let good = request(
            "https://api.example.com/v1?fixed=1",
            &[("x-pet-key", b"sk live")],
        );
        assert_eq!(check_request(&good, &call(Some(&header))), Ok(()));
    }

    fn broken(request: &Request, place: Option<&Place>) -> String {
        check_request(request, &call(place))
            .expect_err("a broken request")
            .0
    }

    #[test]
    fn each_broken_url_is_named() {
        for (url, rule) in [
            ("http://api.example.com/v1?fixed=1", "TC-REQ-001"),
            ("https://api.example.com:8443/v1?fixed=1", "TC-REQ-001"),
            ("https://evil.example/v1?fixed=1", "TC-REQ-001"),
            ("https://u:p@api.example.com/v1?fixed=1", "TC-REQ-001"),
            ("https://api.example.com/v1?fixed=1#f", "TC-REQ-001"),
            ("https://api.example.com/v1?q=1&fixed=1", "TC-REQ-001"),
            ("https://api.example.com/v1?fixed=12", "TC-REQ-001"),
            ("https://api.example.com/v2?fixed=1", "TC-REQ-004"),
            ("https://api.example.com/v1x?fixed=1", "TC-REQ-004"),
            ("https://api.example.com/v1/a/%2E%2e?fixed=1", "TC-REQ-003"),
            ("https://api.example.com/v1/./a?fixed=1", "TC-REQ-003"),
        ] {
            let message = broken(&request(url, BEARER), None);
            assert!(message.starts_with(rule), "{url}: {message}");
        }
    }

    #[test]
    fn a_query_credential_must_be_there_once_and_alone() {
        let query = Place::Query("api_key".to_owned());
        for (url, rule) in [
            ("https://api.example.com/v1?fixed=1", "TC-REQ-015"),
            (
                "https://api.example.com/v1?fixed=1&api_key=sk+live&api_key=x",
                "TC-REQ-015",
            ),
            ("https://api.example.com/v1?fixed=1&api_key=x", "TC-REQ-016"),
        ] {
            let message = broken(&request(url, &[]), Some(&query));
            assert!(message.starts_with(rule), "{url}: {message}");
        }
    }

    #[test]
    fn each_broken_header_is_named() {
        let url = "https://api.example.com/v1?fixed=1";
        for (extra, rule) in [
            (&[][..], "TC-REQ-013"),
            (&[("authorization", &b"Bearer x"[..])][..], "TC-REQ-013"),
            (
                &[
                    ("authorization", &b"Bearer sk live"[..]),
                    ("Authorization", b"Bearer sk live"),
                ][..],
                "TC-REQ-013",
            ),
            (
                &[
                    ("authorization", &b"Bearer sk live"[..]),
                    ("x-trace", b"a\r\nb"),
                ][..],
                "TC-REQ-007",
            ),
            (
                &[
                    ("authorization", &b"Bearer sk live"[..]),
                    ("Mcp-Session-Id", b"1"),
                ][..],
                "TC-REQ-008",
            ),
            (
                &[
                    ("authorization", &b"Bearer sk live"[..]),
                    ("x-gateway-only", b"1"),
                ][..],
                "TC-REQ-008",
            ),
            (
                &[
                    ("authorization", &b"Bearer sk live"[..]),
                    ("accept", b"text/plain"),
                ][..],
                "TC-REQ-010",
            ),
        ] {
            let message = broken(&request(url, extra), None);
            assert!(message.starts_with(rule), "{extra:?}: {message}");
        }
    }

    #[test]
    fn the_gateway_headers_method_and_body_are_checked() {
        let url = "https://api.example.com/v1?fixed=1";
        let mut missing = request(url, BEARER);
        missing
            .headers
            .retain(|(name, _)| *name != "x-agentify-operation");
        assert!(broken(&missing, None).starts_with("TC-REQ-010"));

        let mut agent = request(url, BEARER);
        agent.headers[1].1 = b"curl/8";
        assert!(broken(&agent, None).contains("does not name hosted-mcp"));

        let mut method = request(url, BEARER);
        method.method = "GET";
        assert!(broken(&method, None).starts_with("TC-REQ-001: the method"));

        let mut body = request(url, BEARER);
        body.body = Some(b"{oops");
        assert!(broken(&body, None).starts_with("TC-REQ-011: the body is not JSON"));

        let mut no_body = request(url, BEARER);
        no_body.body = None;
        assert!(
            broken(&no_body, None).starts_with("TC-REQ-008"),
            "Content-Type without a body"
        );
    }

    #[test]
    fn the_credential_slot_follows_the_place() {
        assert_eq!(slot("", Some(&Place::Basic)), None);
        assert_eq!(
            slot("sk_live_42", Some(&Place::Basic)),
            Some(Slot::Header {
                name: "authorization".to_owned(),
                value: "Basic c2tfbGl2ZV80Mjo=".to_owned()
            })
        );
        assert_eq!(
            slot("k", Some(&Place::Header("X-Pet-Key".to_owned()))),
            Some(Slot::Header {
                name: "x-pet-key".to_owned(),
                value: "k".to_owned()
            })
        );
    }

    #[test]
    fn the_raw_path_is_read_as_written() {
        assert_eq!(raw_path("https://h/a/../b?x#y"), "/a/../b");
        assert_eq!(raw_path("http://h:1?x"), "");
        assert_eq!(raw_path("http://[::1]:9/a"), "/a");
    }
}
