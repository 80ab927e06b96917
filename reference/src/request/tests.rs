use rstest::rstest;
use serde_json::{json, Map, Value};

use super::*;
use crate::convert::{BodyPlan, CallPlan, CredentialPlacement, Hints, Location, ParameterPlan};
use crate::errors::PathValueProblem;

const BASE: &str = "https://api.example.com/v1";
const SECRET: &str = "s3cr3t/+=&token";

fn parameter(name: &str, location: Location) -> ParameterPlan {
    ParameterPlan {
        argument: name.to_owned(),
        name: name.to_owned(),
        location,
        style: None,
        explode: location == Location::Query,
        required: location == Location::Path,
    }
}

fn tool(method: &str, path: &str, parameters: Vec<ParameterPlan>, body: Option<BodyPlan>) -> Tool {
    Tool {
        name: "doThing".to_owned(),
        title: None,
        description: None,
        hints: Hints {
            read_only: true,
            destructive: false,
            idempotent: true,
        },
        input_schema: Map::new(),
        plan: CallPlan {
            method: method.to_owned(),
            path: path.to_owned(),
            parameters,
            body,
        },
    }
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

fn destination(placement: Option<CredentialPlacement>) -> Destination {
    Destination::new(BASE, Some(SECRET), placement.as_ref()).expect("valid destination")
}

fn no_credential() -> Destination {
    Destination::new(BASE, None, None).expect("valid destination")
}

fn path_of(path: &str, value: Value) -> Result<String, Refusal> {
    let tool = tool("GET", path, vec![parameter("id", Location::Path)], None);
    build(&tool, &arguments(json!({ "id": value })), &no_credential())
        .map(|request| request.url.path().to_owned())
}

#[rstest]
#[case::plain(json!("abc"), "/v1/pets/abc")]
#[case::slash(json!("a/b"), "/v1/pets/a%2Fb")]
#[case::percent(json!("100%"), "/v1/pets/100%25")]
#[case::already_encoded(json!("a%2Fb"), "/v1/pets/a%252Fb")]
#[case::reserved(json!("a?b#c&d=e;f"), "/v1/pets/a%3Fb%23c%26d%3De%3Bf")]
#[case::space_and_unicode(json!("ü ñ"), "/v1/pets/%C3%BC%20%C3%B1")]
#[case::unreserved_kept(json!("A-z_0.9~"), "/v1/pets/A-z_0.9~")]
#[case::three_dots(json!("..."), "/v1/pets/...")]
#[case::encoded_dots_stay_data(json!("%2e%2e"), "/v1/pets/%252e%252e")]
#[case::number(json!(42), "/v1/pets/42")]
#[case::float(json!(1.5), "/v1/pets/1.5")]
#[case::boolean(json!(true), "/v1/pets/true")]
#[case::array(json!(["a/b", "c"]), "/v1/pets/a%2Fb,c")]
fn path_arguments_are_one_encoded_segment(#[case] value: Value, #[case] expected: &str) {
    assert_eq!(path_of("/pets/{id}", value).as_deref(), Ok(expected));
}

#[rstest]
#[case::dot(json!("."), PathValueProblem::DotSegment)]
#[case::dot_dot(json!(".."), PathValueProblem::DotSegment)]
#[case::empty(json!(""), PathValueProblem::Empty)]
#[case::null(json!(null), PathValueProblem::Absent)]
fn unusable_path_values_are_refused(#[case] value: Value, #[case] reason: PathValueProblem) {
    assert_eq!(
        path_of("/pets/{id}", value),
        Err(Refusal::PathValue {
            argument: "id".to_owned(),
            reason
        })
    );
}

#[test]
fn missing_path_argument_is_refused() {
    let tool = tool(
        "GET",
        "/pets/{id}",
        vec![parameter("id", Location::Path)],
        None,
    );
    assert!(matches!(
        build(&tool, &Map::new(), &no_credential()),
        Err(Refusal::PathValue {
            reason: PathValueProblem::Absent,
            ..
        })
    ));
}

#[rstest]
#[case::climbs_out("/../admin/{id}")]
#[case::climbs_out_later("/pets/../../admin/{id}")]
#[case::encoded_dots("/%2E%2e/admin/{id}")]
#[case::mixed_encoding("/pets/.%2e/../{id}")]
fn document_paths_leaving_the_base_are_refused(#[case] template: &str) {
    assert_eq!(
        path_of(template, json!("x")),
        Err(Refusal::PathEscapesBase {
            base_path: "/v1".to_owned()
        })
    );
}

#[rstest]
#[case::inner_parent("/pets/../toys/{id}", "/v1/toys/x")]
#[case::current("/./pets/{id}", "/v1/pets/x")]
#[case::encoded_current("/%2E/pets/%2e/{id}", "/v1/pets/x")]
#[case::three_dots_are_a_name("/pets/.../{id}", "/v1/pets/.../x")]
#[case::half_an_encoded_dot("/pets/.%2/{id}", "/v1/pets/.%2/x")]
#[case::value_inside_segment("/files/{id}.json", "/v1/files/x.json")]
#[case::literal_backslash("/a\\b/{id}", "/v1/a%5Cb/x")]
#[case::literal_query_mark("/a?b/{id}", "/v1/a%3Fb/x")]
fn document_paths_inside_the_base_are_normalized(#[case] template: &str, #[case] expected: &str) {
    assert_eq!(path_of(template, json!("x")).as_deref(), Ok(expected));
}

#[rstest]
#[case::no_base_path("https://api.example.com", "/pets/x")]
#[case::root("https://api.example.com/", "/pets/x")]
#[case::trailing_slash("https://api.example.com/v1/", "/v1/pets/x")]
#[case::deeper("https://api.example.com/a/b", "/a/b/pets/x")]
fn base_path_is_kept(#[case] base: &str, #[case] expected: &str) {
    let tool = tool(
        "GET",
        "/pets/{id}",
        vec![parameter("id", Location::Path)],
        None,
    );
    let destination = Destination::new(base, None, None).expect("valid base");
    let request = build(&tool, &arguments(json!({"id": "x"})), &destination).expect("built");
    assert_eq!(request.url.path(), expected);
    assert_eq!(request.url.host_str(), Some("api.example.com"));
}

fn query_of(parameter: ParameterPlan, value: Value) -> Option<String> {
    let tool = tool("GET", "/search", vec![parameter], None);
    let request = build(&tool, &arguments(json!({ "q": value })), &no_credential()).expect("built");
    request.url.query().map(str::to_owned)
}

fn query_parameter(style: Option<&str>, explode: bool) -> ParameterPlan {
    ParameterPlan {
        style: style.map(str::to_owned),
        explode,
        ..parameter("q", Location::Query)
    }
}

#[rstest]
#[case::string(json!("a b&c=d"), Some("q=a%20b%26c%3Dd"))]
#[case::number(json!(10), Some("q=10"))]
#[case::boolean(json!(false), Some("q=false"))]
#[case::exploded_array(json!([1, 2]), Some("q=1&q=2"))]
#[case::empty_array(json!([]), None)]
#[case::null(json!(null), None)]
#[case::exploded_object(json!({"color": "red", "size": "L"}), Some("color=red&size=L"))]
#[case::unicode(json!("日本"), Some("q=%E6%97%A5%E6%9C%AC"))]
fn form_exploded_query(#[case] value: Value, #[case] expected: Option<&str>) {
    assert_eq!(
        query_of(query_parameter(None, true), value).as_deref(),
        expected
    );
}

#[rstest]
#[case::form_array(Some("form"), json!(["a,b", "c"]), "q=a%2Cb,c")]
#[case::form_object(Some("form"), json!({"k": "v", "x": 1}), "q=k,v,x,1")]
#[case::space_delimited(Some("spaceDelimited"), json!(["a", "b"]), "q=a%20b")]
#[case::pipe_delimited(Some("pipeDelimited"), json!(["a", "b"]), "q=a|b")]
fn unexploded_query(#[case] style: Option<&str>, #[case] value: Value, #[case] expected: &str) {
    assert_eq!(
        query_of(query_parameter(style, false), value).as_deref(),
        Some(expected)
    );
}

#[test]
fn deep_object_query() {
    assert_eq!(
        query_of(
            query_parameter(Some("deepObject"), true),
            json!({"color": "red"})
        )
        .as_deref(),
        Some("q%5Bcolor%5D=red")
    );
}

fn header_tool(name: &str) -> Tool {
    tool(
        "GET",
        "/things",
        vec![parameter(name, Location::Header)],
        None,
    )
}

#[rstest]
#[case::string(json!("abc"), "abc")]
#[case::number(json!(7), "7")]
#[case::array(json!(["a", "b", 3]), "a,b,3")]
#[case::object(json!({"k": "v", "n": 1}), "k,v,n,1")]
#[case::unicode(json!("naïve"), "naïve")]
fn header_arguments_use_simple_style(#[case] value: Value, #[case] expected: &str) {
    let request = build(
        &header_tool("X-Trace"),
        &arguments(json!({ "X-Trace": value })),
        &no_credential(),
    )
    .expect("built");
    let sent = request.headers.get("x-trace").expect("header sent");
    assert_eq!(sent.as_bytes(), expected.as_bytes());
}

#[rstest]
#[case::carriage_return("a\rb")]
#[case::line_feed("a\nInjected: yes")]
#[case::crlf("a\r\nb")]
#[case::nul("a\0b")]
#[case::other_control("a\u{7}b")]
fn header_values_with_control_characters_are_refused(#[case] value: &str) {
    assert_eq!(
        build(
            &header_tool("X-Trace"),
            &arguments(json!({ "X-Trace": value })),
            &no_credential()
        )
        .err(),
        Some(Refusal::HeaderValue {
            argument: "X-Trace".to_owned()
        })
    );
}

#[rstest]
#[case::authorization("Authorization")]
#[case::lower_case("authorization")]
#[case::cookie("Cookie")]
#[case::host("HOST")]
#[case::agentify_prefix("X-Agentify-Operation")]
#[case::mcp_prefix("mcp-session-id")]
#[case::payment_prefix("Payment-Receipt")]
fn denied_headers_are_refused(#[case] name: &str) {
    assert_eq!(
        build(
            &header_tool(name),
            &arguments(json!({ name: "x" })),
            &no_credential()
        )
        .err(),
        Some(Refusal::NotBuildable {
            reason: format!(
                "argument `{name}` would set the header `{name}`, which only the gateway sets"
            )
        })
    );
}

#[test]
fn gateway_headers_are_always_sent() {
    let request = build(&header_tool("X-Trace"), &Map::new(), &no_credential()).expect("built");
    assert_eq!(request.headers["accept"], GATEWAY_ACCEPT);
    let agent = request.headers["user-agent"].to_str().expect("ascii");
    assert!(agent.contains("hosted-mcp"), "{agent}");
    assert_eq!(request.headers["x-agentify-operation"], "doThing");
    assert!(request.headers.get("x-trace").is_none());
    assert!(request.headers.get("authorization").is_none());
    assert_eq!(request.body, None);
}

#[test]
fn body_is_sent_as_json_with_the_plans_content_type() {
    let body_plan = BodyPlan {
        content_type: "application/merge-patch+json".to_owned(),
        required: true,
    };
    let tool = tool("PATCH", "/pets", vec![], Some(body_plan));
    let request = build(
        &tool,
        &arguments(json!({"body": {"name": "Rex", "tags": ["a"]}})),
        &no_credential(),
    )
    .expect("built");
    assert_eq!(request.method, Method::PATCH);
    assert_eq!(
        request.headers["content-type"],
        "application/merge-patch+json"
    );
    let sent: Value = serde_json::from_slice(&request.body.expect("body")).expect("json");
    assert_eq!(sent, json!({"name": "Rex", "tags": ["a"]}));
}

#[test]
fn absent_optional_body_sends_nothing() {
    let body_plan = BodyPlan {
        content_type: "application/json".to_owned(),
        required: false,
    };
    let request = build(
        &tool("POST", "/pets", vec![], Some(body_plan)),
        &Map::new(),
        &no_credential(),
    )
    .expect("built");
    assert_eq!(request.body, None);
    assert!(request.headers.get("content-type").is_none());
}

/// A tool whose arguments try to occupy every place a credential can go.
fn competing_tool() -> (Tool, Map<String, Value>) {
    let tool = tool(
        "GET",
        "/things",
        vec![
            parameter("X-Key", Location::Header),
            parameter("key", Location::Query),
            parameter("other", Location::Query),
        ],
        None,
    );
    let arguments = arguments(json!({"X-Key": "agent", "key": ["agent1", "agent2"], "other": "1"}));
    (tool, arguments)
}

#[test]
fn credential_in_a_named_header_replaces_the_argument() {
    let (tool, arguments) = competing_tool();
    let placement = CredentialPlacement::Header("x-key".to_owned());
    let request = build(&tool, &arguments, &destination(Some(placement))).expect("built");
    let values: Vec<_> = request.headers.get_all("X-Key").iter().collect();
    assert_eq!(values, vec![SECRET]);
}

#[test]
fn credential_as_bearer() {
    let (tool, arguments) = competing_tool();
    let request = build(
        &tool,
        &arguments,
        &destination(Some(CredentialPlacement::Bearer)),
    )
    .expect("built");
    assert_eq!(
        request.headers["authorization"].to_str().expect("ascii"),
        format!("Bearer {SECRET}")
    );
}

#[rstest]
#[case::user_and_password("ada:pa ss", "Basic YWRhOnBhIHNz")]
// A secret key as the user name, with an empty password (TC-REQ-014).
#[case::no_colon(
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "Basic c2tfdGVzdF80ZUMzOUhxTHlqV0Rhcmp0VDF6ZHA3ZGM6"
)]
fn credential_as_basic(#[case] credential: &str, #[case] header: &str) {
    let tool = tool("GET", "/things", vec![], None);
    let destination =
        Destination::new(BASE, Some(credential), Some(&CredentialPlacement::Basic)).expect("valid");
    let request = build(&tool, &Map::new(), &destination).expect("built");
    assert_eq!(request.headers["authorization"], header);
}

