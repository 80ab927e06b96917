//! Steps for TC-SCHEMA-*: the input schema as JSON Schema 2020-12.

use std::collections::BTreeSet;

use anyhow::Context as _;
use cucumber::then;
use serde_json::Value;

use super::support::{follow, parse_json, refs, resolve, same_json, show, tool};
use crate::{
    fail,
    world::{GatewayWorld, StepResult},
};

/// The one dialect a declared `$schema` may name.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

async fn input_schema(world: &mut GatewayWorld, name: &str) -> anyhow::Result<Value> {
    let tool = tool(world, name).await?;
    tool.get("inputSchema")
        .cloned()
        .with_context(|| format!("tool {name:?} has no inputSchema"))
}

#[then(regex = r#"^in the input schema of "([^"]*)", "([^"]*)" is (.+)$"#)]
async fn schema_value(
    world: &mut GatewayWorld,
    name: String,
    pointer: String,
    json: String,
) -> StepResult {
    let schema = input_schema(world, &name).await?;
    if json == "absent" {
        return match follow(&schema, &pointer)? {
            None => Ok(()),
            Some(actual) => fail!(
                "{pointer} should be absent, it is {}:\n{}",
                show(actual),
                show(&schema)
            ),
        };
    }
    let expected = parse_json(&json)?;
    match follow(&schema, &pointer)? {
        Some(actual) if same_json(actual, &expected) => Ok(()),
        _ => fail!(
            "expected {pointer} = {} in the input schema of {name:?}:\n{}",
            show(&expected),
            show(&schema)
        ),
    }
}

#[then(expr = "in the input schema of {string}, the type at {string} is {string} or null")]
async fn nullable_type(
    world: &mut GatewayWorld,
    name: String,
    pointer: String,
    ty: String,
) -> StepResult {
    let schema = input_schema(world, &name).await?;
    let types: BTreeSet<&str> = match follow(&schema, &pointer)? {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(single)) => BTreeSet::from([single.as_str()]),
        _ => BTreeSet::new(),
    };
    if types != BTreeSet::from([ty.as_str(), "null"]) {
        fail!(
            "expected {pointer} to be [{ty:?}, \"null\"] in the input schema of {name:?}:\n{}",
            show(&schema)
        );
    }
    Ok(())
}

#[then(expr = "the input schema of {string} is self-contained")]
async fn self_contained(world: &mut GatewayWorld, name: String) -> StepResult {
    let schema = input_schema(world, &name).await?;
    if let Some(dialect) = schema.get("$schema") {
        if dialect != DIALECT {
            fail!("the input schema of {name:?} declares {dialect}, not {DIALECT}");
        }
    }
    for reference in refs(&schema) {
        resolve(&schema, reference)
            .with_context(|| format!("in the input schema of {name:?}:\n{}", show(&schema)))?;
    }
    // The official meta-schema catches what the walk above does not look at,
    // such as a `type` list naming a type twice.
    if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
        fail!(
            "the input schema of {name:?} is not valid JSON Schema 2020-12: {error} at {}:\n{}",
            error.instance_path(),
            show(&schema)
        );
    }
    Ok(())
}

#[then("no tool has an output schema")]
async fn no_output_schema(world: &mut GatewayWorld) -> StepResult {
    let tools = world.list_tools().await?;
    if tools.is_empty() {
        fail!("the gateway lists no tools");
    }
    if let Some(tool) = tools.iter().find(|t| t.get("outputSchema").is_some()) {
        fail!(
            "tool {} declares an outputSchema:\n{}",
            tool["name"],
            show(&tool["outputSchema"])
        );
    }
    Ok(())
}
