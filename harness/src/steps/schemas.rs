//! Steps for TC-SCHEMA-*: the input schema as JSON Schema 2020-12.

use std::collections::BTreeSet;

use anyhow::Context as _;
use cucumber::then;
use serde_json::Value;

use super::failure::{fail, StepResult};
use super::support::{parse_json, tool};
use crate::json::{follow, refs, resolve, same_json, show, UnusableSchema};
use crate::world::GatewayWorld;

/// The one dialect a declared `$schema` may name.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

async fn input_schema(world: &mut GatewayWorld, name: &str) -> anyhow::Result<Value> {
    let tool = tool(world, name).await?;
    tool.get("inputSchema")
        .cloned()
        .with_context(|| format!("tool {name:?} has no inputSchema"))
}

/// The rule that judges where the request body goes among the arguments.
const BODY_ARGUMENT: &str = "TC-ARG-003";
/// The rules about the body's argument itself: its name and place.
const ARGUMENT_RULES: [&str; 2] = [BODY_ARGUMENT, "TC-ARG-004"];
/// The rules about every argument's name and place.
const NAME_AND_PLACE_RULES: [&str; 4] = ["TC-ARG-001", "TC-ARG-002", BODY_ARGUMENT, "TC-ARG-004"];

#[then(regex = r#"^in the input schema of "([^"]*)", "([^"]*)" is (.+)$"#)]
async fn schema_value(
    world: &mut GatewayWorld,
    name: String,
    pointer: String,
    json: String,
) -> StepResult {
    let schema = input_schema(world, &name).await?;
    // Where the body goes is the argument rules' own matter, never looked past there.
    let spread = spread_body(&schema, &pointer)
        .filter(|_| !ARGUMENT_RULES.iter().any(|rule| world.judges(rule)));
    let moved = spread
        .is_none()
        .then(|| moved_argument(world, &schema, &pointer))
        .flatten();
    let at = spread.as_deref().or(moved.as_deref()).unwrap_or(&pointer);
    if json == "absent" {
        // Absent only where its parent is there to hold it: a body put
        // elsewhere would make anything under it absent.
        let parent = at.rsplit_once('/').map_or("", |(parent, _)| parent);
        if world.unless_unusable(follow(&schema, parent))?.is_none() {
            return Err(world
                .not_judged(
                    BODY_ARGUMENT,
                    format!(
                        "{pointer} cannot be looked for: the input schema has no {parent}:\n{}",
                        show(&schema)
                    ),
                )
                .into());
        }
        return match world.unless_unusable(follow(&schema, at))? {
            None => Ok(()),
            Some(actual) => fail!(
                "{at} should be absent, it is {}:\n{}",
                show(actual),
                show(&schema)
            ),
        };
    }
    let expected = parse_json(&json)?;
    let actual = world.unless_unusable(follow(&schema, at))?;
    match actual {
        Some(actual) if same_json(actual, &expected) => Ok(()),
        // The body's members among other arguments: a required one more may
        // be a parameter's.
        Some(Value::Array(actual))
            if spread.as_deref() == Some("/required")
                && expected
                    .as_array()
                    .is_some_and(|names| names.iter().all(|name| actual.contains(name))) =>
        {
            Err(world
                .not_judged(
                    BODY_ARGUMENT,
                    format!(
                        "the body's members are arguments of their own beside the parameters, so \
                     which of the required {} are the body's cannot be told (expected the body's \
                     to be {}):\n{}",
                        show(&Value::Array(actual.clone())),
                        show(&expected),
                        show(&schema)
                    ),
                )
                .into())
        }
        _ => fail!(
            "expected {at} = {} in the input schema of {name:?}:\n{}",
            show(&expected),
            show(&schema)
        ),
    }
}

