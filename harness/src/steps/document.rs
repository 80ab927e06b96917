//! Steps every section shares: the document, starting the gateway, the tool
//! list, a tool's JSON, and calling a tool.

use cucumber::{gherkin::Step, given, then, when};

use super::failure::{fail, StepResult};
use super::{
    call_support::call_listed,
    support::{doc_string, first_column, holds_the_tools, parse_json, tool},
};
use crate::json::{follow, same_json, show, tool_names};
use crate::{client::CallOutcome, kit, world::GatewayWorld};

#[given("the OpenAPI document:")]
async fn the_document(world: &mut GatewayWorld, step: &Step) -> StepResult {
    world.set_document(doc_string(step)?).await?;
    Ok(())
}

#[given(expr = "the OpenAPI document is the kit's fixture {string}")]
async fn fixture_document(world: &mut GatewayWorld, name: String) -> StepResult {
    let Some(bytes) = kit::fixture(&name) else {
        fail!("the kit carries no fixture {name:?} (see fixtures/)");
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("the fixture {name:?} is not UTF-8"))?;
    world.set_document(text).await?;
    Ok(())
}

/// A document too big to write out: `count` operations `op1`, `op2`, ...,
/// each with a description of `length` characters, as big real APIs
/// (Stripe's 464 tools) have.
#[given(expr = "an OpenAPI document of {int} operations, each described in {int} characters")]
async fn generated_document(world: &mut GatewayWorld, count: usize, length: usize) -> StepResult {
    let description = "d".repeat(length);
    let mut text = String::from("openapi: 3.0.3\ninfo: {title: Big, version: \"1\"}\npaths:\n");
    for n in 1..=count {
        text.push_str(&format!(
            "  /things{n}:\n    get:\n      operationId: op{n}\n      \
             description: {description}\n      responses: {{\"200\": {{description: ok}}}}\n"
        ));
    }
    world.set_document(&text).await?;
    Ok(())
}

#[when("the client lists the tools")]
async fn the_client_lists(world: &mut GatewayWorld) -> StepResult {
    world.list_tools().await?;
    Ok(())
}

#[when("the gateway starts")]
async fn the_gateway_starts(world: &mut GatewayWorld) -> StepResult {
    world.put_start_under_test();
    world.start().await?;
    Ok(())
}

#[then("the tools are, in order:")]
async fn the_tools_are(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let mut expected = Vec::new();
    for name in first_column(step)? {
        expected.push(world.tool_name(&name).await?);
    }
    let listed = tool_names(&world.list_tools().await?);
    if listed != expected {
        fail!("expected the tools {expected:?}, the gateway lists {listed:?}");
    }
    Ok(())
}

/// The tools, in whatever order: their order is TC-PROTO-006's matter.
#[then("the gateway lists the tools:")]
async fn the_tools_in_any_order(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let mut expected = Vec::new();
    for name in first_column(step)? {
        expected.push(world.tool_name(&name).await?);
    }
    let mut listed = tool_names(&world.list_tools().await?);
    if !holds_the_tools(world, &mut expected, &mut listed) {
        fail!("expected the tools {expected:?} (in any order), the gateway lists {listed:?}");
    }
    Ok(())
}

#[then(regex = r#"^the tool "([^"]*)" has "([^"]*)" equal to (.+)$"#)]
async fn tool_member_equals(
    world: &mut GatewayWorld,
    name: String,
    pointer: String,
    json: String,
) -> StepResult {
    let expected = parse_json(&json)?;
    let tool = tool(world, &name).await?;
    match follow(&tool, &pointer)? {
        Some(actual) if same_json(actual, &expected) => Ok(()),
        Some(actual) => fail!(
            "tool {name:?} has {pointer} = {}, expected {}",
            show(actual),
            show(&expected)
        ),
        None => fail!(
            "tool {name:?} has nothing at {pointer}, expected {}:\n{}",
            show(&expected),
            show(&tool)
        ),
    }
}

