//! Small helpers for step definitions: reading doc strings and tables, JSON
//! written in feature files, and finding tools.

use anyhow::{anyhow, bail, Context as _};
use cucumber::gherkin::Step;
use serde_json::Value;

use crate::{json::tool_names, world::GatewayWorld};

/// The step's doc string, exactly the lines between the delimiters.
pub fn doc_string(step: &Step) -> anyhow::Result<&str> {
    let raw = step
        .docstring
        .as_deref()
        .with_context(|| format!("the step `{}` needs a doc string", step.value))?;
    // The parser keeps the line breaks after the opening and before the
    // closing delimiter; line numbers in the document must match the lines.
    let text = raw.strip_prefix('\n').unwrap_or(raw);
    Ok(text.strip_suffix('\n').unwrap_or(text))
}

/// The first cell of every row of the step's table.
pub fn first_column(step: &Step) -> anyhow::Result<Vec<String>> {
    Ok(table(step)?
        .iter()
        .filter_map(|row| row.first().cloned())
        .collect())
}

/// The step's table rows.
pub fn table(step: &Step) -> anyhow::Result<&[Vec<String>]> {
    Ok(&step
        .table
        .as_ref()
        .with_context(|| format!("the step `{}` needs a table", step.value))?
        .rows)
}

/// JSON written in a feature file.
pub fn parse_json(text: &str) -> anyhow::Result<Value> {
    serde_json::from_str(text.trim())
        .with_context(|| format!("not JSON in the feature file: {text}"))
}

/// The listed tool `name`; failing with the names that were listed.
pub async fn tool(world: &mut GatewayWorld, name: &str) -> anyhow::Result<Value> {
    match world.tool(name).await? {
        Some(tool) => Ok(tool),
        None => {
            let names = tool_names(&world.list_tools().await?);
            Err(anyhow!(
                "no tool named {name:?}; the gateway lists {names:?}"
            ))
        }
    }
}

/// A "yes"/"no" (or "true"/"false") cell.
pub fn yes(cell: &str) -> anyhow::Result<bool> {
    match cell.trim() {
        "yes" | "true" => Ok(true),
        "no" | "false" => Ok(false),
        other => bail!("expected yes or no, got {other:?}"),
    }
}

/// Whether the tools `listed` hold those `expected`, in any order (both are
/// sorted for the message). Tools of the gateway's own beside the
/// document's (a server-info tool, say) break no rule and are let by, but
/// where the scenario judges which operations are tools (TC-NAME-010),
/// where an extra tool may be one left out.
pub fn holds_the_tools(
    world: &GatewayWorld,
    expected: &mut [String],
    listed: &mut [String],
) -> bool {
    expected.sort();
    listed.sort();
    let missing = expected.iter().any(|name| !listed.contains(name));
    let extra = listed.iter().any(|name| !expected.contains(name));
    !missing && (!extra || !world.judges(WHICH_OPERATIONS))
}

/// The rule on which operations are tools.
const WHICH_OPERATIONS: &str = "TC-NAME-010";