/// Where a pointer into an argument (`/properties/tag/type`) lands in the
/// input schema of a tool that takes that argument under another name or
/// inside an object of its place (`/properties/params/properties/tag/type`,
/// as Kubb and openmcp do). The rules of names and places judge those on
/// their own, so their scenarios follow the pointer as written.
pub(super) fn moved_argument(
    world: &GatewayWorld,
    schema: &Value,
    pointer: &str,
) -> Option<String> {
    if NAME_AND_PLACE_RULES.iter().any(|rule| world.judges(rule)) {
        return None;
    }
    let rest = pointer.strip_prefix("/properties/")?;
    let (first, tail) = rest
        .split_once('/')
        .map_or((rest, None), |(a, b)| (a, Some(b)));
    let given = crate::json::unescape_token(first);
    let properties = schema.get("properties")?.as_object()?;
    let moved = crate::naming::argument_pointer(&given, properties)?;
    Some(match tail {
        Some(tail) => format!("{moved}/{tail}"),
        None => moved,
    })
}

/// Where a pointer into the `body` argument (`/properties/body/…`) lands in
/// the input schema of a tool that names that argument otherwise
/// (`requestBody`), or that takes the body's members as arguments of their
/// own (no argument for the body): under that name, or from the schema's
/// root.
fn spread_body(schema: &Value, pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix("/properties/body")?;
    if !rest.starts_with('/') {
        return None;
    }
    let empty = serde_json::Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    match crate::naming::body_argument(properties) {
        Some(body) if body == "body" => None,
        Some(body) => Some(format!("/properties/{body}{rest}")),
        None => Some(rest.to_owned()),
    }
}

/// A property's schema, wherever the gateway put the property: under `body`,
/// or among the arguments when it takes the body's properties as arguments of
/// their own (TC-ARG-003's matter). Every `properties` map of the input schema
/// is searched, `$defs` included; `pointer` is then followed from each
/// property found, through any `$ref`.
#[then(
    regex = r#"^somewhere in the input schema of "([^"]*)", the property "([^"]*)" has "([^"]*)" equal to (.+)$"#
)]
async fn property_anywhere(
    world: &mut GatewayWorld,
    name: String,
    property: String,
    pointer: String,
    json: String,
) -> StepResult {
    let expected = parse_json(&json)?;
    let schema = input_schema(world, &name).await?;
    let mut places = Vec::new();
    properties_named(&schema, &property, String::new(), &mut places);
    if places.is_empty() {
        fail!(
            "the input schema of {name:?} has no property {property:?} anywhere:\n{}",
            show(&schema)
        );
    }
    for place in &places {
        let found = world.unless_unusable(follow(&schema, &format!("{place}{pointer}")))?;
        if found.is_some_and(|v| same_json(v, &expected)) {
            return Ok(());
        }
    }
    fail!(
        "no property {property:?} of the input schema of {name:?} has {pointer} = {} \
         (properties found at {places:?}):\n{}",
        show(&expected),
        show(&schema)
    )
}

/// The pointer of every member `property` of a `properties` map in `value`.
fn properties_named(value: &Value, property: &str, here: String, found: &mut Vec<String>) {
    let escape = |token: &str| token.replace('~', "~0").replace('/', "~1");
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(properties)) = map.get("properties") {
                if properties.contains_key(property) {
                    found.push(format!("{here}/properties/{}", escape(property)));
                }
            }
            for (key, child) in map {
                properties_named(child, property, format!("{here}/{}", escape(key)), found);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                properties_named(child, property, format!("{here}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// A boolean subschema (JSON Schema and OpenAPI 3.1): `true` or its
/// equivalent `{}` accepts anything; `false` or `{"not": {}}` nothing.
#[then(
    regex = r#"^in the input schema of "([^"]*)", the schema at "([^"]*)" accepts (anything|nothing)$"#
)]
async fn boolean_subschema(
    world: &mut GatewayWorld,
    name: String,
    pointer: String,
    what: String,
) -> StepResult {
    let schema = input_schema(world, &name).await?;
    let pointer = moved_argument(world, &schema, &pointer).unwrap_or(pointer);
    let mut node = world.unless_unusable(follow(&schema, &pointer))?;
    // A schema that is only a reference is the schema it references.
    while let Some(reference) = node
        .and_then(Value::as_object)
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("$ref"))
        .and_then(Value::as_str)
    {
        node = Some(world.unless_unusable(resolve(&schema, reference))?);
    }
    let empty = |v: &Value| v.as_object().is_some_and(serde_json::Map::is_empty);
    let holds = match (what.as_str(), node) {
        ("anything", Some(v)) => *v == Value::Bool(true) || empty(v),
        ("nothing", Some(v)) => {
            *v == Value::Bool(false)
                || v.as_object().is_some_and(|o| {
                    o.len() == 1
                        && o.get("not")
                            .is_some_and(|n| *n == Value::Bool(true) || empty(n))
                })
        }
        _ => false,
    };
    if !holds {
        fail!(
            "expected the schema at {pointer} to accept {what} (`{}`) in the input schema of {name:?}:\n{}",
            if what == "anything" { "true" } else { "false" },
            show(&schema)
        );
    }
    Ok(())
}

