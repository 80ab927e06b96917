//! The upstream seen from a client that writes raw HTTP/1.1, so that nothing
//! between the test and the upstream can tidy the request.

use std::time::Duration;

use mock_upstream::{Behaviour, Upstream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wiremock::matchers::{body_string, headers, method, path};
use wiremock::{Mock, ResponseTemplate};

/// Connects to the upstream and writes `request` verbatim.
async fn send(upstream: &Upstream, request: &str) -> TcpStream {
    let address = upstream.base_url().replace("http://", "");
    let mut stream = TcpStream::connect(address).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    stream
}

/// Writes `request` and reads the answer until the upstream closes.
async fn exchange(upstream: &Upstream, request: &str) -> std::io::Result<String> {
    let mut stream = send(upstream, request).await;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the upstream answers within 10 s")?;
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

fn get(target: &str) -> String {
    format!("GET {target} HTTP/1.1\r\nHost: upstream\r\nConnection: close\r\n\r\n")
}

#[tokio::test]
async fn records_the_request_target_exactly_as_sent() {
    let upstream = Upstream::start().await.unwrap();
    let targets = [
        "/a/%2e%2e/b",
        "/a/../b",
        "/caf\u{e9}/./x",
        "/x%2Fy/%E2%9C%93?q=a%20b&q=c+d",
    ];
    for target in targets {
        let answer = exchange(&upstream, &get(target)).await.unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 404"),
            "no stub matches: {answer}"
        );
    }

    let recorded: Vec<_> = upstream.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(recorded, targets);
    let last = &upstream.requests()[3];
    assert_eq!(last.path, "/x%2Fy/%E2%9C%93");
    assert_eq!(last.query.as_deref(), Some("q=a%20b&q=c+d"));
    assert_eq!(
        last.query_pairs(),
        [
            ("q".to_owned(), "a b".to_owned()),
            ("q".to_owned(), "c d".to_owned())
        ]
    );
}

#[tokio::test]
async fn forwards_to_the_stubs_and_records_headers_and_body() {
    let upstream = Upstream::start().await.unwrap();
    Mock::given(method("POST"))
        .and(path("/pets"))
        .and(headers("x-trace", vec!["abc", "second"]))
        .and(body_string("{\"name\":\"Rex\"}"))
        .respond_with(ResponseTemplate::new(201).set_body_string("created"))
        .expect(1)
        .mount(upstream.stubs())
        .await;

    let body = "{\"name\":\"Rex\"}";
    let request = format!(
        "POST /pets HTTP/1.1\r\nHost: upstream\r\nX-Trace: abc\r\nx-trace: second\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let answer = exchange(&upstream, &request).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    assert!(answer.ends_with("\r\n\r\ncreated"), "{answer}");

    let recorded = upstream.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].method, "POST");
    assert_eq!(recorded[0].body, body.as_bytes());
    assert_eq!(recorded[0].header("X-TRACE"), Some(&b"abc"[..]));
    assert_eq!(
        recorded[0].header_all("x-trace"),
        [&b"abc"[..], &b"second"[..]]
    );
    assert!(recorded[0]
        .headers
        .iter()
        .all(|(name, _)| *name == name.to_lowercase()));
}

#[tokio::test]
async fn hands_back_a_redirect_without_following_it() {
    let upstream = Upstream::start().await.unwrap();
    let location = format!("{}/elsewhere", upstream.base_url());
    Mock::given(path("/old"))
        .respond_with(ResponseTemplate::new(302).insert_header("Location", location.as_str()))
        .mount(upstream.stubs())
        .await;

    let answer = exchange(&upstream, &get("/old")).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 302"), "{answer}");
    assert!(
        answer
            .to_lowercase()
            .contains(&format!("location: {location}\r\n")),
        "{answer}"
    );
    let paths: Vec<_> = upstream.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/old"]);
}

#[tokio::test]
async fn reset_closes_the_connection_without_an_answer() {
    let upstream = Upstream::start().await.unwrap();
    upstream.set_behaviour("/boom", Behaviour::Reset);

    let error = exchange(&upstream, &get("/boom?x=1")).await.unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset);
    assert_eq!(
        upstream.requests().len(),
        1,
        "the request is recorded first"
    );
}

