//! Steps for TC-HINT-*: the three annotations every tool carries.

use cucumber::{gherkin::Step, then};
use serde_json::Value;

use super::failure::{fail, StepResult};
use super::support::{table, yes};
use crate::json::show;
use crate::world::GatewayWorld;

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

/// One hint of several tools, one rule per scenario: a gateway that gets
/// one hint wrong fails that hint's rule only.
#[then(regex = r"^the tools have (readOnlyHint|destructiveHint|idempotentHint):$")]
async fn hint_of_tools(world: &mut GatewayWorld, hint: String, step: &Step) -> StepResult {
    let tools = world.list_tools().await?;
    let mut wrong = Vec::new();
    // Tools that could not be found leave the scenario not judged, unless a
    // tool that was found already breaks the rule.
    let mut unfound = None;
    for row in table(step)? {
        let [name, value] = row.as_slice() else {
            fail!("each row needs a tool name and true/false: {row:?}");
        };
        let expected = yes(value)?;
        let name = match world.tool_name(name).await {
            Ok(name) => name,
            Err(error) => {
                unfound.get_or_insert(error);
                continue;
            }
        };
        let actual = tools
            .iter()
            .find(|tool| tool["name"] == name.as_str())
            .map(|tool| &tool["annotations"][&hint]);
        match actual {
            Some(Value::Bool(actual)) if *actual == expected => {}
            Some(actual) => wrong.push(format!("{name}: {hint} is {actual}, expected {expected}")),
            None => wrong.push(format!("{name}: no such tool")),
        }
    }
    if !wrong.is_empty() {
        world.judged_after_all();
        fail!("{}", wrong.join("\n"));
    }
    unfound.map_or(Ok(()), |error| Err(error.into()))
}
