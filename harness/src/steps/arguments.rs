//! Steps for TC-ARG-*: which arguments a tool takes, and which it must not.

use std::collections::BTreeSet;

use anyhow::Context as _;
use cucumber::{gherkin::Step, then};
use serde_json::Value;

use super::failure::{fail, StepResult};
use super::support::{table, tool, yes};
use crate::json::{follow, show};
use crate::naming::fold;
use crate::world::GatewayWorld;

/// The tool's argument names and the required ones.
async fn arguments(
    world: &mut GatewayWorld,
    name: &str,
) -> anyhow::Result<(BTreeSet<String>, BTreeSet<String>)> {
    let tool = tool(world, name).await?;
    let schema = &tool["inputSchema"];
    let names = world
        .unless_unusable(follow(schema, "/properties"))?
        .map(|p| {
            p.as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let required = match world.unless_unusable(follow(schema, "/required"))? {
        None => BTreeSet::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .context("a required entry is not a string")
            })
            .collect::<anyhow::Result<_>>()?,
        Some(other) => fail!("tool {name:?}: \"required\" is not a list: {}", show(other)),
    };
    Ok((names, required))
}

#[then(expr = "the tool {string} has the arguments:")]
async fn has_arguments(world: &mut GatewayWorld, name: String, step: &Step) -> StepResult {
    let mut expected_names = BTreeSet::new();
    let mut expected_required = BTreeSet::new();
    // The first row is the header: | argument | required |
    for row in table(step)?.iter().skip(1) {
        let [argument, required] = row.as_slice() else {
            fail!("each row needs an argument and yes/no: {row:?}");
        };
        expected_names.insert(argument.clone());
        if yes(required)? {
            expected_required.insert(argument.clone());
        }
    }
    let (names, required) = arguments(world, &name).await?;
    if names != expected_names || required != expected_required {
        fail!(
            "tool {name:?}: expected arguments {expected_names:?} (required {expected_required:?}), \
             got {names:?} (required {required:?})"
        );
    }
    Ok(())
}

/// The tool's argument names only: which of them are required is TC-ARG-001's
/// matter, not that of the rules that only need to see the arguments there.
/// So are the names themselves, and arguments of the gateway's own beside
/// the document's: each expected argument must be there under a name that
/// plainly stands for it (see [`crate::naming::as_the_gateway_names`]), and
/// others are let by.
#[then(expr = "the tool {string} takes the arguments:")]
async fn takes_arguments(world: &mut GatewayWorld, name: String, step: &Step) -> StepResult {
    let expected: BTreeSet<String> = super::support::first_column(step)?.into_iter().collect();
    let (names, _) = arguments(world, &name).await?;
    let offered = offered_names(world, &name).await?;
    let given: serde_json::Map<String, Value> = expected
        .iter()
        .map(|argument| (argument.clone(), Value::Null))
        .collect();
    let (placed, _) = crate::naming::as_the_gateway_names(&given, &offered);
    // Where the body went (spread, say) is TC-ARG-003's matter alone.
    let unplaced: Vec<&String> = placed
        .keys()
        .filter(|argument| !offered.contains_key(*argument) && *argument != "body")
        .collect();
    if !unplaced.is_empty() {
        fail!("tool {name:?}: expected the arguments {expected:?}, got {names:?}; none stands for {unplaced:?}");
    }
    Ok(())
}

/// The tool's argument names, and those of the arguments it takes inside
/// an object per place (`headers.X-Api-Key`; see
/// [`crate::naming::placed_members`]), so that an argument is seen wherever
/// the gateway put it.
async fn with_placed(world: &mut GatewayWorld, name: &str) -> anyhow::Result<BTreeSet<String>> {
    let (mut names, _) = arguments(world, name).await?;
    let offered = offered_names(world, name).await?;
    names.extend(
        crate::naming::placed_members(&offered)
            .into_iter()
            .map(|(_, member)| member.clone()),
    );
    Ok(names)
}

/// The tool's input schema's properties.
async fn offered_names(
    world: &mut GatewayWorld,
    name: &str,
) -> anyhow::Result<serde_json::Map<String, Value>> {
    let tool = tool(world, name).await?;
    Ok(tool["inputSchema"]["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default())
}

/// What a gateway that refused its document offers is nothing at all, so
/// only a gateway that started is asked.
#[then(
    expr = "unless the gateway refused the document, the tool {string} does not take the argument {string}"
)]
async fn lacks_argument_unless_refused(
    world: &mut GatewayWorld,
    name: String,
    argument: String,
) -> StepResult {
    if world.start_failure().is_some() {
        return Ok(());
    }
    let names = with_placed(world, &name).await?;
    if names.iter().any(|taken| fold(taken) == fold(&argument)) {
        fail!("tool {name:?} takes the argument {argument:?}, which only the file outside the document's folder defines");
    }
    Ok(())
}

/// A header or cookie parameter that must not be an argument, under its
/// own name or with its place before it, wherever the gateway puts its
/// arguments.
#[then(regex = r#"^the tool "([^"]*)" has no argument for the (header|cookie) "([^"]*)"$"#)]
async fn no_argument_for(
    world: &mut GatewayWorld,
    name: String,
    place: String,
    parameter: String,
) -> StepResult {
    let names = with_placed(world, &name).await?;
    let offending = standing_for(&names, &parameter);
    if !offending.is_empty() {
        fail!("tool {name:?} offers {offending:?}, an argument for the {place} {parameter:?}");
    }
    Ok(())
}

/// A parameter the gateway must offer, so that leaving out another one is
/// seen to be chosen: a gateway that offers no such arguments at all (the
/// rule named's matter) leaves the scenario not judged.
#[then(
    regex = r#"^the tool "([^"]*)" has an argument for the (header|query parameter) "([^"]*)", which (TC-[A-Z]+-\d+) requires$"#
)]
async fn argument_for(
    world: &mut GatewayWorld,
    name: String,
    place: String,
    parameter: String,
    rule: String,
) -> StepResult {
    let names = with_placed(world, &name).await?;
    if standing_for(&names, &parameter).is_empty() {
        return Err(world
            .not_judged(
                &rule,
                format!(
                    "tool {name:?} offers no argument for the {place} {parameter:?} (it offers {names:?})"
                ),
            )
            .into());
    }
    Ok(())
}

/// The argument names that stand for the parameter `parameter`: its name,
/// or its name with a location prefix, in any case, and with separators set
/// aside (`X_Client_Version` for `X-Client-Version`, as some gateways write
/// header arguments).
fn standing_for<'a>(names: &'a BTreeSet<String>, parameter: &str) -> Vec<&'a String> {
    let folded = fold(parameter);
    let parameter = parameter.to_ascii_lowercase();
    names
        .iter()
        .filter(|n| {
            let lower = n.to_ascii_lowercase();
            lower == parameter || lower.ends_with(&format!("_{parameter}")) || fold(n) == folded
        })
        .collect()
}
