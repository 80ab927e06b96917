//! Where a scenario wants the credential, told to the gateway in
//! `HOSTED_MCP_CREDENTIAL_IN`, so a gateway configured by flags needs no
//! document parsing in its launch adapter.
//!
//! The place is the one TC-REQ-017 derives from the scenario's document: the
//! first usable scheme of the top-level requirements, then of the declared
//! schemes, else a bearer token. Scenarios that check that derivation itself
//! are tagged `@credential-from-document` and get no hint.

use serde_json::Value;

/// The tag of scenarios whose gateway must find the place on its own.
pub const FROM_DOCUMENT_TAG: &str = "credential-from-document";

/// The kinds of place a credential can go: a place is one of them, with
/// `:NAME` after `header` and `query`.
pub const KINDS: [&str; 4] = ["bearer", "basic", "header", "query"];

/// The kind of a place (`header` for `header:X-Api-Key`).
pub fn kind(place: &str) -> &str {
    place.split_once(':').map_or(place, |(kind, _)| kind)
}

/// The kinds a gateway can take, from `--credential-in` (`bearer,header`).
pub fn kinds(list: &str) -> anyhow::Result<Vec<String>> {
    let kinds: Vec<String> = list
        .split(',')
        .map(|kind| kind.trim().to_ascii_lowercase())
        .collect();
    if let Some(unknown) = kinds.iter().find(|kind| !KINDS.contains(&kind.as_str())) {
        anyhow::bail!(
            "--credential-in takes a list of {}, not `{unknown}`",
            KINDS.join(", ")
        );
    }
    Ok(kinds)
}

/// The `HOSTED_MCP_CREDENTIAL_IN` value for a document: `bearer`, `basic`,
/// `header:NAME` or `query:NAME`. A document that does not parse (a loading
/// scenario's broken one) gets `bearer`, the place when nothing says otherwise.
pub fn credential_in(document: &str) -> String {
    let root: Value = match yaml_serde::from_str(document) {
        Ok(root) => root,
        Err(_) => return BEARER.to_owned(),
    };
    let schemes = root
        .pointer("/components/securitySchemes")
        .or_else(|| root.get("securityDefinitions"))
        .and_then(Value::as_object);
    let Some(schemes) = schemes else {
        return BEARER.to_owned();
    };
    let required = root
        .get("security")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|requirement| requirement.keys())
        .filter_map(|name| schemes.get(name));
    required
        .chain(schemes.values())
        .find_map(place_of)
        .unwrap_or_else(|| BEARER.to_owned())
}

const BEARER: &str = "bearer";

/// The place a scheme puts the credential, if it can carry one.
fn place_of(scheme: &Value) -> Option<String> {
    let field = |name: &str| scheme.get(name).and_then(Value::as_str).unwrap_or("");
    match field("type") {
        "apiKey" if !field("name").is_empty() => match field("in") {
            "header" => Some(format!("header:{}", field("name"))),
            "query" => Some(format!("query:{}", field("name"))),
            _ => None,
        },
        "http" => match field("scheme").to_ascii_lowercase().as_str() {
            "bearer" => Some(BEARER.to_owned()),
            "basic" => Some("basic".to_owned()),
            _ => None,
        },
        // Swagger 2.0 spells HTTP basic as a type of its own.
        "basic" => Some("basic".to_owned()),
        "oauth2" | "openIdConnect" => Some(BEARER.to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::no_security("openapi: 3.1.0\npaths: {}", "bearer")]
    #[case::not_a_document("{{{", "bearer")]
    #[case::header_key(
        "components: {securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}}",
        "header:X-Key"
    )]
    #[case::query_key(
        "components: {securitySchemes: {k: {type: apiKey, in: query, name: token}}}",
        "query:token"
    )]
    #[case::basic(
        "components: {securitySchemes: {b: {type: http, scheme: Basic}}}",
        "basic"
    )]
    #[case::swagger_basic("securityDefinitions: {b: {type: basic}}", "basic")]
    #[case::oauth("components: {securitySchemes: {o: {type: oauth2}}}", "bearer")]
    #[case::requirement_first(
        "components: {securitySchemes: {a: {type: http, scheme: basic}, b: {type: apiKey, in: query, name: q}}}\nsecurity: [{b: []}]",
        "query:q"
    )]
    #[case::unusable_passed_over(
        "components: {securitySchemes: {d: {type: http, scheme: digest}, c: {type: apiKey, in: cookie, name: s}, n: {type: apiKey, in: header, name: ''}, k: {type: apiKey, in: header, name: X-Shop}}}\nsecurity: [{d: []}, {c: []}, {n: []}]",
        "header:X-Shop"
    )]
    #[case::none_usable(
        "components: {securitySchemes: {d: {type: http, scheme: digest}}}",
        "bearer"
    )]
    fn places_the_credential_as_tc_req_017_says(#[case] document: &str, #[case] expected: &str) {
        assert_eq!(credential_in(document), expected);
        assert!(KINDS.contains(&kind(expected)), "{expected}");
    }

    #[test]
    fn reads_the_kinds_a_gateway_can_take() {
        assert_eq!(kinds("bearer, Header").unwrap(), ["bearer", "header"]);
        assert!(kinds("bearer,cookie").is_err());
        assert!(kinds("").is_err());
    }
}
