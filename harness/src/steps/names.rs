//! Steps for TC-NAME-*: what the precise-name checks in `document` cannot say.

use std::collections::HashSet;

use cucumber::{gherkin::Step, then};

use super::failure::{fail, StepResult};
use super::support::table;
use crate::json::tool_names;
use crate::naming::holds_name;
use crate::world::GatewayWorld;

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

/// TC-NAME-004, precedence, judged apart from the sources themselves: a
/// source that names a tool on its own (the `alone` column; whether it does is
/// the rule of the last column) must also win when later sources are there
/// too. A source the gateway ignores even alone shows no precedence: with no
/// row wrong, the scenario is then not judged, naming the rule that judges it.
#[then("each name source that names a tool on its own also wins over the later ones:")]
async fn sources_win(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let names = tool_names(&world.list_tools().await?);
    let mut wrong = Vec::new();
    // Sources that name nothing alone, by the rule that says they should.
    let mut unseen: Vec<(String, String)> = Vec::new();
    // The first row is the header: | alone | with later sources | alone, by |
    for row in table(step)?.iter().skip(1) {
        let [alone, combined, rule] = row.as_slice() else {
            fail!(
                "each row needs the name alone, the name with later sources and the rule \
                 of the source alone: {row:?}"
            );
        };
        if !names.contains(alone) {
            let entry = (rule.clone(), alone.clone());
            if !unseen.contains(&entry) {
                unseen.push(entry);
            }
        } else if !names.contains(combined) {
            wrong.push(format!(
                "{alone:?} names its tool alone, but where later sources are there too, \
                 the tool is not named {combined:?}"
            ));
        }
    }
    if !wrong.is_empty() {
        fail!("{}\nthe gateway lists {names:?}", wrong.join("\n"));
    }
    if !unseen.is_empty() {
        let mut rules: Vec<&str> = unseen.iter().map(|(rule, _)| rule.as_str()).collect();
        rules.dedup();
        let alone: Vec<&str> = unseen.iter().map(|(_, name)| name.as_str()).collect();
        return Err(world
            .not_judged(
                &rules.join(" and "),
                format!(
                    "no precedence can be seen for a source that names no tool on its own \
                 (no tool {alone:?}; the gateway lists {names:?})"
                ),
            )
            .into());
    }
    Ok(())
}

/// TC-NAME-007 on extension names: each row's tool, unless the gateway
/// named it by its operationId (in any case and separators: passing over
/// the extension is the extension's own rule's matter), has the name the
/// character rule makes of the extension's. Where every tool is named by
/// its operationId, nothing of the rule can be seen.
#[then("each tool named by its extension is named, after the character rule:")]
async fn extension_names_cleaned(world: &mut GatewayWorld, step: &Step) -> StepResult {
    let names = tool_names(&world.list_tools().await?);
    let mut wrong = Vec::new();
    let mut by_operation_id = Vec::new();
    // The first row is the header: | operationId | name |
    let rows = table(step)?;
    for row in rows.iter().skip(1) {
        let [operation_id, expected] = row.as_slice() else {
            fail!("each row needs an operationId and the expected name: {row:?}");
        };
        if names.contains(expected) {
            continue;
        }
        // Named by its operationId, maybe with the gateway's own prefix or
        // suffix (`api_fallbackA`): the extension was passed over.
        match names.iter().find(|name| holds_name(name, operation_id)) {
            Some(name) => by_operation_id.push(name.clone()),
            None => wrong.push(format!(
                "no tool is named {expected:?} (nor by its operationId {operation_id:?})"
            )),
        }
    }
    if !wrong.is_empty() {
        fail!("{}\nthe gateway lists {names:?}", wrong.join("\n"));
    }
    if by_operation_id.len() == rows.len().saturating_sub(1) {
        return Err(world
            .not_judged(
                "TC-NAME-001 and TC-NAME-003",
                format!(
                    "every tool is named by its operationId ({by_operation_id:?}), none by its \
                     extension, so no extension's name can be seen"
                ),
            )
            .into());
    }
    Ok(())
}
