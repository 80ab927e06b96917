//! Steps for TC-PROTO-*: transports, both protocol eras, errors, order.

use anyhow::Context as _;
use cucumber::{gherkin::Step, given, then, when};
use serde_json::{json, Value};

use super::failure::{fail, StepResult};
use super::support::{first_column, holds_the_tools, parse_json};
use crate::json::{follow, same_json, show, tool_names};
use crate::{client::Era, client_auth::Shown, world::GatewayWorld};

#[given(expr = "the client uses the initialize handshake with protocol version {string}")]
async fn initialize_era(world: &mut GatewayWorld, version: String) -> StepResult {
    world.set_era(Era::Initialize(version))?;
    Ok(())
}

#[given(regex = r"^the client uses server/discover \(protocol version 2026-07-28\)$")]
async fn discover_era(world: &mut GatewayWorld) -> StepResult {
    world.set_era(Era::Discover)?;
    Ok(())
}

#[then(expr = "the gateway agreed on protocol version {string}")]
async fn agreed_version(world: &mut GatewayWorld, version: String) -> StepResult {
    let agreed = world.protocol_version().await?;
    if agreed != version {
        fail!("the client asked for protocol version {version}, the gateway agreed on {agreed}");
    }
    Ok(())
}

#[then("listing the tools again gives the same list")]
async fn listing_is_stable(world: &mut GatewayWorld) -> StepResult {
    let first = world.list_tools().await?;
    let second = world.list_tools().await?;
    if first != second {
        fail!(
            "two listings differ:\n{}\n---\n{}",
            show(&json!(first)),
            show(&json!(second))
        );
    }
    Ok(())
}

#[when(expr = "an HTTP client sends initialize with protocol version {string}")]
async fn raw_initialize(world: &mut GatewayWorld, version: String) -> StepResult {
    world.raw_http().await?.initialize(&version, &[]).await?;
    world.unless_refused_at_endpoint().await?;
    Ok(())
}

#[when(
    expr = "an HTTP client from the origin {string} sends initialize with protocol version {string}"
)]
async fn raw_initialize_from(
    world: &mut GatewayWorld,
    origin: String,
    version: String,
) -> StepResult {
    let origin = [("Origin".to_owned(), origin)];
    world
        .raw_http()
        .await?
        .initialize(&version, &origin)
        .await?;
    Ok(())
}

/// What a hand-driven request shows of the client credential, as a
/// scenario writes it.
fn shown(text: &str) -> anyhow::Result<Shown> {
    [Shown::Nothing, Shown::Wrong]
        .into_iter()
        .find(|shown| shown.describe() == text)
        .with_context(|| {
            format!("write what is shown as `no client credential` or `a wrong client credential`, not `{text}`")
        })
}

/// TC-PROTO-010: a client of its own, with no session, shows the gateway
/// no client credential or a wrong one.
#[when(
    regex = r#"^another HTTP client, showing (no client credential|a wrong client credential), sends initialize with protocol version "([^"]*)"$"#
)]
async fn raw_initialize_showing(
    world: &mut GatewayWorld,
    what: String,
    version: String,
) -> StepResult {
    let shown = shown(&what)?;
    world
        .another_raw_http(shown)
        .await?
        .initialize(&version, &[])
        .await?;
    Ok(())
}

/// TC-PROTO-010: the scenario's HTTP client, in the session it opened with
/// the client credential, calls a tool showing none or a wrong one.
#[when(
    regex = r#"^the HTTP client, showing (no client credential|a wrong client credential), calls the tool "([^"]*)" with (\{.*\})$"#
)]
async fn raw_call_showing(
    world: &mut GatewayWorld,
    what: String,
    name: String,
    arguments: String,
) -> StepResult {
    let shown = shown(&what)?;
    let name = world.tool_name(&name).await?;
    let params = json!({"name": name, "arguments": parse_json(&arguments)?});
    let raw = world.raw_http().await?;
    raw.show(shown);
    raw.request("tools/call", params, &[]).await?;
    Ok(())
}

