//! How the upstream answers: `Given the upstream ...` steps, for every
//! section. Plain answers are wiremock stubs; what wiremock cannot do (a
//! reset, a stall, a trickle, an endless or exactly-cut body) is a mock
//! upstream behaviour keyed by the raw path.

use std::time::Duration;

use cucumber::{gherkin::Step, given};
use hosted_mcp_oracle as oracle;
use mock_upstream::Behaviour;
use wiremock::{
    matchers::{method, path},
    Mock, ResponseTemplate,
};

use super::call_support::{expand, Repeated};
use super::failure::StepResult;
use super::support::doc_string;
use crate::world::GatewayWorld;

/// 1 MB: where a long answer is cut.
const BODY_LIMIT: usize = 1_048_576;

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

#[given(expr = "the upstream resets the connection on {string}")]
async fn resets(world: &mut GatewayWorld, route: String) -> StepResult {
    world.upstream().set_behaviour(&route, Behaviour::Reset);
    Ok(())
}

#[given(expr = "the upstream answers {string} with bytes that are not HTTP")]
async fn not_http(world: &mut GatewayWorld, route: String) -> StepResult {
    world.upstream().set_behaviour(&route, Behaviour::NotHttp);
    Ok(())
}

#[given(expr = "the upstream never answers on {string}")]
async fn stalls(world: &mut GatewayWorld, route: String) -> StepResult {
    world.upstream().set_behaviour(&route, Behaviour::Stall);
    Ok(())
}

#[given(expr = "the upstream holds its answer on {string} back for {int} seconds")]
async fn delays(world: &mut GatewayWorld, route: String, seconds: u64) -> StepResult {
    world.upstream().set_behaviour(
        &route,
        Behaviour::DelayHeaders(Duration::from_secs(seconds)),
    );
    Ok(())
}

#[given(
    expr = "the upstream answers {string} at once, then trickles {string} every second without end"
)]
async fn trickles(world: &mut GatewayWorld, route: String, chunk: String) -> StepResult {
    world.upstream().set_behaviour(
        &route,
        Behaviour::Trickle {
            status: 200,
            content_type: "text/plain".into(),
            chunk: chunk.into_bytes(),
            interval: Duration::from_secs(1),
        },
    );
    Ok(())
}

#[given(
    expr = "the upstream answers {string} at once, then sends {string} {int} times, one a second"
)]
async fn sends_slowly(
    world: &mut GatewayWorld,
    route: String,
    chunk: String,
    count: usize,
) -> StepResult {
    world.upstream().set_behaviour(
        &route,
        Behaviour::Chunked {
            status: 200,
            content_type: "text/plain".into(),
            chunks: vec![chunk.into_bytes(); count],
            pause: Duration::from_secs(1),
        },
    );
    Ok(())
}

/// Starts the gateway first (it is given the address while it still
/// answers), then closes the port.
#[given("the gateway is running, and nothing listens at the upstream's address any more")]
async fn nothing_listens(world: &mut GatewayWorld) -> StepResult {
    world.start().await?;
    world.upstream().refuse_connections().await;
    Ok(())
}

/// Sends `before <first half of the credential>`, flushes, waits, then
/// `<second half> after`.
#[given(
    expr = "the upstream answers {string} with status {int} and a {string} body that splits the credential across two chunks"
)]
async fn splits_credential(
    world: &mut GatewayWorld,
    route: String,
    status: u16,
    content_type: String,
) -> StepResult {
    let (first, second) = halves(world.credential());
    world.upstream().set_behaviour(
        &route,
        Behaviour::Chunked {
            status,
            content_type,
            chunks: vec![
                format!("before {first}").into_bytes(),
                format!("{second} after").into_bytes(),
            ],
            pause: Duration::from_millis(300),
        },
    );
    Ok(())
}

/// `x`s up to the 1 MB cut minus half the credential, then the credential,
/// so that the cut falls in its middle. Escaped, it is in the widest writing
/// a JSON encoder uses: a gateway that reads past the cut only as far as the
/// credential's plain length never sees it whole, and leaves its first half
/// escaped at the cut.
#[given(
    regex = r#"^the upstream answers (\S+) "([^"]*)" with status (\d+) and a "([^"]*)" body that puts the credential across the 1 MB cut(|, each character JSON-escaped)$"#
)]
async fn credential_across_cut(
    world: &mut GatewayWorld,
    verb: String,
    route: String,
    status: u16,
    content_type: String,
    escaped: String,
) -> StepResult {
    let characters: Vec<String> = if escaped.is_empty() {
        world.credential().chars().map(String::from).collect()
    } else {
        let escaped = |c| {
            let mut written = String::new();
            oracle::write_char(c, oracle::Char::UnicodeLower, &mut written);
            written
        };
        world.credential().chars().map(escaped).collect()
    };
    let before: usize = characters[..characters.len() / 2]
        .iter()
        .map(String::len)
        .sum();
    let mut body = "x".repeat(BODY_LIMIT - before);
    body.push_str(&characters.concat());
    body.push_str(" and more after it");
    stub(
        world,
        &verb,
        &route,
        ResponseTemplate::new(status).set_body_raw(body, &content_type),
    )
    .await;
    Ok(())
}

/// A fallback: stubs of particular requests, mounted before or after, win.
#[given(expr = "the upstream answers every request with status {int}")]
async fn upstream_status(world: &mut GatewayWorld, status: u16) -> StepResult {
    world.answer_every_request_with(status).await;
    Ok(())
}

/// The credential cut in two at a character boundary near its middle.
fn halves(credential: &str) -> (&str, &str) {
    let mut middle = credential.len() / 2;
    while !credential.is_char_boundary(middle) {
        middle -= 1;
    }
    credential.split_at(middle)
}
