//! Steps for TC-DESC-*: a tool's description and title.

use cucumber::{gherkin::Step, then};
use serde_json::Value;

use super::failure::{fail, StepResult};
use super::support::{doc_string, tool};
use crate::world::GatewayWorld;

async fn text_member(
    world: &mut GatewayWorld,
    name: &str,
    member: &str,
) -> anyhow::Result<Option<String>> {
    let tool = tool(world, name).await?;
    match &tool[member] {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text.clone())),
        other => fail!("tool {name:?} has a {member} that is not a string: {other}"),
    }
}

async fn expect_member(
    world: &mut GatewayWorld,
    name: &str,
    member: &str,
    expected: Option<&str>,
) -> StepResult {
    let actual = text_member(world, name, member).await?;
    if actual.as_deref() != expected {
        fail!("tool {name:?}: expected {member} {expected:?}, got {actual:?}");
    }
    Ok(())
}

#[then(expr = "the tool {string} has the description {string}")]
async fn description(world: &mut GatewayWorld, name: String, text: String) -> StepResult {
    expect_member(world, &name, "description", Some(&text)).await
}

#[then(expr = "the tool {string} has the description:")]
async fn description_doc(world: &mut GatewayWorld, name: String, step: &Step) -> StepResult {
    expect_member(world, &name, "description", Some(doc_string(step)?)).await
}

#[then(expr = "the tool {string} has no description")]
async fn no_description(world: &mut GatewayWorld, name: String) -> StepResult {
    expect_member(world, &name, "description", None).await
}

#[then(expr = "the tool {string} has the title {string}")]
async fn title(world: &mut GatewayWorld, name: String, text: String) -> StepResult {
    expect_member(world, &name, "title", Some(&text)).await
}

#[then(expr = "the tool {string} has no title")]
async fn no_title(world: &mut GatewayWorld, name: String) -> StepResult {
    expect_member(world, &name, "title", None).await
}
