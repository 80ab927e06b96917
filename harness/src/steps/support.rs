//! Small helpers for step definitions: reading doc strings and tables,
//! finding tools, and looking into JSON with messages that show what was there.

use anyhow::{anyhow, bail, Context as _};
use cucumber::gherkin::Step;
use serde_json::Value;

use crate::world::GatewayWorld;

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

/// Pretty JSON for failure messages.
pub fn show(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
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

/// The names of listed tools, in order.
pub fn tool_names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or("<no name>").to_owned())
        .collect()
}

/// The value at a JSON Pointer. In a JSON Schema, a `$ref` met on the way is
/// followed (within `root`) when the next token is not beside it, so checks
/// hold whether a gateway inlines referenced schemas or keeps them in `$defs`.
pub fn follow<'a>(root: &'a Value, pointer: &str) -> anyhow::Result<Option<&'a Value>> {
    if pointer.is_empty() {
        return Ok(Some(root));
    }
    let Some(tokens) = pointer.strip_prefix('/') else {
        bail!("{pointer:?} is not a JSON Pointer");
    };
    let mut here = root;
    for token in tokens.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        let mut hops = 0;
        loop {
            if let Some(next) = child(here, &token) {
                here = next;
                break;
            }
            match here.get("$ref").and_then(Value::as_str) {
                Some(reference) if hops < 32 => {
                    here = resolve(root, reference)?;
                    hops += 1;
                }
                _ => return Ok(None),
            }
        }
    }
    Ok(Some(here))
}

fn child<'a>(value: &'a Value, token: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map.get(token),
        Value::Array(items) => items.get(token.parse::<usize>().ok()?),
        _ => None,
    }
}

/// Resolves a `$ref` inside `root`; only same-document references qualify.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> anyhow::Result<&'a Value> {
    let pointer = reference
        .strip_prefix('#')
        .with_context(|| format!("$ref {reference:?} points outside the schema"))?;
    root.pointer(pointer)
        .with_context(|| format!("$ref {reference:?} does not resolve inside the schema"))
}

/// Every `$ref` string anywhere in `value`.
pub fn refs(value: &Value) -> Vec<&str> {
    match value {
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, v)| match (key.as_str(), v) {
                ("$ref", Value::String(r)) => vec![r.as_str()],
                _ => refs(v),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(refs).collect(),
        _ => Vec::new(),
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn follows_refs_along_a_pointer() {
        let schema = json!({
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"properties": {"kids": {"items": {"$ref": "#/$defs/Node"}}, "a/b": {"type": "string"}}}}
        });
        assert_eq!(
            follow(
                &schema,
                "/properties/node/properties/kids/items/properties/a~1b/type"
            )
            .unwrap(),
            Some(&json!("string"))
        );
        assert_eq!(
            follow(&schema, "/properties/node/$ref").unwrap(),
            Some(&json!("#/$defs/Node"))
        );
        assert_eq!(follow(&schema, "/properties/missing").unwrap(), None);
        assert_eq!(refs(&schema), ["#/$defs/Node", "#/$defs/Node"]);
        assert!(resolve(&schema, "#/components/schemas/X").is_err());
        assert!(resolve(&schema, "other.json#/X").is_err());
    }
}