/// TC-PROTO-010: the latest hand-driven request, which showed no client
/// credential or a wrong one, was refused as HTTP asks: 401, with a
/// `WWW-Authenticate` header saying how to authenticate. A gateway that
/// let it in, or refused it otherwise (403, 400), fails, saying what it did.
#[then("the gateway refused that client with HTTP 401 and a WWW-Authenticate header")]
async fn refused_with_challenge(world: &mut GatewayWorld) -> StepResult {
    let raw = world.raw_http().await?;
    let what = raw.shown().describe();
    let last = raw.last()?;
    let body: String = last.body.chars().take(400).collect();
    match last.status {
        401 => match last.headers.get("www-authenticate") {
            Some(challenge) if !challenge.as_bytes().iter().all(u8::is_ascii_whitespace) => Ok(()),
            _ => fail!(
                "a request that showed {what} was answered HTTP 401 without a WWW-Authenticate \
                 header, which says how to authenticate: {body}"
            ),
        },
        status @ 200..=299 => fail!(
            "the gateway let in a request that showed {what}: HTTP {status}, where a gateway that \
             checks its clients answers 401 with a WWW-Authenticate header: {body}"
        ),
        status => fail!(
            "a request that showed {what} was answered HTTP {status}, not 401 with a \
             WWW-Authenticate header: {body}"
        ),
    }
}

#[when(regex = r"^an HTTP client sends server/discover for protocol version 2026-07-28$")]
async fn raw_discover(world: &mut GatewayWorld) -> StepResult {
    world.raw_http().await?.discover(&[]).await?;
    Ok(())
}

#[when(expr = "the HTTP client sends {string}")]
async fn raw_request(world: &mut GatewayWorld, method: String) -> StepResult {
    world
        .raw_http()
        .await?
        .request(&method, json!({}), &[])
        .await?;
    Ok(())
}

#[then(expr = "the HTTP status is {int}")]
async fn http_status(world: &mut GatewayWorld, status: u16) -> StepResult {
    let last = world.raw_http().await?.last()?;
    if last.status != status {
        fail!(
            "expected HTTP {status}, got HTTP {}: {}",
            last.status,
            last.body
        );
    }
    Ok(())
}

#[then(regex = r#"^the answer has "([^"]*)" equal to (.+)$"#)]
async fn answer_member(world: &mut GatewayWorld, pointer: String, json: String) -> StepResult {
    let expected = parse_json(&json)?;
    let last = world.raw_http().await?.last()?;
    let message = last.message.as_ref().with_context(|| {
        format!(
            "HTTP {} carried no JSON-RPC answer: {}",
            last.status, last.body
        )
    })?;
    match follow(message, &pointer)? {
        Some(actual) if same_json(actual, &expected) => Ok(()),
        _ => fail!(
            "expected {pointer} = {} in the answer:\n{}",
            show(&expected),
            show(message)
        ),
    }
}

#[then(expr = "the answer's {string} includes {string}")]
async fn answer_includes(world: &mut GatewayWorld, pointer: String, item: String) -> StepResult {
    let last = world.raw_http().await?.last()?;
    let list = last.message.as_ref().and_then(|m| m.pointer(&pointer));
    match list.and_then(Value::as_array) {
        Some(items) if items.iter().any(|v| v == item.as_str()) => Ok(()),
        _ => fail!(
            "expected {pointer} to include {item:?}; the answer was HTTP {}: {}",
            last.status,
            last.body
        ),
    }
}

#[then(expr = "the answer carries no {string} header")]
async fn no_header(world: &mut GatewayWorld, header: String) -> StepResult {
    let last = world.raw_http().await?.last()?;
    if let Some(value) = last.headers.get(header.as_str()) {
        fail!("the answer carries {header}: {value:?}");
    }
    Ok(())
}

/// The tools, in whatever order: their order is TC-PROTO-006's matter.
#[then("the answer lists the tools:")]
async fn answer_lists(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let mut expected = Vec::new();
    for name in first_column(step)? {
        expected.push(world.tool_name(&name).await?);
    }
    let last = world.raw_http().await?.last()?;
    let tools = last.result()?["tools"]
        .as_array()
        .with_context(|| format!("the answer has no tools list: {}", last.body))?;
    let mut listed = tool_names(tools);
    if !holds_the_tools(world, &mut expected, &mut listed) {
        fail!("expected the tools {expected:?} (in any order), the answer lists {listed:?}");
    }
    Ok(())
}

