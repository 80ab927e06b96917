//! The operations of a scenario's document as the naming rules make them
//! tools, so a scenario can find "its" tool on a gateway that names tools
//! otherwise.
//!
//! A gateway that breaks only a naming rule (TC-NAME-*) must fail only that
//! rule. Scenarios of other rules name their tool as the rules would; when
//! the gateway lists no tool of that name, [`find`] looks for the tool of
//! the same operation by what the tool is, never by a guess: one whose name
//! is the same once case and separators are set aside (`list-pets`), else
//! one whose name is an abbreviation of it or it of the name (`lst-pets`),
//! else the one tool whose description, title or annotations state the
//! operation's method and path (`GET /pets`), else the one tool whose
//! arguments are exactly the operation's parameters, when no other operation
//! of the document has the same ones. Each step must single out one tool;
//! where none does, the tool is not found. Its place in the list is no
//! evidence: it holds only while the gateway orders tools as TC-PROTO-006
//! says, and a gateway that orders them otherwise would be judged on
//! another operation's tool.

use std::collections::BTreeSet;

use serde_json::Value;

/// Methods in the order the rules list them within a path.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// An operation that becomes a tool, as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The rules' name for its tool.
    pub name: String,
    pub method: String,
    pub path: String,
    /// The rule that gives the name (`TC-NAME-005` for an operationId).
    pub named_by: &'static str,
    /// Its parameters' names, and `body` when it takes a request body.
    pub arguments: BTreeSet<String>,
}

/// Each operation that becomes a tool, in list order. Empty when the
/// document does not parse.
pub fn operations(document: &str) -> Vec<Operation> {
    let Ok(root) = yaml_serde::from_str::<Value>(document) else {
        return Vec::new();
    };
    let mut operations: Vec<Operation> = Vec::new();
    let paths = root.get("paths").and_then(Value::as_object);
    for (path, item) in paths.into_iter().flatten() {
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            if operation.get("deprecated") == Some(&Value::Bool(true)) {
                continue;
            }
            let (source, named_by) = source_name(operation, method, path);
            let name = sanitize(&source);
            let mut unique = name.clone();
            let mut n = 2;
            while operations.iter().any(|o| o.name == unique) {
                unique = format!("{name}_{n}");
                n += 1;
            }
            operations.push(Operation {
                name: unique,
                method: method.to_owned(),
                path: path.clone(),
                named_by,
                arguments: arguments(item, operation),
            });
        }
    }
    operations
}

/// Parameter names of the path item and the operation (references left
/// unresolved are skipped), and `body` for a request body.
fn arguments(item: &Value, operation: &Value) -> BTreeSet<String> {
    let names = |holder: &Value| -> Vec<String> {
        holder
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("in").and_then(Value::as_str) != Some("cookie"))
            .filter_map(|p| p.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    let mut arguments: BTreeSet<String> = names(item).into_iter().collect();
    arguments.extend(names(operation));
    if operation.get("requestBody").is_some() {
        arguments.insert("body".to_owned());
    }
    arguments
}

/// `x-agentify`, else `x-mcp` (a string, or an object's `name`), else the
/// `operationId`, else the method and path; with the rule that says so.
fn source_name(operation: &Value, method: &str, path: &str) -> (String, &'static str) {
    let extension = |key: &str| match operation.get(key) {
        Some(Value::String(name)) => Some(name.clone()),
        Some(Value::Object(object)) => object
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    };
    if let Some(name) = extension("x-agentify") {
        let rule = if operation["x-agentify"].is_string() {
            "TC-NAME-001"
        } else {
            "TC-NAME-002"
        };
        return (name, rule);
    }
    if let Some(name) = extension("x-mcp") {
        return (name, "TC-NAME-003");
    }
    match operation.get("operationId").and_then(Value::as_str) {
        Some(id) => (id.to_owned(), "TC-NAME-005"),
        None => (format!("{method} {path}"), "TC-NAME-006"),
    }
}

/// Every character but ASCII letters, digits, `_`, `.` and `-` becomes `_`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The index in `listed` (tools as the gateway lists them, JSON) of the
/// tool of `wanted`'s operation, by the steps in the module's
/// documentation; `None` when no step singles one out.
pub fn find(wanted: &str, operations: &[Operation], listed: &[Value]) -> Option<usize> {
    let names: Vec<&str> = listed
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default())
        .collect();
    let folded = fold(wanted);
    let single = |hits: Vec<usize>| match hits.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let indexes = || 0..listed.len();
    single(indexes().filter(|&i| fold(names[i]) == folded).collect())
        .or_else(|| {
            single(
                indexes()
                    .filter(|&i| {
                        let name = fold(names[i]);
                        !name.is_empty()
                            && (is_subsequence(&name, &folded) || is_subsequence(&folded, &name))
                    })
                    .collect(),
            )
        })
        .or_else(|| {
            let operation = operations.iter().find(|o| o.name == wanted)?;
            single(
                indexes()
                    .filter(|&i| states_method_and_path(&listed[i], operation))
                    .collect(),
            )
            .or_else(|| {
                let alike = operations
                    .iter()
                    .filter(|o| o.arguments == operation.arguments)
                    .count();
                if alike != 1 {
                    return None;
                }
                single(
                    indexes()
                        .filter(|&i| argument_names(&listed[i]) == operation.arguments)
                        .collect(),
                )
            })
        })
}

