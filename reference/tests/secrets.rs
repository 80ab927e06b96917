//! The credential never shows in debug output: every type that holds it, in
//! every place it can go, formats without any form of it (as sent, percent-
//! encoded, JSON-escaped, base64 for basic authentication).

use base64::Engine as _;
use serde_json::{json, Map, Value};

use hosted_mcp_gateway::answer::Masker;
use hosted_mcp_gateway::convert::{self, CredentialPlacement};
use hosted_mcp_gateway::gateway::UpstreamConfig;
use hosted_mcp_gateway::load;
use hosted_mcp_gateway::request::{self, encode_component, Destination};
use hosted_mcp_gateway::secret::Secret;

/// `/`, `+`, `=` and a character that percent-encodes, as the harness's own.
const SECRET: &str = "ada:s3cr3t/+=é\"7f3a";

const DOCUMENT: &str = r#"
openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets/{id}:
    post:
      operationId: feedPet
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: note, in: query, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object}
      responses: {"200": {description: ok}}
"#;

/// Every form the credential can take on the wire or in an answer.
fn forms() -> Vec<String> {
    let json = serde_json::to_string(SECRET).unwrap();
    vec![
        SECRET.to_owned(),
        "s3cr3t".to_owned(),
        encode_component(SECRET),
        json.trim_matches('"').to_owned(),
        base64::engine::general_purpose::STANDARD.encode(SECRET),
        // As a derived `Debug` shows bytes: `[97, 100, 97, ...`.
        format!("{:?}", SECRET.as_bytes())
            .trim_matches(['[', ']'])
            .to_owned(),
    ]
}

fn assert_hidden(what: &str, debug: String) {
    for form in forms() {
        assert!(
            !debug.contains(&form),
            "{what} shows the credential ({form}): {debug}"
        );
    }
}

#[test]
fn no_type_that_holds_the_credential_shows_it() {
    let document = load::load_str(DOCUMENT, "secrets").unwrap();
    let catalogue = convert::convert(&document).unwrap();
    let tool = &catalogue.tools[0];
    let arguments: Map<String, Value> = json!({"id": "7", "note": "hi", "body": {}})
        .as_object()
        .unwrap()
        .clone();
    for placement in [
        CredentialPlacement::Bearer,
        CredentialPlacement::Basic,
        CredentialPlacement::Header("X-Api-Key".to_owned()),
        CredentialPlacement::Query("api_key".to_owned()),
    ] {
        let upstream = UpstreamConfig {
            base_url: "https://api.example.com/v1".to_owned(),
            credential: Some(Secret::new(SECRET)),
            placement: Some(placement.clone()),
            trusted_ca_pem: None,
            also_masked: Vec::new(),
            exchange: None,
        };
        assert_hidden("UpstreamConfig", format!("{upstream:?}"));

        let destination =
            Destination::new(&upstream.base_url, Some(SECRET), Some(&placement)).unwrap();
        assert_hidden("Destination", format!("{destination:?}"));
        assert_hidden("CredentialSlot", format!("{:?}", destination.credential()));

        let masker = Masker::new(Some(SECRET), Some(&placement));
        assert_hidden("Masker", format!("{masker:?}"));

        let outbound = request::build(tool, &arguments, &destination).unwrap();
        assert_hidden("OutboundRequest", format!("{outbound:?}"));
        // The request does carry it: the formatting hides it, not its absence.
        let on_the_wire = format!(
            "{} {:?}",
            outbound.url,
            outbound.headers.values().collect::<Vec<_>>()
        );
        let carried = matches!(placement, CredentialPlacement::Query(_))
            && outbound.url.as_str().contains(&encode_component(SECRET))
            || outbound.headers.values().any(|value| value.is_sensitive());
        assert!(
            carried,
            "{placement:?}: the request has no credential: {on_the_wire}"
        );
    }
    assert_hidden("Catalogue", format!("{catalogue:?}"));
}
