//! TC-LOAD-007: a Swagger 2.0 document brought into OpenAPI 3.0 shape, so the rest
//! of the loader reads one kind of document.
//!
//! What changes: `body` and `formData` parameters become a `requestBody` typed by
//! `consumes`; other parameters get a `schema` built from their inline type;
//! `definitions` become `components.schemas` (and their `$ref`s follow);
//! `securityDefinitions` become `components.securitySchemes`. `host`, `basePath`
//! and `schemes` are left alone: the base URL comes from the configuration.

use serde_json::{json, Map, Value};

use super::error::LoadError;
use super::fields::string_list;
use super::files::Holes;
use super::model::Method;
use super::place::DocPath;
use super::resolver::Resolver;

/// Swagger 2.0 keywords that describe a non-body parameter's value, and mean the
/// same in a 3.0 schema.
const VALUE_KEYWORDS: [&str; 15] = [
    "type",
    "format",
    "enum",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
];

const FORM_URLENCODED: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data";

/// The upgraded document. Top-level members the 3.0 reader does not use (the 2.0
/// `parameters` and `responses`, say) stay, so pointers into them still resolve.
pub fn upgrade(mut root: Value, holes: &Holes, origin: &str) -> Result<Value, LoadError> {
    let Some(top) = root.as_object() else {
        return Ok(root);
    };
    let global_consumes = string_list(top.get("consumes"));
    let paths = match top.get("paths") {
        Some(paths) => Some(upgrade_paths(
            Resolver::new(&root, holes, origin),
            paths,
            &global_consumes,
        )?),
        None => None,
    };

    let Some(top) = root.as_object_mut() else {
        return Ok(root);
    };
    let mut components = Map::new();
    if let Some(definitions) = top.remove("definitions") {
        components.insert("schemas".into(), definitions);
    }
    if let Some(Value::Object(definitions)) = top.remove("securityDefinitions") {
        let schemes = definitions
            .into_iter()
            .map(|(name, scheme)| (name, security_scheme(scheme)))
            .collect();
        components.insert("securitySchemes".into(), Value::Object(schemes));
    }
    top.insert("components".into(), Value::Object(components));
    if let Some(paths) = paths {
        top.insert("paths".into(), paths);
    }
    retarget_definition_refs(&mut root);
    Ok(root)
}

fn upgrade_paths(
    resolver: Resolver,
    paths: &Value,
    global_consumes: &[String],
) -> Result<Value, LoadError> {
    let origin = resolver.origin();
    let at = DocPath::root().key("paths");
    let Some(paths) = paths.as_object() else {
        return Err(invalid(origin, &at, "expected an object"));
    };
    let mut upgraded = Map::new();
    for (path, item) in paths {
        let item_at = at.key(path);
        // Anything odd (an extension, a non-object) is left for the 3.0
        // reader to skip or report. A path item behind a `$ref` (in another
        // file, say) is upgraded here, where it is used.
        if path.starts_with("x-") {
            upgraded.insert(path.clone(), item.clone());
            continue;
        }
        let (item, _) = resolver.follow(item, &item_at)?;
        let Some(item) = item.as_object() else {
            upgraded.insert(path.clone(), item.clone());
            continue;
        };
        let shared = resolved_parameters(resolver, item.get("parameters"), &item_at)?;
        let mut new_item = item.clone();
        new_item.remove("parameters");
        for method in Method::ALL {
            let Some(operation) = item.get(method.as_str()) else {
                continue;
            };
            // An operation given by reference is upgraded as the one it names.
            let (operation, op_at) = resolver.follow(operation, &item_at.key(method.as_str()))?;
            let Value::Object(operation) = operation else {
                continue;
            };
            let own = resolved_parameters(resolver, operation.get("parameters"), &op_at)?;
            let consumes = match operation.get("consumes") {
                Some(list) => string_list(Some(list)),
                None => global_consumes.to_vec(),
            };
            let upgraded_op = upgrade_operation(operation, merge(shared.clone(), own), &consumes);
            new_item.insert(method.as_str().into(), Value::Object(upgraded_op));
        }
        upgraded.insert(path.clone(), Value::Object(new_item));
    }
    Ok(Value::Object(upgraded))
}