/// Whether the tool says, in its description, title or annotations, that
/// it calls the operation: its method (any case) and path, side by side.
fn states_method_and_path(tool: &Value, operation: &Operation) -> bool {
    let said = format!("{} {}", operation.method, operation.path).to_ascii_lowercase();
    let mut texts = vec![&tool["description"], &tool["title"]];
    if let Some(annotations) = tool["annotations"].as_object() {
        texts.extend(annotations.values());
    }
    texts.iter().filter_map(|t| t.as_str()).any(|text| {
        let text = text.to_ascii_lowercase();
        text.match_indices(&said).any(|(at, _)| {
            // The path ends there: `/pets` is not `/pets/{petId}`.
            !text[at + said.len()..]
                .starts_with(|c: char| c == '/' || c == '{' || c.is_alphanumeric())
        })
    })
}

/// The names of a tool's arguments: its input schema's properties.
fn argument_names(tool: &Value) -> BTreeSet<String> {
    tool["inputSchema"]["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Letters and digits only, lower-cased: `list_pets`, `List-Pets` and
/// `listPets` fold alike.
fn fold(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether `short` is `long` with some characters left out.
fn is_subsequence(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    short.chars().all(|c| rest.any(|l| l == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_operations_as_the_rules_do_in_list_order() {
        let document = r#"
openapi: 3.1.0
paths:
  /pets/{petId}:
    delete: {x-mcp: {name: drop}}
    get: {operationId: getPet}
  /pets:
    post: {x-agentify: add, x-mcp: ignored}
    get: {deprecated: true, operationId: old}
  /a:
    get: {operationId: same}
    put: {operationId: same}
  /ü:
    get: {}
"#;
        let names = |document| -> Vec<String> {
            operations(document).into_iter().map(|o| o.name).collect()
        };
        assert_eq!(
            names(document),
            ["getPet", "drop", "add", "same", "same_2", "get___"]
        );
        assert!(names("{{{").is_empty());
    }

    fn tool(name: &str, description: &str, arguments: &[&str]) -> Value {
        let properties: serde_json::Map<String, Value> = arguments
            .iter()
            .map(|a| ((*a).to_owned(), serde_json::json!({})))
            .collect();
        serde_json::json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties},
        })
    }

    const PETS: &str = r#"
openapi: 3.1.0
paths:
  /pets:
    get: {operationId: listPets, parameters: [{name: limit, in: query}]}
    put: {operationId: replacePets, requestBody: {}}
    post: {operationId: createPet, requestBody: {}}
  /notes:
    post: {operationId: addNote, parameters: [{name: tag, in: query}]}
    get: {operationId: getNotes}
"#;

    #[test]
    fn finds_a_tool_by_its_name_folded_or_abbreviated() {
        let operations = operations(PETS);
        let listed = [tool("x", "", &[]), tool("list-pets", "", &[])];
        assert_eq!(find("listPets", &operations, &listed), Some(1));
        let listed = [tool("lst-pets", "", &[]), tool("add-note", "", &[])];
        assert_eq!(find("listPets", &operations, &listed), Some(0));
        // Two abbreviations of the same name single out none.
        let listed = [tool("lst", "", &[]), tool("pets", "", &[])];
        assert_eq!(find("listPets", &operations, &listed), None);
    }

    #[test]
    fn finds_a_tool_by_its_method_and_path_or_its_arguments_never_its_place() {
        let operations = operations(PETS);
        let add_note = operations.iter().find(|o| o.name == "addNote").unwrap();
        assert_eq!(add_note.arguments, BTreeSet::from(["tag".to_owned()]));
        // Named by method and path, listed with methods as written: the
        // place in the list would make put_pets the tool of createPet.
        let listed = [
            tool("get_pets", "GET /pets", &["limit"]),
            tool("post_pets", "POST /pets", &["body"]),
            tool("put_pets", "PUT /pets", &["body"]),
            tool("post_notes", "", &["tag"]),
            tool("get_notes", "", &[]),
        ];
        assert_eq!(find("createPet", &operations, &listed), Some(1));
        assert_eq!(find("replacePets", &operations, &listed), Some(2));
        // No method and path said: the arguments single out the operation.
        assert_eq!(find("addNote", &operations, &listed), Some(3));
        // Nothing tells getNotes's tool apart (no arguments, nothing said):
        // the place in the list is no evidence.
        let silent = [
            tool("q1", "", &["limit"]),
            tool("q2", "", &["body"]),
            tool("q3", "", &["body"]),
            tool("q4", "", &["tag"]),
            tool("q5", "", &[]),
        ];
        assert_eq!(find("createPet", &operations, &silent), None);
        assert_eq!(find("listPets", &operations, &silent), Some(0));
        // A longer path is not the operation's.
        let longer = [tool("q1", "GET /pets/{petId}", &[])];
        assert_eq!(find("listPets", &operations, &longer), None);
    }
}