#[then(expr = "in the input schema of {string}, the type at {string} is {string} or null")]
async fn nullable_type(
    world: &mut GatewayWorld,
    name: String,
    pointer: String,
    ty: String,
) -> StepResult {
    let schema = input_schema(world, &name).await?;
    let moved = moved_argument(world, &schema, &pointer);
    let pointer = moved.unwrap_or(pointer);
    let types: BTreeSet<&str> = match world.unless_unusable(follow(&schema, &pointer))? {
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

/// What a client that checks arguments before calling would decide: the
/// published input schema, run by a JSON Schema 2020-12 validator, admits
/// the arguments or not. It judges the schema as published, whatever form
/// the gateway chose (a widened `type`, an `anyOf` with null, ...). A
/// gateway that takes the arguments otherwise (the body's properties as
/// arguments of their own, the body under another name, arguments grouped
/// by place: the argument rules' matter) is judged on those; an argument its schema does
/// not describe leaves the scenario not judged, since a schema without it
/// may admit anything there. With the prefix, a gateway that refused the
/// document passes: that outcome is the scenario's to allow.
#[then(
    regex = r#"^(unless the gateway refused the document, )?the input schema of "([^"]*)" (admits|does not admit) (\{.*\})$"#
)]
async fn schema_admits(
    world: &mut GatewayWorld,
    unless_refused: String,
    name: String,
    verdict: String,
    json: String,
) -> StepResult {
    if !unless_refused.is_empty() && world.start_failure().is_some() {
        return Ok(());
    }
    let schema = input_schema(world, &name).await?;
    let described = |argument: &str| {
        schema
            .get("properties")
            .and_then(|properties| properties.get(argument))
            .is_some()
    };
    // The arguments under the names the gateway gives them (the body spread,
    // or under its own name; see naming::as_the_gateway_names).
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let (arguments, judged_by) = match parse_json(&json)? {
        Value::Object(given) => {
            let judged_by = if given.contains_key("body") && !described("body") {
                "TC-ARG-003"
            } else {
                "TC-ARG-001"
            };
            let (placed, _) = crate::naming::as_the_gateway_names(&given, &properties);
            (Value::Object(placed), judged_by)
        }
        arguments => (arguments, "TC-ARG-001"),
    };
    if let Some(unknown) = arguments
        .as_object()
        .and_then(|arguments| arguments.keys().find(|argument| !described(argument)))
    {
        return Err(world
            .not_judged(
                judged_by,
                format!("the input schema of {name:?} has no argument {unknown:?}"),
            )
            .into());
    }
    // A validator follows such a loop for ever; the harness must not.
    let usable = match reference_loop(&schema) {
        Ok(None) => jsonschema::draft202012::new(&schema).map_err(|error| {
            format!("the input schema of {name:?} is not a JSON Schema 2020-12 a validator can use: {error}")
        }),
        Ok(Some(reference)) => Err(format!(
            "in the input schema of {name:?}, $ref {reference:?} leads only back to itself, \
             through references alone: no validator can apply it"
        )),
        Err(error) => Err(format!("in the input schema of {name:?}, {error:#}")),
    };
    let validator =
        world.unless_unusable(usable.map_err(|why| {
            anyhow::Error::new(UnusableSchema(format!("{why}:\n{}", show(&schema))))
        }))?;
    match (verdict.as_str(), validator.validate(&arguments)) {
        ("admits", Err(error)) => fail!(
            "the input schema of {name:?} does not admit {}: {error} at {:?}:\n{}",
            show(&arguments),
            error.instance_path().to_string(),
            show(&schema)
        ),
        ("does not admit", Ok(())) => fail!(
            "the input schema of {name:?} admits {}:\n{}",
            show(&arguments),
            show(&schema)
        ),
        _ => Ok(()),
    }
}

