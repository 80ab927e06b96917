//! The name the naming rules give each operation of a scenario's document,
//! in list order, so a scenario can find "its" tool on a gateway that names
//! tools otherwise.
//!
//! A gateway that breaks only a naming rule (TC-NAME-*) must fail only that
//! rule. Scenarios of other rules name their tool as the rules would; when
//! the gateway lists no tool of that name, [`find`] looks for the tool of
//! the same operation: one whose name is the same once case and separators
//! are set aside (`list-pets`), else one whose name is an abbreviation of it
//! or it of the name (`lst-pets`), else the tool at the same place in the
//! list (TC-PROTO-006 orders tools as the document orders operations) when
//! the gateway lists as many tools as the document has operations. Each
//! step must single out one tool; where none does, the scenario says there
//! is no such tool.

use serde_json::Value;

/// Methods in the order the rules list them within a path.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The rules' name for each operation that becomes a tool, in list order.
/// Empty when the document does not parse.
pub fn expected_names(document: &str) -> Vec<String> {
    let Ok(root) = yaml_serde::from_str::<Value>(document) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    let paths = root.get("paths").and_then(Value::as_object);
    for (path, item) in paths.into_iter().flatten() {
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            if operation.get("deprecated") == Some(&Value::Bool(true)) {
                continue;
            }
            let name = sanitize(&source_name(operation, method, path));
            let mut unique = name.clone();
            let mut n = 2;
            while names.contains(&unique) {
                unique = format!("{name}_{n}");
                n += 1;
            }
            names.push(unique);
        }
    }
    names
}

/// `x-agentify`, else `x-mcp` (a string, or an object's `name`), else the
/// `operationId`, else the method and path.
fn source_name(operation: &Value, method: &str, path: &str) -> String {
    let extension = |key: &str| match operation.get(key) {
        Some(Value::String(name)) => Some(name.clone()),
        Some(Value::Object(object)) => object
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    };
    extension("x-agentify")
        .or_else(|| extension("x-mcp"))
        .or_else(|| {
            operation
                .get("operationId")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| format!("{method} {path}"))
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

/// The index in `listed` of the tool the rules call `wanted`, by the steps
/// in the module's documentation. `expected` is [`expected_names`].
pub fn find(wanted: &str, expected: &[String], listed: &[&str]) -> Option<usize> {
    let folded = fold(wanted);
    let single = |hits: Vec<usize>| match hits.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let indexes = || 0..listed.len();
    single(indexes().filter(|&i| fold(listed[i]) == folded).collect())
        .or_else(|| {
            single(
                indexes()
                    .filter(|&i| {
                        let name = fold(listed[i]);
                        !name.is_empty()
                            && (is_subsequence(&name, &folded) || is_subsequence(&folded, &name))
                    })
                    .collect(),
            )
        })
        .or_else(|| {
            let place = expected.iter().position(|n| n == wanted)?;
            (listed.len() == expected.len()).then_some(place)
        })
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
        assert_eq!(
            expected_names(document),
            ["getPet", "drop", "add", "same", "same_2", "get___"]
        );
        assert!(expected_names("{{{").is_empty());
    }

    #[test]
    fn finds_a_tool_by_its_operation() {
        let expected: Vec<String> = ["listPets", "onGet", "onPut", "onTrace"]
            .map(str::to_owned)
            .to_vec();
        // Case and separators set aside; an abbreviation; the place in the list.
        assert_eq!(find("listPets", &expected, &["x", "list-pets"]), Some(1));
        assert_eq!(
            find("listPets", &expected, &["lst-pets", "on-get"]),
            Some(0)
        );
        assert_eq!(find("onGet", &expected, &["lst-pets", "on-get"]), Some(1));
        assert_eq!(find("onPut", &expected, &["a", "b", "c", "d"]), Some(2));
        // Two abbreviations of the same name single out none; nor does a
        // list of another length.
        assert_eq!(find("listPets", &expected, &["lst", "pets", "z"]), None);
        assert_eq!(find("onPut", &expected, &["a", "b", "c"]), None);
    }
}
