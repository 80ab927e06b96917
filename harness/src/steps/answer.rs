//! Steps for TC-ANS-*: what the upstream answers (wiremock stubs and the mock
//! upstream's behaviours) and what the agent gets back from the call.

use std::time::Duration;

use cucumber::{gherkin::Step, given, then};
use mock_upstream::Behaviour;
use wiremock::{
    matchers::{method, path},
    Mock, ResponseTemplate,
};

use super::{
    call_support::{clip, error_text, expand, result, success_text, Repeated},
    support::doc_string,
};
use crate::{
    fail,
    world::{GatewayWorld, StepResult},
};

/// Words of which a note about a cut body must say at least one.
const CUT_WORDS: &[&str] = &["truncat", "cut", "1 mb", "1048576", "1,048,576", "limit"];

async fn stub(world: &GatewayWorld, verb: &str, route: &str, response: ResponseTemplate) {
    Mock::given(method(verb))
        .and(path(route))
        .respond_with(response)
        .mount(world.upstream().stubs())
        .await;
}

/// A body of exactly these bytes, sent in one piece with no `Content-Type`.
fn without_content_type(world: &GatewayWorld, route: &str, status: u16, body: Vec<u8>) {
    world.upstream().set_behaviour(
        route,
        Behaviour::Chunked {
            status,
            content_type: String::new(),
            chunks: vec![body],
            pause: Duration::ZERO,
        },
    );
}

/// `size` bytes that are not UTF-8 (a PNG signature, then every byte value
/// in turn) with `marker` in the middle.
fn binary(size: usize, marker: &str) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    let cycle = (0..=255u8).cycle();
    bytes.extend(cycle.take(size.saturating_sub(bytes.len() + marker.len())));
    let middle = bytes.len() / 2;
    bytes.splice(middle..middle, marker.bytes());
    bytes.truncate(size);
    bytes
}

#[given(expr = "the upstream answers {word} {string} with status {int}")]
async fn answers_status(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
) -> StepResult {
    stub(world, &verb, &route, ResponseTemplate::new(status)).await;
    Ok(())
}

#[given(expr = "the upstream answers {word} {string} with status {int} and the {string} body:")]
async fn answers_body(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    step: &Step,
) -> StepResult {
    let body = expand(world, doc_string(step)?);
    let response = ResponseTemplate::new(status).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and the {string} body {string}"
)]
async fn answers_inline_body(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    body: String,
) -> StepResult {
    let body = expand(world, &body);
    let response = ResponseTemplate::new(status).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and the {string} header {string}"
)]
async fn answers_header(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    name: String,
    value: String,
) -> StepResult {
    let response =
        ResponseTemplate::new(status).insert_header(name.as_str(), expand(world, &value));
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and a {string} body of {repeated}"
)]
async fn answers_long_body(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    long: Repeated,
) -> StepResult {
    let body = long.text(world);
    let response = ResponseTemplate::new(status).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

/// Bytes written as hexadecimal pairs separated by spaces: `"F0 90 80 80"`.
fn hex_bytes(text: &str) -> anyhow::Result<Vec<u8>> {
    text.split_whitespace()
        .map(|pair| {
            u8::from_str_radix(pair, 16)
                .map_err(|_| anyhow::anyhow!("`{pair}` is not a byte in hexadecimal"))
        })
        .collect()
}

#[given(
    expr = "the upstream answers {word} {string} with a {string} body of {string} repeated {int} times followed by the bytes {string}"
)]
async fn answers_long_body_with_bytes(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    content_type: String,
    unit: String,
    count: usize,
    tail: String,
) -> StepResult {
    let mut body = unit.repeat(count).into_bytes();
    body.extend(hex_bytes(&tail)?);
    let response = ResponseTemplate::new(200).set_body_raw(body, &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {word} {string} with status {int} and a {string} body of {int} bytes that are not UTF-8, holding {string}"
)]
async fn answers_binary(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    size: usize,
    marker: String,
) -> StepResult {
    let response = ResponseTemplate::new(status).set_body_raw(binary(size, &marker), &content_type);
    stub(world, &verb, &route, response).await;
    Ok(())
}