/// A parameter list with `$ref`s replaced by their targets (in this document
/// or, once bundled, in another file of it).
fn resolved_parameters(
    resolver: Resolver,
    list: Option<&Value>,
    owner_at: &DocPath,
) -> Result<Vec<Value>, LoadError> {
    let origin = resolver.origin();
    let at = owner_at.key("parameters");
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    let Some(items) = list.as_array() else {
        return Err(invalid(origin, &at, "expected a list of parameters"));
    };
    let mut resolved = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        resolved.push(resolver.follow(item, &at.index(index))?.0.clone());
    }
    Ok(resolved)
}

/// Path-level parameters replaced in place by the operation's own of the same
/// `name` and `in` (TC-LOAD-005), done here because body and form parameters
/// leave the list.
fn merge(mut merged: Vec<Value>, own: Vec<Value>) -> Vec<Value> {
    let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
    for parameter in own {
        match merged.iter_mut().find(|p| key(p) == key(&parameter)) {
            Some(slot) => *slot = parameter,
            None => merged.push(parameter),
        }
    }
    merged
}

fn upgrade_operation(
    operation: &Map<String, Value>,
    parameters: Vec<Value>,
    consumes: &[String],
) -> Map<String, Value> {
    let mut body = None;
    let mut form_fields = Vec::new();
    let mut kept = Vec::new();
    for parameter in parameters {
        match parameter.get("in").and_then(Value::as_str) {
            Some("body") => body = body.or(Some(parameter)),
            Some("formData") => form_fields.push(parameter),
            _ => kept.push(upgrade_parameter(parameter)),
        }
    }

    let mut upgraded = operation.clone();
    for key in ["parameters", "consumes", "produces"] {
        upgraded.remove(key);
    }
    upgraded.insert("parameters".into(), Value::Array(kept));
    let request_body = match body {
        Some(body) => Some(body_request(&body, consumes)),
        None if !form_fields.is_empty() => Some(form_request(&form_fields, consumes)),
        None => None,
    };
    if let Some(request_body) = request_body {
        upgraded.insert("requestBody".into(), request_body);
    }
    upgraded
}

/// A `body` parameter: its schema under every media type the operation consumes
/// (JSON when it names none).
fn body_request(body: &Value, consumes: &[String]) -> Value {
    let schema = body.get("schema").cloned().unwrap_or_else(|| json!({}));
    let media_types: Vec<String> = if consumes.is_empty() {
        vec!["application/json".into()]
    } else {
        consumes.to_vec()
    };
    let content: Map<String, Value> = media_types
        .into_iter()
        .map(|media| (media, json!({ "schema": schema.clone() })))
        .collect();
    let mut request = Map::new();
    if let Some(description) = body.get("description") {
        request.insert("description".into(), description.clone());
    }
    request.insert("required".into(), Value::Bool(is_required(body)));
    request.insert("content".into(), Value::Object(content));
    Value::Object(request)
}