#[when(regex = r#"^the HTTP client calls the tool "([^"]*)" with (\{.*\})$"#)]
async fn raw_call(world: &mut GatewayWorld, name: String, arguments: String) -> StepResult {
    let name = world.tool_name(&name).await?;
    let params = json!({"name": name, "arguments": parse_json(&arguments)?});
    world
        .raw_http()
        .await?
        .request("tools/call", params, &[])
        .await?;
    Ok(())
}

#[then("the answer to the POST carries the tool result")]
async fn post_carries_result(world: &mut GatewayWorld) -> StepResult {
    let last = world.raw_http().await?.last()?;
    let result = last.result().with_context(|| {
        "the POST carrying tools/call must be answered on its own response, as JSON or an SSE stream"
    })?;
    if !result["content"].is_array() {
        fail!(
            "the answer to the POST is not a tool result (no content list): {}",
            show(result)
        );
    }
    Ok(())
}

/// The official Python SDK refuses an SSE event over 1 MiB (its
/// `DEFAULT_MAX_SSE_EVENT_SIZE`), on a POST's answer and on the GET stream
/// alike, so an answer that big must go another way, a JSON body for one
/// (TC-PROTO-009). Whichever stream carried it, the client saw it.
#[then("no SSE event the client received was over 1 MiB")]
async fn no_event_over_a_mebibyte(world: &mut GatewayWorld) -> StepResult {
    const LIMIT: usize = 1 << 20;
    let size = world.largest_sse_event().await?;
    if size > LIMIT {
        fail!(
            "an answer came as an SSE event of {size} bytes: the official Python SDK \
             refuses events over {LIMIT} bytes, so its clients cannot read it (a JSON \
             body has no such limit)"
        );
    }
    Ok(())
}

/// Over stdio, stdout is the message channel: a banner or a log line there
/// is read by the client as a broken message (TC-PROTO-001).
#[then("the gateway wrote nothing on stdout but MCP messages")]
async fn stdout_only_messages(world: &mut GatewayWorld) -> StepResult {
    if let (strays @ 1.., first) = world.stdout_strays().await? {
        fail!(
            "{strays} line(s) on stdout were not JSON-RPC messages, the first: {:?}; \
             over stdio, stdout carries MCP messages only (logs go to stderr)",
            first.unwrap_or_default()
        );
    }
    Ok(())
}

/// Whether the revision is offered at all is TC-PROTO-003's matter; where
/// it is not, no POST of that revision has a result to carry, and the
/// scenario sees nothing.
#[then("where the 2026-07-28 revision is offered, the answer to the POST carries the tool result")]
async fn modern_post_carries_result(world: &mut GatewayWorld) -> StepResult {
    if !world.raw_http().await?.discovered() {
        return Err(world
            .not_judged(
                "TC-PROTO-003",
                "the gateway does not offer the 2026-07-28 revision (server/discover failed), \
                 so no POST of it carries a result"
                    .to_owned(),
            )
            .into());
    }
    post_carries_result(world).await
}

#[then("the tools, each known by an argument, are in order:")]
async fn tools_known_by_argument(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let expected = first_column(step)?;
    let tools = world.list_tools().await?;
    // Each tool is known by the first expected argument its input schema
    // has, wherever it takes it.
    let known: Vec<String> = tools
        .iter()
        .map(|tool| {
            let properties = tool["inputSchema"]["properties"].as_object();
            let takes = |name: &str, p: &serde_json::Map<String, Value>| {
                p.contains_key(name) || crate::naming::argument_pointer(name, p).is_some()
            };
            expected
                .iter()
                .find(|name| properties.is_some_and(|p| takes(name, p)))
                .cloned()
                .unwrap_or_else(|| format!("<{}>", tool["name"].as_str().unwrap_or("?")))
        })
        .collect();
    if known != expected {
        fail!(
            "expected the tools in this order (each known by its argument): {expected:?}, \
             the gateway lists {known:?} (tools: {:?})",
            tool_names(&tools)
        );
    }
    Ok(())
}