#[given(
    expr = "the upstream answers {string} with status {int}, no content type and the body {string}"
)]
async fn answers_untyped_text(
    world: &mut GatewayWorld,
    route: String,
    status: u16,
    body: String,
) -> StepResult {
    let body = expand(world, &body).into_bytes();
    without_content_type(world, &route, status, body);
    Ok(())
}

#[given(
    expr = "the upstream answers {string} with status {int}, no content type and {int} bytes that are not UTF-8, holding {string}"
)]
async fn answers_untyped_binary(
    world: &mut GatewayWorld,
    route: String,
    status: u16,
    size: usize,
    marker: String,
) -> StepResult {
    without_content_type(world, &route, status, binary(size, &marker));
    Ok(())
}

#[given(expr = "the upstream answers {string} with an endless {string} body of {string}")]
async fn answers_endless(
    world: &mut GatewayWorld,
    route: String,
    content_type: String,
    unit: String,
) -> StepResult {
    let chunk = unit.repeat(8192 / unit.len().max(1)).into_bytes();
    world.upstream().set_behaviour(
        &route,
        Behaviour::Endless {
            content_type,
            chunk,
        },
    );
    Ok(())
}

#[then("the call succeeds with a text containing:")]
async fn succeeds_containing(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let expected = expand(world, doc_string(step)?);
    contains(success_text(world)?, &expected)
}

#[then(expr = "the call succeeds with a text containing {string}")]
async fn succeeds_containing_inline(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    contains(success_text(world)?, &expected)
}

#[then(expr = "the call succeeds with a text containing {repeated}")]
async fn succeeds_containing_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let expected = long.text(world);
    contains(success_text(world)?, &expected)
}

#[then(expr = "the call fails with a text containing {string}")]
async fn fails_containing(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    contains(error_text(world)?, &expected)
}

#[then(expr = "the call fails with a text containing {repeated}")]
async fn fails_containing_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let expected = long.text(world);
    contains(error_text(world)?, &expected)
}

#[then(expr = "the result contains {string}")]
async fn result_contains(world: &mut GatewayWorld, expected: String) -> StepResult {
    let expected = expand(world, &expected);
    contains(result(world)?.1, &expected)
}

#[then(expr = "the result does not contain {string}")]
async fn result_lacks(world: &mut GatewayWorld, unwanted: String) -> StepResult {
    let unwanted = expand(world, &unwanted);
    lacks(result(world)?.1, &unwanted)
}

#[then(expr = "the result does not contain {repeated}")]
async fn result_lacks_long(world: &mut GatewayWorld, long: Repeated) -> StepResult {
    let unwanted = long.text(world);
    lacks(result(world)?.1, &unwanted)
}

#[then("the result notes that the body was cut")]
async fn notes_cut(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    if !super::call_support::says_one_of(text, CUT_WORDS) {
        fail!(
            "expected a note that the body was cut (one of {CUT_WORDS:?}):\n{}",
            clip(text)
        );
    }
    Ok(())
}

#[then("the result has no note that the body was cut")]
async fn no_cut_note(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    if super::call_support::says_one_of(text, CUT_WORDS) {
        fail!(
            "the whole body fits, yet the result speaks of a cut:\n{}",
            clip(text)
        );
    }
    Ok(())
}

#[then("the result contains no replacement character")]
async fn no_replacement(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    if let Some(at) = text.find('\u{FFFD}') {
        fail!(
            "the result has U+FFFD at byte {at}: a character was cut in two:\n{}",
            clip(&text[at.saturating_sub(40)..])
        );
    }
    Ok(())
}

fn contains(text: &str, expected: &str) -> StepResult {
    if !text.contains(expected) {
        fail!(
            "expected the result to contain {}\ngot:\n{}",
            clip(expected),
            clip(text)
        );
    }
    Ok(())
}

fn lacks(text: &str, unwanted: &str) -> StepResult {
    if let Some(at) = text.find(unwanted) {
        fail!(
            "the result contains {} at byte {at}:\n{}",
            clip(unwanted),
            clip(&text[at.saturating_sub(200)..])
        );
    }
    Ok(())
}