#[then(regex = r#"^the tool "([^"]*)" has no "([^"]*)"$"#)]
async fn tool_member_absent(world: &mut GatewayWorld, name: String, pointer: String) -> StepResult {
    let tool = tool(world, &name).await?;
    match follow(&tool, &pointer)? {
        None | Some(serde_json::Value::Null) => Ok(()),
        Some(actual) => fail!(
            "tool {name:?} should have no {pointer}, it has {}",
            show(actual)
        ),
    }
}

#[when(regex = r#"^the client calls "([^"]*)" with (\{.*\})$"#)]
async fn call_inline(world: &mut GatewayWorld, name: String, arguments: String) -> StepResult {
    call_listed(world, &name, parse_json(&arguments)?).await?;
    Ok(())
}

#[when(regex = r#"^the client calls "([^"]*)" with:$"#)]
async fn call_doc(world: &mut GatewayWorld, name: String, step: &Step) -> StepResult {
    call_listed(world, &name, parse_json(doc_string(step)?)?).await?;
    Ok(())
}

/// Arguments an agent can send that are not an object: a string, an array,
/// a number (TC-PROTO-005).
#[when(regex = r#"^the client calls "([^"]*)" with arguments that are not an object: (.+)$"#)]
async fn call_not_object(world: &mut GatewayWorld, name: String, arguments: String) -> StepResult {
    call_listed(world, &name, parse_json(&arguments)?).await?;
    Ok(())
}

/// A call of a tool the document does not have (TC-PROTO-004).
#[when(regex = r#"^the client calls "([^"]*)", a tool the gateway does not list, with (\{.*\})$"#)]
async fn call_unknown(world: &mut GatewayWorld, name: String, arguments: String) -> StepResult {
    world.call_tool(&name, parse_json(&arguments)?).await?;
    Ok(())
}

#[then(expr = "the call fails with JSON-RPC error {int}")]
async fn call_rpc_error(world: &mut GatewayWorld, code: i32) -> StepResult {
    match world.last_call()? {
        CallOutcome::RpcError { code: actual, .. } if *actual == code => Ok(()),
        other => fail!("expected JSON-RPC error {code}, got {other}"),
    }
}

/// TC-PROTO-005 judged alone: a call the gateway refuses comes back as a
/// tool error, never as a JSON-RPC error. A gateway that does not refuse it
/// at all (it sends the request and answers with the API's result) breaks a
/// checking or request rule, which their own scenarios judge, not this one.
/// The form of a refusal. A call that reached the upstream was not refused
/// (the matter of the rule named), so there is no refusal to see.
#[then(
    regex = r#"^a refusal of the call, which (TC-[A-Z]+-\d+) asks for, is a tool error with a text$"#
)]
async fn refusal_is_tool_error(world: &mut GatewayWorld, rule: String) -> StepResult {
    let sent = world.upstream().requests().len();
    if sent > 0 {
        let answer = world.last_call()?.to_string();
        return Err(world
            .not_judged(
                &rule,
                format!(
                    "the call was not refused: it reached the upstream ({sent} request(s)) and \
                     answered {answer}"
                ),
            )
            .into());
    }
    match world.last_call()? {
        CallOutcome::Result {
            is_error: true,
            text,
        } if !text.trim().is_empty() => Ok(()),
        CallOutcome::Result {
            is_error: false,
            text,
        } => fail!(
            "the gateway sent nothing, so it refused the call, yet answered with a result that is \
             not an error (isError: false): {text:?}"
        ),
        other => fail!(
            "a refused call must come back as a tool result with isError: true and a text block, \
             got {other}"
        ),
    }
}

#[then("the call returns a tool error with a text")]
async fn call_tool_error(world: &mut GatewayWorld) -> StepResult {
    match world.last_call()? {
        CallOutcome::Result {
            is_error: true,
            text,
        } if !text.trim().is_empty() => Ok(()),
        other => fail!("expected a tool result with isError: true and a text block, got {other}"),
    }
}
