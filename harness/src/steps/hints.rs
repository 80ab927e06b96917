//! Steps for TC-HINT-*: the three annotations every tool carries.

use cucumber::then;

use super::support::{show, tool, yes};
use crate::{
    fail,
    world::{GatewayWorld, StepResult},
};

const HINTS: [&str; 3] = ["readOnlyHint", "destructiveHint", "idempotentHint"];

#[then("every tool has readOnlyHint, destructiveHint and idempotentHint as booleans")]
async fn hints_present(world: &mut GatewayWorld) -> StepResult {
    let tools = world.list_tools().await?;
    if tools.is_empty() {
        fail!("the gateway lists no tools");
    }
    for tool in &tools {
        for hint in HINTS {
            if !tool["annotations"][hint].is_boolean() {
                fail!(
                    "tool {} lacks a boolean annotations.{hint}:\n{}",
                    tool["name"],
                    show(tool)
                );
            }
        }
    }
    Ok(())
}

#[then(
    expr = "the tool {string} has readOnlyHint {word}, destructiveHint {word} and idempotentHint {word}"
)]
async fn hints_are(
    world: &mut GatewayWorld,
    name: String,
    read_only: String,
    destructive: String,
    idempotent: String,
) -> StepResult {
    let tool = tool(world, &name).await?;
    let expected = [yes(&read_only)?, yes(&destructive)?, yes(&idempotent)?];
    let actual = HINTS.map(|hint| tool["annotations"][hint].as_bool());
    if actual != expected.map(Some) {
        fail!(
            "tool {name:?}: expected {:?} = {expected:?}, got annotations {}",
            HINTS,
            show(&tool["annotations"])
        );
    }
    Ok(())
}