/// The first `$ref` in `schema` that, followed from schema to schema through
/// their own `$ref`s, comes back to a schema already passed.
fn reference_loop(schema: &Value) -> anyhow::Result<Option<&str>> {
    for start in refs(schema) {
        let mut passed = BTreeSet::from([start]);
        let mut next = start;
        while let Some(reference) = resolve(schema, next)?.get("$ref").and_then(Value::as_str) {
            if !passed.insert(reference) {
                return Ok(Some(start));
            }
            next = reference;
        }
    }
    Ok(None)
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
        let resolved = resolve(&schema, reference)
            .with_context(|| format!("in the input schema of {name:?}:\n{}", show(&schema)));
        world.unless_unusable(resolved)?;
        if let Some(keyword) = outside_schema_keywords(reference) {
            fail!(
                "$ref {reference:?} in the input schema of {name:?} points into {keyword:?}, \
                 which is not a JSON Schema 2020-12 keyword: referenced schemas travel in $defs:\n{}",
                show(&schema)
            );
        }
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

/// The first token on the way of `reference` (a `#` pointer) that is not a
/// place where JSON Schema 2020-12 keeps schemas (`$defs/X`, `properties/X`,
/// `items`, `anyOf/0`, ...): a schema kept under `definitions` or
/// `components` is not carried the 2020-12 way, though a pointer reaches it.
fn outside_schema_keywords(reference: &str) -> Option<String> {
    const SCHEMA_MAPS: [&str; 4] = [
        "$defs",
        "properties",
        "patternProperties",
        "dependentSchemas",
    ];
    const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
    const ONE_SCHEMA: [&str; 11] = [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    ];
    let pointer = crate::json::percent_decode(reference.strip_prefix('#')?).ok()?;
    let mut tokens = pointer.split('/').skip(1);
    while let Some(token) = tokens.next() {
        let token = crate::json::unescape_token(token);
        if SCHEMA_MAPS.contains(&token.as_str()) || SCHEMA_LISTS.contains(&token.as_str()) {
            tokens.next();
        } else if !ONE_SCHEMA.contains(&token.as_str()) {
            return Some(token);
        }
    }
    None
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::spread_body;

    #[test]
    fn a_pointer_into_the_body_lands_where_the_tool_put_the_body() {
        let spread = json!({"properties": {"name": {}, "like": {}}});
        let taken = json!({"properties": {"body": {"properties": {"name": {}}}}});
        let pointer = "/properties/body/properties/id";
        assert_eq!(
            spread_body(&spread, pointer).as_deref(),
            Some("/properties/id")
        );
        assert_eq!(
            spread_body(&spread, "/properties/body/required").as_deref(),
            Some("/required")
        );
        assert_eq!(spread_body(&taken, pointer), None);
        assert_eq!(spread_body(&spread, "/properties/body"), None);
        assert_eq!(spread_body(&spread, "/properties/bodyguard/type"), None);
        let renamed = json!({"properties": {"requestBody": {"properties": {"id": {}}}}});
        assert_eq!(
            spread_body(&renamed, pointer).as_deref(),
            Some("/properties/requestBody/properties/id")
        );
    }
}
