//! Steps for TC-NAME-*: what the precise-name checks in `document` cannot say.

use std::collections::HashSet;

use cucumber::then;

use super::support::tool_names;
use crate::{
    fail,
    world::{GatewayWorld, StepResult},
};

#[then(expr = "every tool name is at most {int} characters long")]
async fn names_bounded(world: &mut GatewayWorld, limit: usize) -> StepResult {
    let names = tool_names(&world.list_tools().await?);
    let long: Vec<_> = names.iter().filter(|n| n.chars().count() > limit).collect();
    if !long.is_empty() {
        fail!("tool names longer than {limit} characters: {long:?}");
    }
    Ok(())
}

#[then(expr = "{int} tool names start with {string} repeated {int} times")]
async fn names_keep_start(
    world: &mut GatewayWorld,
    count: usize,
    piece: String,
    times: usize,
) -> StepResult {
    let start = piece.repeat(times);
    let names = tool_names(&world.list_tools().await?);
    let kept = names.iter().filter(|n| n.starts_with(&start)).count();
    if kept != count {
        fail!("expected {count} tool names to keep the first {times} characters, got {names:?}");
    }
    Ok(())
}

#[then(expr = "no tool name ends in {string}")]
async fn names_not_suffixed(world: &mut GatewayWorld, suffix: String) -> StepResult {
    let names = tool_names(&world.list_tools().await?);
    let suffixed: Vec<_> = names.iter().filter(|n| n.ends_with(&suffix)).collect();
    if !suffixed.is_empty() {
        fail!("tool names ending in {suffix:?}: {suffixed:?}");
    }
    Ok(())
}

#[then(expr = "the {int} tool names are all different")]
async fn names_unique(world: &mut GatewayWorld, count: usize) -> StepResult {
    let names = tool_names(&world.list_tools().await?);
    let distinct: HashSet<_> = names.iter().collect();
    if names.len() != count || distinct.len() != count {
        fail!("expected {count} different tool names, got {names:?}");
    }
    Ok(())
}

#[then("the tool names are the same after a restart")]
async fn names_deterministic(world: &mut GatewayWorld) -> StepResult {
    let before = tool_names(&world.list_tools().await?);
    world.restart().await?;
    let after = tool_names(&world.list_tools().await?);
    if before != after {
        fail!("the names changed across a restart: {before:?} then {after:?}");
    }
    Ok(())
}
