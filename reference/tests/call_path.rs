//! The whole call path against real sockets: wiremock for well-behaved
//! upstreams, raw listeners for slow, endless and resetting ones.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hosted_mcp_gateway::convert::{
    BodyPlan, CallPlan, Catalogue, CredentialPlacement, Hints, Location, ParameterPlan, Tool,
};
use hosted_mcp_gateway::gateway::{Gateway, Limits, ToolAnswer, UnknownTool, UpstreamConfig};
use hosted_mcp_gateway::request::GATEWAY_ACCEPT;
use hosted_mcp_gateway::secret::Secret;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECRET: &str = "sk_live_51H8ZqK2eZvKYlo2C";
const SHORT_DEADLINE: Duration = Duration::from_millis(400);

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("expected an object, got {other}"),
    }
}

fn parameter(name: &str, location: Location, required: bool) -> ParameterPlan {
    ParameterPlan {
        argument: name.to_owned(),
        name: name.to_owned(),
        location,
        style: None,
        explode: location == Location::Query,
        required,
    }
}

fn hints() -> Hints {
    Hints {
        read_only: true,
        destructive: false,
        idempotent: true,
    }
}

/// `getPet`: GET /pets/{id} with a query array and a header; `createPet`:
/// POST /pets with a JSON body.
fn catalogue() -> Catalogue {
    let get_pet = Tool {
        name: "getPet".to_owned(),
        title: None,
        description: None,
        hints: hints(),
        input_schema: object(json!({
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "string"},
                "tag": {"type": "array", "items": {"type": "string"}},
                "X-Trace": {"type": "string"},
                "key": {"type": "string"}
            },
            "additionalProperties": false
        })),
        plan: CallPlan {
            method: "GET".to_owned(),
            path: "/pets/{id}".to_owned(),
            parameters: vec![
                parameter("id", Location::Path, true),
                parameter("tag", Location::Query, false),
                parameter("X-Trace", Location::Header, false),
                parameter("key", Location::Query, false),
            ],
            body: None,
        },
    };
    let create_pet = Tool {
        name: "createPet".to_owned(),
        title: None,
        description: None,
        hints: Hints {
            read_only: false,
            destructive: false,
            idempotent: false,
        },
        input_schema: object(json!({
            "type": "object",
            "required": ["body"],
            "properties": {"body": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string", "maxLength": 20}}
            }},
            "additionalProperties": false
        })),
        plan: CallPlan {
            method: "POST".to_owned(),
            path: "/pets".to_owned(),
            parameters: vec![],
            body: Some(BodyPlan {
                content_type: "application/json".to_owned(),
                required: true,
            }),
        },
    };
    Catalogue {
        tools: vec![get_pet, create_pet],
        default_credential: Some(CredentialPlacement::Bearer),
        credential_scheme: None,
        token_url: None,
        left_out_by_selection: 0,
        unmatched_selectors: Vec::new(),
    }
}

fn gateway(base_url: &str, placement: Option<CredentialPlacement>) -> Gateway {
    let upstream = UpstreamConfig {
        base_url: base_url.to_owned(),
        credential: Some(Secret::new(SECRET)),
        placement,
        trusted_ca_pem: None,
        also_masked: Vec::new(),
        exchange: None,
    };
    Gateway::with_limits(catalogue(), upstream, limits(SHORT_DEADLINE)).expect("gateway starts")
}

fn limits(deadline: Duration) -> Limits {
    Limits {
        deadline,
        ..Limits::default()
    }
}

async fn call(gateway: &Gateway, tool: &str, arguments: Value) -> ToolAnswer {
    gateway
        .call(tool, Some(arguments))
        .await
        .expect("tool exists")
}

fn assert_error(answer: &ToolAnswer, code: &str) {
    assert!(answer.is_error, "expected an error: {answer:?}");
    assert!(
        answer.text.starts_with(&format!("[{code}] ")),
        "expected {code}: {}",
        answer.text
    );
    assert!(
        !answer.text.contains(SECRET),
        "credential leaked: {}",
        answer.text
    );
}

async fn received(server: &MockServer) -> Vec<wiremock::Request> {
    server.received_requests().await.unwrap_or_default()
}

#[tokio::test]
async fn a_call_sends_one_request_built_from_the_arguments_only() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v1/pets/a%2Fb"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(r#"{"id":"a/b"}"#, "application/json"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let gateway = gateway(&format!("{}/v1", server.uri()), None);

    let answer = call(
        &gateway,
        "getPet",
        json!({"id": "a/b", "tag": ["x", "y z"], "X-Trace": "t-1"}),
    )
    .await;

    assert_eq!(
        answer,
        ToolAnswer {
            text: "{\n  \"id\": \"a/b\"\n}".to_owned(),
            is_error: false,
            code: None,
        }
    );
    let requests = received(&server).await;
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.url.query(), Some("tag=x&tag=y%20z"));
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    assert_eq!(header("authorization"), Some(format!("Bearer {SECRET}")));
    assert_eq!(header("x-trace").as_deref(), Some("t-1"));
    assert_eq!(header("x-agentify-operation").as_deref(), Some("getPet"));
    assert!(header("user-agent").is_some_and(|agent| agent.contains("hosted-mcp")));
    assert_eq!(header("accept").as_deref(), Some(GATEWAY_ACCEPT));
    assert!(header("cookie").is_none());
}