#[tokio::test]
async fn not_http_answers_with_a_banner_and_closes() {
    let upstream = Upstream::start().await.unwrap();
    upstream.set_behaviour("/ssh", Behaviour::NotHttp);

    let answer = exchange(&upstream, &get("/ssh")).await.expect("an answer");
    assert!(answer.starts_with("SSH-2.0-"), "{answer:?}");
    assert!(!answer.contains("HTTP/1."), "{answer:?}");
    assert_eq!(
        upstream.requests().len(),
        1,
        "the request is recorded first"
    );
}

#[tokio::test]
async fn chunked_sends_each_chunk_on_its_own() {
    let upstream = Upstream::start().await.unwrap();
    upstream.set_behaviour(
        "/split",
        Behaviour::Chunked {
            status: 200,
            content_type: "text/plain".into(),
            chunks: vec![b"first-".to_vec(), b"second".to_vec()],
            pause: Duration::from_millis(300),
        },
    );

    let mut stream = send(&upstream, &get("/split")).await;
    let mut head = vec![0; 4096];
    let n = stream.read(&mut head).await.unwrap();
    let first = String::from_utf8_lossy(&head[..n]).into_owned();
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(first.contains("content-type: text/plain"), "{first}");
    assert!(
        first.ends_with("6\r\nfirst-\r\n"),
        "the first chunk comes alone: {first}"
    );

    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).await.unwrap();
    assert_eq!(String::from_utf8_lossy(&rest), "6\r\nsecond\r\n0\r\n\r\n");
}

#[tokio::test]
async fn stall_and_delay_hold_the_answer_back() {
    let upstream = Upstream::start().await.unwrap();
    Mock::given(path("/late"))
        .respond_with(ResponseTemplate::new(200).set_body_string("at last"))
        .mount(upstream.stubs())
        .await;
    upstream.set_behaviour("/late", Behaviour::DelayHeaders(Duration::from_millis(300)));
    upstream.set_behaviour("/never", Behaviour::Stall);

    let mut stalled = send(&upstream, &get("/never")).await;
    let mut buffer = [0; 16];
    let waited = tokio::time::timeout(Duration::from_millis(300), stalled.read(&mut buffer)).await;
    assert!(waited.is_err(), "a stalled request gets nothing");

    let started = std::time::Instant::now();
    let answer = exchange(&upstream, &get("/late")).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(answer.ends_with("at last"), "{answer}");
}

#[tokio::test]
async fn endless_keeps_sending_until_the_client_stops_reading() {
    let upstream = Upstream::start().await.unwrap();
    upstream.set_behaviour(
        "/forever",
        Behaviour::Endless {
            content_type: "application/octet-stream".into(),
            chunk: vec![b'x'; 1024],
        },
    );

    let mut stream = send(&upstream, &get("/forever")).await;
    let mut received = 0;
    let mut buffer = vec![0; 64 * 1024];
    while received < 4 * 1024 * 1024 {
        let n = stream.read(&mut buffer).await.unwrap();
        assert_ne!(n, 0, "the body does not end");
        received += n;
    }
    drop(stream);
    drop(upstream);
}

#[tokio::test]
async fn keeps_the_bytes_of_requests_too_malformed_to_parse() {
    let upstream = Upstream::start().await.unwrap();
    let answer = exchange(
        &upstream,
        "GET /a HTTP/1.1\r\nHost: u\r\nBad Name: x\r\nConnection: close\r\n\r\n",
    )
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(upstream.requests().is_empty());
    assert_eq!(
        upstream.wire_bytes(),
        [b"GET /a HTTP/1.1\r\nHost: u\r\nBad Name: x\r\nConnection: close\r\n\r\n".to_vec()]
    );
}

#[tokio::test]
async fn a_base_path_extends_the_base_url() {
    let upstream = Upstream::start().await.unwrap();
    let root = upstream.base_url();
    upstream.set_base_path("/api/v1");
    assert_eq!(upstream.base_url(), format!("{root}/api/v1"));
}

