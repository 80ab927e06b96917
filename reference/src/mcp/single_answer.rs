//! A request POST of the `initialize` era answered as one JSON body.
//!
//! With sessions, rmcp answers every request POST with an SSE stream: a
//! priming event, then the answer as one event. The official Python SDK
//! refuses an SSE event over 1 MiB, so a big `tools/list` (Stripe's is
//! 1.25 MB) or a tool result near the 1 MB read limit could not be read at
//! all. Streamable HTTP lets a server answer a POST with either a JSON body
//! or a stream, and every client must take both, so when the stream's first
//! message is the answer itself it goes back as `application/json`, with no
//! size limit in any SDK. A stream that carries anything before its answer
//! (a notification, a request to the client) is passed on as a stream, its
//! events in order, so nothing is lost.
//!
//! The 2026-07-28 era and `--stateless` need none of this: rmcp answers them
//! as JSON itself (`with_json_response`).

use std::convert::Infallible;

use bytes::Bytes;
use futures::StreamExt as _;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Body;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use serde::de::IgnoredAny;
use sse_stream::{Sse, SseBody, SseStream};

/// TC-PROTO-009: `response` with its SSE stream turned into one JSON body when
/// the stream's first message answers the request; any other response as it is.
pub async fn answer_as_json<B>(
    response: hyper::Response<B>,
) -> hyper::Response<BoxBody<Bytes, Infallible>>
where
    B: Body<Data = Bytes, Error = Infallible> + Send + Sync + 'static,
{
    let streamed = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        return response.map(BodyExt::boxed);
    }
    let (mut parts, body) = response.into_parts();
    let mut events = SseStream::new(body.boxed());
    // Events without a message (priming, retry hints) are only for resuming
    // a stream, which a JSON body never needs.
    let mut before_answer = Vec::new();
    while let Some(Ok(event)) = events.next().await {
        match event.data.as_deref() {
            None | Some("") => before_answer.push(event),
            Some(message) if is_answer(message) => {
                parts
                    .headers
                    .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                let message = Bytes::from(event.data.unwrap_or_default());
                return hyper::Response::from_parts(parts, Full::new(message).boxed());
            }
            Some(_) => {
                before_answer.push(event);
                break;
            }
        }
    }
    // Not an answer first (or a broken stream): the events as they came.
    let rest = events.take_while(|event| std::future::ready(event.is_ok()));
    let replay = futures::stream::iter(before_answer)
        .chain(rest.filter_map(|event| std::future::ready(event.ok())))
        .map(Ok::<Sse, Infallible>);
    hyper::Response::from_parts(parts, SseBody::new(replay).boxed())
}

/// Whether a JSON-RPC message is a response (a result or an error), not a
/// request or a notification: only those carry a `method`.
fn is_answer(message: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Shape {
        method: Option<IgnoredAny>,
        id: Option<IgnoredAny>,
    }
    serde_json::from_str::<Shape>(message)
        .is_ok_and(|shape| shape.method.is_none() && shape.id.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(events: &str) -> hyper::Response<Full<Bytes>> {
        hyper::Response::builder()
            .header(CONTENT_TYPE, "text/event-stream")
            .header("mcp-session-id", "s1")
            .body(Full::new(Bytes::from(events.to_owned())))
            .expect("a response")
    }

    async fn read(response: hyper::Response<BoxBody<Bytes, Infallible>>) -> (String, String) {
        let content_type = response.headers()[CONTENT_TYPE]
            .to_str()
            .expect("ASCII")
            .to_owned();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("read")
            .to_bytes();
        (
            content_type,
            String::from_utf8(body.to_vec()).expect("UTF-8"),
        )
    }

    #[tokio::test]
    async fn an_answer_after_priming_goes_back_as_json_with_its_headers() {
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#;
        let response = answer_as_json(stream(&format!(
            "id: 0\nretry: 3000\ndata: \n\ndata: {answer}\n\n"
        )))
        .await;
        assert_eq!(response.headers()["mcp-session-id"], "s1");
        assert_eq!(
            read(response).await,
            ("application/json".to_owned(), answer.to_owned())
        );
    }

    #[tokio::test]
    async fn an_error_answer_goes_back_as_json_too() {
        let answer = r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"no"}}"#;
        let response = answer_as_json(stream(&format!("data: {answer}\n\n"))).await;
        assert_eq!(read(response).await.1, answer);
    }

    #[tokio::test]
    async fn a_notification_before_the_answer_keeps_the_stream_whole() {
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let response = answer_as_json(stream(&format!(
            "data: {notification}\n\ndata: {answer}\n\n"
        )))
        .await;
        let (content_type, body) = read(response).await;
        assert_eq!(content_type, "text/event-stream");
        let messages: Vec<&str> = body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .collect();
        assert_eq!(messages, [notification, answer]);
    }

    #[tokio::test]
    async fn a_json_response_is_left_alone() {
        let response = hyper::Response::builder()
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from_static(b"{}")))
            .expect("a response");
        assert_eq!(
            read(answer_as_json(response).await).await,
            ("application/json".to_owned(), "{}".to_owned())
        );
    }
}