#[tokio::test]
async fn the_body_argument_is_sent_as_json() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/pets"))
        .respond_with(ResponseTemplate::new(201).set_body_raw("created", "text/plain"))
        .mount(&server)
        .await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(&gateway, "createPet", json!({"body": {"name": "Rex"}})).await;

    assert_eq!(answer.text, "created");
    let requests = received(&server).await;
    assert_eq!(
        requests[0].body_json::<Value>().ok(),
        Some(json!({"name": "Rex"}))
    );
    assert_eq!(
        requests[0]
            .headers
            .get("content-type")
            .map(|v| v.as_bytes()),
        Some(&b"application/json"[..])
    );
}

#[tokio::test]
async fn invalid_arguments_send_nothing() {
    let server = MockServer::start().await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(
        &gateway,
        "createPet",
        json!({"body": {"name": 7}, "extra": 1}),
    )
    .await;

    assert_error(&answer, "ARGUMENTS_INVALID");
    assert!(answer.text.contains("/body/name"), "{}", answer.text);
    assert!(answer.text.contains("/extra"), "{}", answer.text);
    assert!(received(&server).await.is_empty());
}

#[tokio::test]
async fn missing_arguments_are_an_empty_object() {
    let server = MockServer::start().await;
    let gateway = gateway(&server.uri(), None);

    let answer = gateway.call("getPet", None).await.expect("tool exists");

    assert_error(&answer, "ARGUMENTS_INVALID");
    assert!(answer.text.contains("/id: is required"), "{}", answer.text);
    assert!(received(&server).await.is_empty());
}

#[rstest::rstest]
#[case::a_string(json!("id=1"))]
#[case::an_array(json!([{"id": "1"}]))]
#[case::a_number(json!(1))]
#[case::a_boolean(json!(true))]
#[tokio::test]
async fn arguments_that_are_not_an_object_are_refused_as_a_whole(#[case] arguments: Value) {
    let server = MockServer::start().await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(&gateway, "getPet", arguments).await;

    assert_error(&answer, "ARGUMENTS_INVALID");
    assert!(
        answer.text.contains("- the arguments: must be an object"),
        "{}",
        answer.text
    );
    assert!(received(&server).await.is_empty());
}

#[tokio::test]
async fn a_dot_dot_path_value_sends_nothing() {
    let server = MockServer::start().await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(&gateway, "getPet", json!({"id": ".."})).await;

    assert_error(&answer, "PATH_VALUE_REFUSED");
    assert!(received(&server).await.is_empty());
}

#[tokio::test]
async fn a_header_value_with_a_line_break_sends_nothing() {
    let server = MockServer::start().await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(
        &gateway,
        "getPet",
        json!({"id": "1", "X-Trace": "a\r\nX-Evil: 1"}),
    )
    .await;

    assert_error(&answer, "HEADER_VALUE_REFUSED");
    assert!(received(&server).await.is_empty());
}

#[tokio::test]
async fn an_unknown_tool_is_not_a_tool_result() {
    let gateway = gateway("http://127.0.0.1:9", None);
    let error = gateway.call("nope", None).await.expect_err("unknown tool");
    assert_eq!(error, UnknownTool("nope".to_owned()));
    assert!(error.to_string().starts_with("[TOOL_UNKNOWN] "));

    // The name is the agent's own text handed back, masked like every text
    // the gateway writes (TC-MASK-007).
    let named = gateway.call(&format!("get-{SECRET}"), None).await;
    let named = named.expect_err("unknown tool");
    assert_eq!(named, UnknownTool("get-[credential]".to_owned()));
    assert!(!named.to_string().contains(SECRET), "{named}");
}