#[tokio::test]
async fn refusing_connections_closes_the_port() {
    let upstream = Upstream::start().await.unwrap();
    let address = upstream.base_url().replace("http://", "");
    assert!(exchange(&upstream, &get("/before")).await.is_ok());

    upstream.refuse_connections().await;
    let error = TcpStream::connect(&address).await.unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionRefused);
    assert_eq!(upstream.requests().len(), 1, "what was recorded stays");
}

#[tokio::test]
async fn reset_forgets_the_last_test_but_keeps_the_port_and_its_connections() {
    let upstream = Upstream::start().await.unwrap();
    let root = upstream.base_url();
    Mock::given(method("GET"))
        .and(path("/pets"))
        .respond_with(ResponseTemplate::new(200).set_body_string("[]"))
        .mount(upstream.stubs())
        .await;
    upstream.set_behaviour("/broken", Behaviour::Reset);
    let keep_alive = "GET /pets HTTP/1.1\r\nHost: u\r\n\r\n";
    let mut kept = send(&upstream, keep_alive).await;
    let mut first = [0u8; 12];
    kept.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    upstream.set_base_path("/api");

    upstream.reset().await.unwrap();
    assert_eq!(upstream.base_url(), root, "the base path is forgotten");
    assert!(upstream.requests().is_empty());
    assert!(upstream.wire_bytes().is_empty(), "nothing sent since");
    let answer = exchange(&upstream, &get("/pets")).await.unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 404"),
        "no stub is left: {answer}"
    );
    let answer = exchange(&upstream, &get("/broken")).await.unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 404"),
        "no behaviour is left: {answer}"
    );

    // A connection kept alive across the reset is seen from what it sends next.
    let again = "GET /again HTTP/1.1\r\nHost: u\r\nConnection: close\r\n\r\n";
    kept.write_all(again.as_bytes()).await.unwrap();
    let mut rest = Vec::new();
    kept.read_to_end(&mut rest).await.unwrap();
    let targets: Vec<_> = upstream.requests().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/pets", "/broken", "/again"]);
    assert!(upstream.wire_bytes().contains(&again.as_bytes().to_vec()));
    assert_eq!(upstream.wire_bytes().len(), 3);

    upstream.refuse_connections().await;
    assert!(upstream.reset().await.is_err(), "refusing cannot be undone");
}

#[tokio::test]
async fn a_client_that_gives_up_on_a_held_answer_is_timed_from_its_request() {
    let upstream = Upstream::start().await.unwrap();
    upstream.set_behaviour("/held", Behaviour::DelayHeaders(Duration::from_secs(30)));
    let stream = send(&upstream, &get("/held")).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(upstream.held_open("/held"), None, "still open");
    tokio::time::sleep(Duration::from_millis(350)).await;
    drop(stream);
    // The close is seen at once, though the answer is held for 30 s.
    let mut held = None;
    for _ in 0..100 {
        held = upstream.held_open("/held");
        if held.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let held = held.expect("the close is noted");
    assert!(
        held >= Duration::from_millis(350) && held < Duration::from_secs(2),
        "{held:?}"
    );
    assert_eq!(upstream.held_open("/elsewhere"), None);
}

#[tokio::test]
async fn refusing_connections_closes_a_kept_alive_one() {
    let upstream = Upstream::start().await.unwrap();
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_string("ok"))
        .mount(upstream.stubs())
        .await;
    // A client that keeps its connection, as a pooled HTTP client does.
    let mut stream = send(&upstream, "GET /kept HTTP/1.1\r\nHost: upstream\r\n\r\n").await;
    let mut answer = [0u8; 512];
    let n = stream.read(&mut answer).await.expect("an answer");
    assert!(answer[..n].starts_with(b"HTTP/1.1 200"));
    upstream.refuse_connections().await;
    // The kept connection is closed too: the client reads its end at once.
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer)).await;
    assert!(
        matches!(closed, Ok(Ok(0)) | Ok(Err(_))),
        "the kept connection stayed open: {closed:?}"
    );
}