#[test]
fn credential_in_the_query_is_the_only_pair_of_its_name() {
    let (tool, arguments) = competing_tool();
    let placement = CredentialPlacement::Query("key".to_owned());
    let request = build(&tool, &arguments, &destination(Some(placement))).expect("built");
    assert_eq!(
        request.url.query(),
        Some("other=1&key=s3cr3t%2F%2B%3D%26token")
    );
    let keys: Vec<_> = request
        .url
        .query_pairs()
        .filter(|(name, _)| name == "key")
        .map(|(_, value)| value.into_owned())
        .collect();
    assert_eq!(keys, vec![SECRET]);
}

#[test]
fn credential_without_a_placement_goes_as_bearer() {
    let request = build(
        &tool("GET", "/x", vec![], None),
        &Map::new(),
        &destination(None),
    )
    .expect("built");
    assert_eq!(
        request.headers["authorization"].to_str().expect("ascii"),
        format!("Bearer {SECRET}")
    );
}

#[test]
fn empty_credential_is_not_sent() {
    let destination =
        Destination::new(BASE, Some(""), Some(&CredentialPlacement::Bearer)).expect("valid");
    let request =
        build(&tool("GET", "/x", vec![], None), &Map::new(), &destination).expect("built");
    assert!(request.headers.get("authorization").is_none());
}