#[tokio::test]
async fn a_server_error_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(503)
                .set_body_raw(format!("down for maintenance, key {SECRET}"), "text/plain"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert_error(&answer, "UPSTREAM_STATUS");
    assert!(answer.text.contains("503 Service Unavailable"));
    assert!(answer
        .text
        .ends_with("down for maintenance, key [credential]"));
    assert_eq!(received(&server).await.len(), 1);
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let server = MockServer::start().await;
    let elsewhere = format!("{}/elsewhere?token={SECRET}", server.uri());
    Mock::given(method("GET"))
        .and(path("/pets/1"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", elsewhere.as_str()))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/elsewhere"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let gateway = gateway(&server.uri(), None);

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert_error(&answer, "UPSTREAM_REDIRECT");
    assert!(answer
        .text
        .contains(&format!("{}/elsewhere?token=[credential]", server.uri())));
    assert_eq!(received(&server).await.len(), 1);
}

#[tokio::test]
async fn a_slow_answer_is_cut_off_at_the_deadline_and_the_url_is_masked() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(5)))
        .mount(&server)
        .await;
    let gateway = gateway(
        &server.uri(),
        Some(CredentialPlacement::Query("key".to_owned())),
    );
    let started = Instant::now();

    let answer = call(&gateway, "getPet", json!({"id": "1", "key": "mine"})).await;

    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_error(&answer, "UPSTREAM_TIMEOUT");
    assert!(answer.text.contains("400 ms"), "{}", answer.text);
    assert!(answer.text.contains("key=[credential]"), "{}", answer.text);
    assert!(!answer.text.contains("mine"), "{}", answer.text);
    assert_eq!(received(&server).await.len(), 1);
}

/// A raw upstream: accepts connections, counts them, reads each request's
/// head and hands the stream to `behave`.
async fn raw_upstream<F, Fut>(behave: F) -> (String, Arc<AtomicUsize>)
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    let behave = Arc::new(behave);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let behave = Arc::clone(&behave);
            tokio::spawn(async move {
                read_request_head(&mut stream).await;
                behave(stream).await;
            });
        }
    });
    (format!("http://{address}"), connections)
}

async fn read_request_head(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|window| window == b"\r\n\r\n") {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => head.extend_from_slice(&buffer[..read]),
        }
    }
}

#[tokio::test]
async fn a_body_that_trickles_past_the_deadline_is_cut_off() {
    let (base, _) = raw_upstream(|mut stream| async move {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\n";
        let _ = stream.write_all(head.as_bytes()).await;
        for _ in 0..1000 {
            if stream.write_all(b"x").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let gateway = gateway(&base, None);
    let started = Instant::now();

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_error(&answer, "UPSTREAM_TIMEOUT");
}

#[tokio::test]
async fn an_endless_body_is_read_up_to_the_limit() {
    let (base, _) = raw_upstream(|mut stream| async move {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n";
        let _ = stream.write_all(head.as_bytes()).await;
        let chunk = vec![b'e'; 64 * 1024];
        while stream.write_all(&chunk).await.is_ok() {}
    })
    .await;
    let upstream = UpstreamConfig {
        base_url: base,
        credential: None,
        placement: None,
        trusted_ca_pem: None,
        also_masked: Vec::new(),
        exchange: None,
    };
    let gateway = Gateway::with_limits(catalogue(), upstream, limits(Duration::from_secs(10)))
        .expect("gateway starts");

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert!(
        !answer.is_error,
        "{}",
        &answer.text[..200.min(answer.text.len())]
    );
    assert!(answer.text.starts_with(&"e".repeat(1_048_576)));
    assert!(answer.text.ends_with(
        "[BODY_TRUNCATED] the answer is longer than 1048576 bytes (1 MB) and was cut there"
    ));
}

#[tokio::test]
async fn a_credential_split_across_two_chunks_is_masked() {
    let (base, _) = raw_upstream(|mut stream| async move {
        let (first, second) = SECRET.split_at(7);
        let body_length = "echo: ".len() + SECRET.len() + " end".len();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {body_length}\r\n\r\necho: {first}"
        );
        let _ = stream.write_all(head.as_bytes()).await;
        let _ = stream.flush().await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _ = stream.write_all(format!("{second} end").as_bytes()).await;
    })
    .await;
    let gateway = gateway(&base, None);

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert_eq!(
        answer,
        ToolAnswer {
            text: "echo: [credential] end".to_owned(),
            is_error: false,
            code: None,
        }
    );
}

#[tokio::test]
async fn a_reset_connection_is_reported_and_not_retried() {
    let (base, connections) = raw_upstream(|stream| async move {
        // Linger zero turns the close into a reset.
        let _ = stream.set_zero_linger();
        drop(stream);
    })
    .await;
    assert_reset_reported_once(&base, &connections).await;
}

#[tokio::test]
async fn a_connection_closed_without_an_answer_is_a_reset() {
    let (base, connections) = raw_upstream(|stream| async move { drop(stream) }).await;
    assert_reset_reported_once(&base, &connections).await;
}

/// A call to an upstream that drops the connection is a reset error, and the
/// gateway opened exactly one connection: no retry.
async fn assert_reset_reported_once(base: &str, connections: &AtomicUsize) {
    let gateway = gateway(base, None);

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert_error(&answer, "UPSTREAM_RESET");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_connection_is_reported() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    drop(listener);
    let gateway = gateway(&format!("http://{address}"), None);

    let answer = call(&gateway, "getPet", json!({"id": "1"})).await;

    assert_error(&answer, "UPSTREAM_UNREACHABLE");
}