/// `formData` parameters: one object schema whose properties are the fields, sent
/// as the form types the operation consumes (multipart when a file is among them
/// and it names none).
fn form_request(fields: &[Value], consumes: &[String]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut has_file = false;
    for field in fields {
        let Some(name) = field.get("name").and_then(Value::as_str) else {
            continue;
        };
        has_file |= field.get("type").and_then(Value::as_str) == Some("file");
        let mut schema = value_schema(field);
        if let (Some(description), Value::Object(schema)) = (field.get("description"), &mut schema)
        {
            schema.insert("description".into(), description.clone());
        }
        properties.insert(name.to_string(), schema);
        if is_required(field) {
            required.push(Value::String(name.to_string()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required.clone()));
    }
    let schema = Value::Object(schema);

    let mut media_types: Vec<&str> = consumes
        .iter()
        .map(String::as_str)
        .filter(|media| {
            let essence = media.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case(FORM_URLENCODED) || essence.eq_ignore_ascii_case(MULTIPART)
        })
        .collect();
    if media_types.is_empty() {
        media_types.push(if has_file { MULTIPART } else { FORM_URLENCODED });
    }
    let content: Map<String, Value> = media_types
        .into_iter()
        .map(|media| (media.to_string(), json!({ "schema": schema.clone() })))
        .collect();
    json!({ "required": !required.is_empty(), "content": content })
}

/// A path, query or header parameter: its inline type becomes a `schema`, and an
/// array's `collectionFormat` the matching `style` and `explode`.
fn upgrade_parameter(parameter: Value) -> Value {
    let Value::Object(fields) = &parameter else {
        return parameter;
    };
    let mut upgraded = Map::new();
    for key in ["name", "in", "description", "required"] {
        if let Some(value) = fields.get(key) {
            upgraded.insert(key.into(), value.clone());
        }
    }
    upgraded.insert("schema".into(), value_schema(&parameter));
    if fields.get("type").and_then(Value::as_str) == Some("array") {
        let location = fields.get("in").and_then(Value::as_str).unwrap_or_default();
        let format = fields.get("collectionFormat").and_then(Value::as_str);
        let (style, explode) = match format {
            Some("multi") => ("form", true),
            Some("ssv") => ("spaceDelimited", false),
            Some("pipes") => ("pipeDelimited", false),
            // csv, the 2.0 default, is comma-separated values in one item.
            _ if location == "query" => ("form", false),
            _ => ("simple", false),
        };
        upgraded.insert("style".into(), json!(style));
        upgraded.insert("explode".into(), json!(explode));
    }
    Value::Object(upgraded)
}

/// A schema from a 2.0 parameter's or items object's inline description of its
/// value. `file` is sent as binary. Nesting is bounded by the parser's depth limit.
fn value_schema(described: &Value) -> Value {
    let Some(fields) = described.as_object() else {
        return json!({});
    };
    if !fields.contains_key("type") {
        // Not valid 2.0, but seen in the wild: a non-body parameter with a schema.
        if let Some(schema) = fields.get("schema") {
            return schema.clone();
        }
    }
    let mut schema = Map::new();
    for key in VALUE_KEYWORDS {
        if let Some(value) = fields.get(key) {
            schema.insert(key.into(), value.clone());
        }
    }
    if schema.get("type").and_then(Value::as_str) == Some("file") {
        schema.insert("type".into(), json!("string"));
        schema.insert("format".into(), json!("binary"));
    }
    if let Some(items) = fields.get("items") {
        schema.insert("items".into(), value_schema(items));
    }
    Value::Object(schema)
}

fn security_scheme(scheme: Value) -> Value {
    match scheme.get("type").and_then(Value::as_str) {
        Some("basic") => json!({"type": "http", "scheme": "basic"}),
        // Swagger's `application` flow is OpenAPI 3's client credentials.
        Some("oauth2") => match (
            scheme.get("flow").and_then(Value::as_str),
            scheme.get("tokenUrl"),
        ) {
            (Some("application"), Some(token_url)) => json!({"type": "oauth2", "flows": {
                "clientCredentials": {"tokenUrl": token_url, "scopes": scheme.get("scopes").cloned().unwrap_or(json!({}))}
            }}),
            _ => json!({"type": "oauth2"}),
        },
        _ => scheme,
    }
}

/// `#/definitions/X` is `#/components/schemas/X` after the upgrade. Every string
/// `$ref` is retargeted, wherever it is: one that sits in example data is harmless.
fn retarget_definition_refs(value: &mut Value) {
    match value {
        Value::Object(members) => {
            for (key, member) in members.iter_mut() {
                match member {
                    Value::String(reference) if key == "$ref" => {
                        if let Some(rest) = reference.strip_prefix("#/definitions/") {
                            *reference = format!("#/components/schemas/{rest}");
                        }
                    }
                    other => retarget_definition_refs(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(retarget_definition_refs),
        _ => {}
    }
}

fn is_required(parameter: &Value) -> bool {
    parameter.get("required") == Some(&Value::Bool(true))
}

fn invalid(origin: &str, at: &DocPath, problem: &str) -> LoadError {
    LoadError::Invalid {
        origin: origin.to_string(),
        at: at.clone(),
        problem: problem.to_string(),
    }
}