#[rstest]
#[case::not_a_url(
    "api.example.com",
    "the base URL is not a URL: relative URL without a base"
)]
#[case::other_scheme(
    "ftp://api.example.com",
    "the base URL must be an http or https URL with a host"
)]
#[case::fragment("https://api.example.com/#x", "the base URL must not have a fragment")]
fn unusable_base_urls_are_rejected_at_start(#[case] base: &str, #[case] message: &str) {
    let error = Destination::new(base, None, None).expect_err("refused");
    assert_eq!(error.to_string(), message);
}

#[rstest]
#[case::not_a_header_value(
    "a\nb",
    CredentialPlacement::Bearer,
    "the credential contains characters a header cannot carry"
)]
#[case::not_a_header_name(
    "secret",
    CredentialPlacement::Header("X Key".to_owned()),
    "the header named for the credential (`credential_in`, --credential-in) is not a valid header name"
)]
fn credentials_a_header_cannot_carry_are_rejected_at_start(
    #[case] credential: &str,
    #[case] placement: CredentialPlacement,
    #[case] message: &str,
) {
    let error = Destination::new(BASE, Some(credential), Some(&placement)).expect_err("refused");
    assert_eq!(error.to_string(), message);
}

#[test]
fn target_names_method_and_url() {
    let request = build(
        &tool("DELETE", "/x", vec![], None),
        &Map::new(),
        &no_credential(),
    )
    .expect("built");
    assert_eq!(request.target(), "DELETE https://api.example.com/v1/x");
}

/// A request may be logged: its debug form names the query's parameters but
/// shows none of their values, and the credential's header only as sensitive.
#[rstest]
#[case::in_the_query(CredentialPlacement::Query("key".to_owned()))]
#[case::in_a_header(CredentialPlacement::Bearer)]
fn debug_output_never_shows_the_credential(#[case] placement: CredentialPlacement) {
    let (tool, arguments) = competing_tool();
    let request = build(&tool, &arguments, &destination(Some(placement))).expect("built");
    let shown = format!("{request:?}");
    assert!(
        shown.contains("api.example.com") && shown.contains("\"other\""),
        "{shown}"
    );
    for form in [SECRET, "s3cr3t", "s3cr3t%2F%2B%3D%26token"] {
        assert!(!shown.contains(form), "{form:?} shown in {shown}");
    }
}
