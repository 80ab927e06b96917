//! Paths, operations, parameters and request bodies of an OpenAPI 3.x document.

use serde_json::{Map, Value};

use super::error::LoadError;
use super::fields::{string_field, string_list};
use super::model::{MediaType, Method, Operation, Parameter, ParameterLocation, RequestBody};
use super::place::DocPath;
use super::resolver::Resolver;

/// Reads operations out of a 3.x-shaped document, collecting what it skips.
pub struct Reader<'a> {
    resolver: Resolver<'a>,
    warnings: Vec<String>,
}

impl<'a> Reader<'a> {
    pub fn new(resolver: Resolver<'a>) -> Self {
        Self {
            resolver,
            warnings: Vec::new(),
        }
    }

    pub fn into_warnings(self) -> Vec<String> {
        self.warnings
    }

    /// Every operation, in document order (TC-PROTO-006). A document without
    /// `paths` (webhooks only, say) simply has none.
    pub fn operations(&mut self) -> Result<Vec<Operation>, LoadError> {
        let at = DocPath::root().key("paths");
        let Some(paths) = self.resolver.root().get("paths") else {
            return Ok(Vec::new());
        };
        let paths = self.object(paths, &at)?;
        let mut operations = Vec::new();
        for (path, item) in paths {
            // The Paths object may carry extensions beside its paths.
            if path.starts_with("x-") {
                continue;
            }
            let (item, item_at) = self.resolve(item, &at.key(path))?;
            let item = self.object(item, &item_at)?;
            let shared = self.parameters(item.get("parameters"), &item_at.key("parameters"))?;
            for method in Method::ALL {
                if let Some(operation) = item.get(method.as_str()) {
                    let op_at = item_at.key(method.as_str());
                    operations.push(self.operation(method, path, operation, op_at, &shared)?);
                }
            }
        }
        Ok(operations)
    }

    fn operation(
        &mut self,
        method: Method,
        path: &str,
        value: &'a Value,
        at: DocPath,
        shared: &[Parameter],
    ) -> Result<Operation, LoadError> {
        // Some split documents give an operation by reference, which OpenAPI
        // allows only for a path item: it is followed the same way, rather
        // than read as an operation with nothing but its method and path.
        let (value, at) = self.resolve(value, &at)?;
        let operation = self.object(value, &at)?;
        let own = self.parameters(operation.get("parameters"), &at.key("parameters"))?;
        let request_body = match operation.get("requestBody") {
            Some(body) => Some(self.request_body(body, &at.key("requestBody"))?),
            None => None,
        };
        Ok(Operation {
            method,
            path: path.to_string(),
            operation_id: string_field(operation, "operationId"),
            x_agentify: operation.get("x-agentify").cloned(),
            x_mcp: operation.get("x-mcp").cloned(),
            summary: string_field(operation, "summary"),
            description: string_field(operation, "description"),
            deprecated: operation.get("deprecated") == Some(&Value::Bool(true)),
            tags: string_list(operation.get("tags")),
            parameters: merge_parameters(shared, own),
            request_body,
            at,
        })
    }

    fn parameters(
        &mut self,
        value: Option<&'a Value>,
        at: &DocPath,
    ) -> Result<Vec<Parameter>, LoadError> {
        let Some(value) = value else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = value else {
            return Err(self.invalid(at, "expected a list of parameters"));
        };
        let mut parameters = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            if let Some(parameter) = self.parameter(item, &at.index(index))? {
                parameters.push(parameter);
            }
        }
        Ok(parameters)
    }

    /// One parameter; `None` when it cannot be sent and is skipped with a warning.
    fn parameter(
        &mut self,
        value: &'a Value,
        at: &DocPath,
    ) -> Result<Option<Parameter>, LoadError> {
        let (value, at) = self.resolve(value, at)?;
        let parameter = self.object(value, &at)?;
        let Some(name) = string_field(parameter, "name") else {
            return Err(self.invalid(&at, "a parameter needs a `name`"));
        };
        let written_in = parameter.get("in").and_then(Value::as_str).unwrap_or("");
        let Some(location) = ParameterLocation::parse(written_in) else {
            self.warnings.push(format!(
                "{}: {at}: parameter `{name}` skipped: `in: {written_in}` is not path, query, header or cookie",
                self.resolver.origin()
            ));
            return Ok(None);
        };
        let schema = match parameter.get("schema") {
            Some(schema) => Some(schema.clone()),
            None => first_media_schema(parameter.get("content")),
        };
        Ok(Some(Parameter {
            name,
            location,
            required: parameter.get("required") == Some(&Value::Bool(true)),
            description: string_field(parameter, "description"),
            schema,
            style: string_field(parameter, "style"),
            explode: parameter.get("explode").and_then(Value::as_bool),
            at,
        }))
    }

    fn request_body(&mut self, value: &'a Value, at: &DocPath) -> Result<RequestBody, LoadError> {
        let (value, at) = self.resolve(value, at)?;
        let body = self.object(value, &at)?;
        let content = match body.get("content") {
            Some(content) => self
                .object(content, &at.key("content"))?
                .iter()
                .map(|(name, media)| MediaType {
                    name: name.clone(),
                    schema: media.get("schema").cloned(),
                })
                .collect(),
            None => Vec::new(),
        };
        Ok(RequestBody {
            required: body.get("required") == Some(&Value::Bool(true)),
            description: string_field(body, "description"),
            content,
            at,
        })
    }

    /// TC-LOAD-003, TC-LOAD-006: the value behind a `$ref` chain and where it
    /// is; a reference that cannot be resolved is an error, never skipped.
    fn resolve(&self, value: &'a Value, at: &DocPath) -> Result<(&'a Value, DocPath), LoadError> {
        self.resolver.follow(value, at)
    }

    fn object<'v>(
        &self,
        value: &'v Value,
        at: &DocPath,
    ) -> Result<&'v Map<String, Value>, LoadError> {
        value
            .as_object()
            .ok_or_else(|| self.invalid(at, "expected an object"))
    }

    fn invalid(&self, at: &DocPath, problem: &str) -> LoadError {
        LoadError::Invalid {
            origin: self.resolver.origin().to_string(),
            at: at.clone(),
            problem: problem.to_string(),
        }
    }
}

/// TC-LOAD-005: the path item's parameters, each replaced in place by the
/// operation's parameter of the same `name` and `in`, then the operation's others.
/// A name and location listed twice keeps its last definition.
fn merge_parameters(shared: &[Parameter], own: Vec<Parameter>) -> Vec<Parameter> {
    let mut merged = shared.to_vec();
    for parameter in own {
        let same = merged
            .iter_mut()
            .find(|p| p.name == parameter.name && p.location == parameter.location);
        match same {
            Some(slot) => *slot = parameter,
            None => merged.push(parameter),
        }
    }
    merged
}

/// A parameter described by `content` instead of `schema` uses its first media type's schema.
fn first_media_schema(content: Option<&Value>) -> Option<Value> {
    content?
        .as_object()?
        .values()
        .next()?
        .get("schema")
        .cloned()
}
