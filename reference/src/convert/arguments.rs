//! An operation's parameters and request body as tool arguments: their names, the
//! input schema, and the plan that puts each argument back where it belongs.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::catalogue::{BodyPlan, Location, ParameterPlan};
use super::headers::is_denied_header;
use super::schema::SchemaTranslator;
use crate::load::{LoadError, MediaType, Operation, Parameter, ParameterLocation};

/// The argument that carries the request body.
const BODY_ARGUMENT: &str = "body";

/// A tool's input schema and the plan for its arguments.
pub struct Arguments {
    pub input_schema: Map<String, Value>,
    pub parameters: Vec<ParameterPlan>,
    pub body: Option<BodyPlan>,
}

/// The arguments of `operation`: which parameters become arguments (see
/// `argument_location`), their names (`argument_names`), the request body, and
/// the input schema that holds them all.
pub fn build(
    operation: &Operation,
    schemas: &mut SchemaTranslator,
) -> Result<Arguments, LoadError> {
    let sendable: Vec<(&Parameter, Location)> = operation
        .parameters
        .iter()
        .filter_map(|parameter| argument_location(parameter).map(|at| (parameter, at)))
        .collect();
    let body = operation.request_body.as_ref().and_then(|body| {
        let media = chosen_media_type(&body.content)?;
        Some((body, media))
    });
    let names = argument_names(&sendable, body.is_some());

    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut refs = Vec::new();
    let mut plans = Vec::with_capacity(sendable.len());
    for ((parameter, location), argument) in sendable.into_iter().zip(names) {
        let unconstrained = json!({});
        let schema = parameter.schema.as_ref().unwrap_or(&unconstrained);
        let translated = schemas.translate(schema, &parameter.at.key("schema"))?;
        refs.extend(translated.refs);
        let property = with_description(translated.schema, parameter.description.as_deref());
        properties.insert(argument.clone(), property);
        // TC-ARG-001: a required parameter is a required argument. Path
        // parameters are part of the URL: there is no call without them.
        let is_required = parameter.required || location == Location::Path;
        if is_required {
            required.push(Value::String(argument.clone()));
        }
        plans.push(plan(parameter, location, argument, is_required));
    }

    // TC-ARG-003: the request body is the argument `body`, required exactly
    // when the body is.
    let body_plan = match body {
        Some((body, media)) => {
            let unconstrained = json!({});
            let schema = media.schema.as_ref().unwrap_or(&unconstrained);
            let at = body.at.key("content").key(&media.name).key("schema");
            let translated = schemas.translate_request_body(schema, &at)?;
            refs.extend(translated.refs);
            let property = with_description(translated.schema, body.description.as_deref());
            properties.insert(BODY_ARGUMENT.into(), property);
            if body.required {
                required.push(Value::String(BODY_ARGUMENT.into()));
            }
            Some(BodyPlan {
                content_type: media.name.clone(),
                required: body.required,
            })
        }
        None => None,
    };

    // TC-SCHEMA-002: the schemas the arguments refer to travel with them.
    let defs = schemas.definitions_for(refs)?;
    // TC-SCHEMA-001: an object schema that takes no other member.
    let mut input_schema = Map::new();
    input_schema.insert("type".into(), json!("object"));
    input_schema.insert("properties".into(), Value::Object(properties));
    input_schema.insert("required".into(), Value::Array(required));
    input_schema.insert("additionalProperties".into(), Value::Bool(false));
    if !defs.is_empty() {
        input_schema.insert("$defs".into(), Value::Object(defs));
    }
    Ok(Arguments {
        input_schema,
        parameters: plans,
        body: body_plan,
    })
}

/// Where a parameter goes on the wire, or `None` when it is not an argument at all:
/// cookies (TC-ARG-005) and headers only the gateway sets (TC-ARG-006).
fn argument_location(parameter: &Parameter) -> Option<Location> {
    match parameter.location {
        ParameterLocation::Path => Some(Location::Path),
        ParameterLocation::Query => Some(Location::Query),
        ParameterLocation::Header if !is_denied_header(&parameter.name) => Some(Location::Header),
        ParameterLocation::Header | ParameterLocation::Cookie => None,
    }
}

/// TC-ARG-001, TC-ARG-002, TC-ARG-004: each parameter's own name, or `{in}_{name}`
/// for every one whose name is shared with another argument (the request body
/// included). Should a prefixed name still meet another argument's name, the later
/// one is numbered, as tool names are, so no argument is lost.
fn argument_names(parameters: &[(&Parameter, Location)], has_body: bool) -> Vec<String> {
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for (parameter, _) in parameters {
        *uses.entry(parameter.name.as_str()).or_default() += 1;
    }
    if has_body {
        *uses.entry(BODY_ARGUMENT).or_default() += 1;
    }
    let mut taken: HashSet<String> = HashSet::new();
    if has_body {
        taken.insert(BODY_ARGUMENT.into());
    }
    parameters
        .iter()
        .map(|(parameter, _)| {
            let shared = uses.get(parameter.name.as_str()).copied().unwrap_or(0) > 1;
            let wanted = if shared {
                format!("{}_{}", parameter.location.as_str(), parameter.name)
            } else {
                parameter.name.clone()
            };
            let mut name = wanted.clone();
            let mut counter = 2_u64;
            while !taken.insert(name.clone()) {
                name = format!("{wanted}_{counter}");
                counter += 1;
            }
            name
        })
        .collect()
}

/// TC-REQ-011: a JSON media type (`application/json`, or any `+json`) when the body
/// lists one, else the first listed. A body that lists none has nothing to send.
fn chosen_media_type(content: &[MediaType]) -> Option<&MediaType> {
    content
        .iter()
        .find(|media| is_json_media_type(&media.name))
        .or_else(|| content.first())
}

fn is_json_media_type(media_type: &str) -> bool {
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json")
}

/// TC-ARG-007: the argument's schema, with the parameter's or body's
/// description when the schema has none of its own.
fn with_description(schema: Value, description: Option<&str>) -> Value {
    let Some(description) = description.filter(|text| !text.trim().is_empty()) else {
        return schema;
    };
    match schema {
        Value::Object(mut members) => {
            if !members.contains_key("description") {
                members.insert("description".into(), json!(description));
            }
            Value::Object(members)
        }
        Value::Bool(true) => json!({ "description": description }),
        other => other,
    }
}

/// How a parameter's argument goes on the wire; `explode` defaults to true for the
/// `form` style (the query default, so arrays are exploded: TC-REQ-005) and false
/// for every other (`simple`, the path and header default: TC-REQ-006).
fn plan(
    parameter: &Parameter,
    location: Location,
    argument: String,
    required: bool,
) -> ParameterPlan {
    let default_style = match location {
        Location::Query => "form",
        Location::Path | Location::Header => "simple",
    };
    let style = parameter.style.as_deref().unwrap_or(default_style);
    ParameterPlan {
        argument,
        name: parameter.name.clone(),
        location,
        style: parameter.style.clone(),
        explode: parameter.explode.unwrap_or(style == "form"),
        required,
    }
}
