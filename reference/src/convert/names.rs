//! Tool names: where a name comes from, which characters survive, and how equal
//! or over-long names are told apart.

use std::collections::HashSet;

use serde_json::Value;

use crate::load::Operation;

/// MCP's limit on a tool name's length.
pub const MAX_NAME_LEN: usize = 128;

/// Hex digits of the hash that keeps a shortened name unique.
const HASH_DIGITS: usize = 8;

/// The shortest name limit an operator may set: room for a start, the hash
/// and a `_2`-style suffix.
pub const MIN_NAME_LIMIT: usize = 16;

/// Hands out tool names in list order, each one unique and at most `limit`
/// characters long.
#[derive(Debug)]
pub struct ToolNames {
    taken: HashSet<String>,
    limit: usize,
}

impl Default for ToolNames {
    fn default() -> Self {
        ToolNames::with_limit(MAX_NAME_LEN)
    }
}

impl ToolNames {
    /// Names of at most `limit` characters (at least [`MIN_NAME_LIMIT`]), for
    /// clients that cap names below MCP's 128.
    pub fn with_limit(limit: usize) -> Self {
        ToolNames {
            taken: HashSet::new(),
            limit: limit.max(MIN_NAME_LIMIT),
        }
    }

    /// The name of the next tool in list order.
    pub fn assign(&mut self, operation: &Operation) -> String {
        self.claim(shorten(&sanitize(&source_name(operation)), self.limit))
    }

    /// TC-NAME-008: the first tool keeps its name, later ones with the same
    /// name get `_2`, `_3`, ...; a suffixed name that is itself taken moves on
    /// to the next number, and the suffix never pushes a name past the limit.
    fn claim(&mut self, wanted: String) -> String {
        if self.taken.insert(wanted.clone()) {
            return wanted;
        }
        let mut counter = 2_u64;
        loop {
            let suffix = format!("_{counter}");
            let keep = self.limit.saturating_sub(suffix.len());
            let candidate: String = wanted.chars().take(keep).chain(suffix.chars()).collect();
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            counter += 1;
        }
    }
}

/// TC-NAME-004: the name as the document gives it, before the character rule:
/// `x-agentify`, else `x-mcp` (TC-NAME-003), else `operationId` (TC-NAME-005),
/// else the lower-case method, a space and the path as written (TC-NAME-006).
pub fn source_name(operation: &Operation) -> String {
    [&operation.x_agentify, &operation.x_mcp]
        .into_iter()
        .find_map(|extension| extension.as_ref().and_then(extension_name))
        .or_else(|| operation.operation_id.clone().filter(|id| !id.is_empty()))
        .unwrap_or_else(|| format!("{} {}", operation.method.as_str(), operation.path))
}

/// TC-NAME-001, TC-NAME-002: an extension names a tool by being a string, or by an
/// object's string `name`. An empty name names nothing.
fn extension_name(extension: &Value) -> Option<String> {
    let name = match extension {
        Value::String(name) => name,
        Value::Object(members) => members.get("name")?.as_str()?,
        _ => return None,
    };
    (!name.is_empty()).then(|| name.to_string())
}

/// TC-NAME-007: every character but an ASCII letter or digit, `_`, `.` and `-`
/// becomes one `_`, however many bytes it takes.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// TC-NAME-009, TC-NAME-011: a name over the limit keeps its start (119
/// characters at MCP's 128) and ends in `_` and a hash of the whole name, so the
/// same document always gives the same name, and two long names with a common
/// start differ by what follows it, whatever their order.
pub fn shorten(name: &str, limit: usize) -> String {
    if name.chars().count() <= limit {
        return name.to_string();
    }
    let keep = limit - HASH_DIGITS - 1;
    let start: String = name.chars().take(keep).collect();
    format!("{start}_{:08x}", fnv1a_32(name.as_bytes()))
}

/// 32-bit FNV-1a: small, stable across platforms and releases, and enough to tell
/// a handful of long names apart.
fn fnv1a_32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use rstest::rstest;
    use serde_json::json;

    use super::*;
    use crate::load::{DocPath, Method};

    fn operation(method: Method, path: &str) -> Operation {
        Operation {
            method,
            path: path.to_string(),
            at: DocPath::root(),
            operation_id: None,
            x_agentify: None,
            x_mcp: None,
            summary: None,
            description: None,
            deprecated: false,
            tags: Vec::new(),
            parameters: Vec::new(),
            request_body: None,
        }
    }

    fn named(
        x_agentify: Option<Value>,
        x_mcp: Option<Value>,
        operation_id: Option<&str>,
    ) -> Operation {
        Operation {
            x_agentify,
            x_mcp,
            operation_id: operation_id.map(str::to_string),
            ..operation(Method::Get, "/pets/{petId}")
        }
    }

    #[rstest]
    #[case::agentify_string(Some(json!("fromAgentify")), Some(json!("fromMcp")), Some("opId"), "fromAgentify")]
    #[case::agentify_object(Some(json!({"name": "agentObj"})), Some(json!("fromMcp")), Some("opId"), "agentObj")]
    #[case::mcp_string(None, Some(json!("fromMcp")), Some("opId"), "fromMcp")]
    #[case::mcp_object(None, Some(json!({"name": "mcpObj", "other": 1})), Some("opId"), "mcpObj")]
    #[case::operation_id(None, None, Some("listPets"), "listPets")]
    #[case::method_and_path(None, None, None, "get /pets/{petId}")]
    #[case::object_without_name_falls_through(Some(json!({"title": "x"})), Some(json!(7)), Some("opId"), "opId")]
    #[case::empty_names_fall_through(Some(json!("")), Some(json!({"name": ""})), Some(""), "get /pets/{petId}")]
    fn name_sources_in_order(
        #[case] x_agentify: Option<Value>,
        #[case] x_mcp: Option<Value>,
        #[case] operation_id: Option<&str>,
        #[case] expected: &str,
    ) {
        assert_eq!(
            source_name(&named(x_agentify, x_mcp, operation_id)),
            expected
        );
    }

    #[rstest]
    #[case("get /pets/{petId}", "get__pets__petId_")]
    #[case("café", "caf_")]
    #[case("🐶pets", "_pets")]
    #[case("日本語", "___")]
    #[case("list-pets.v2_ok", "list-pets.v2_ok")]
    #[case("a b\tc/d?e=f", "a_b_c_d_e_f")]
    fn character_rule(#[case] raw: &str, #[case] expected: &str) {
        assert_eq!(sanitize(raw), expected);
    }

    #[rstest]
    #[case(Method::Delete, "/pets/{id}", "delete__pets__id_")]
    #[case(
        Method::Post,
        "/v1/chat/completions?beta=true",
        "post__v1_chat_completions_beta_true"
    )]
    fn method_and_path_names(#[case] method: Method, #[case] path: &str, #[case] expected: &str) {
        let mut names = ToolNames::default();
        assert_eq!(names.assign(&operation(method, path)), expected);
    }

    #[test]
    fn equal_names_get_numbered_in_list_order() {
        let mut names = ToolNames::default();
        let op = |id: &str| named(None, None, Some(id));
        let given: Vec<String> = ["a", "a", "a_2", "a", "b"]
            .iter()
            .map(|id| names.assign(&op(id)))
            .collect();
        assert_eq!(given, ["a", "a_2", "a_2_2", "a_3", "b"]);
    }

    #[test]
    fn names_equal_after_the_character_rule_are_numbered() {
        let mut names = ToolNames::default();
        let first = names.assign(&named(None, None, Some("get pets")));
        let second = names.assign(&named(None, None, Some("get/pets")));
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("get_pets", "get_pets_2")
        );
    }

    #[test]
    fn long_names_are_shortened_stably_and_stay_unique() {
        let long_a = format!("{}A", "x".repeat(200));
        let long_b = format!("{}B", "x".repeat(200));
        let a = shorten(&long_a, MAX_NAME_LEN);
        let b = shorten(&long_b, MAX_NAME_LEN);
        assert_eq!(a.len(), 128);
        assert_eq!(&a[..120], format!("{}_", "x".repeat(119)));
        assert_ne!(a, b);
        assert_eq!(a, shorten(&long_a, MAX_NAME_LEN));
        assert_eq!(shorten(&"y".repeat(128), MAX_NAME_LEN), "y".repeat(128));
    }

    #[test]
    fn a_numbered_long_name_stays_within_the_limit() {
        let mut names = ToolNames::default();
        let long = "z".repeat(300);
        let first = names.assign(&named(None, None, Some(&long)));
        let second = names.assign(&named(None, None, Some(&long)));
        assert_eq!(first.len(), 128);
        assert_eq!(second.len(), 128);
        assert!(second.ends_with("_2"));
        assert_eq!(&second[..126], &first[..126]);
    }

    #[test]
    fn an_operator_limit_shortens_the_same_way_and_keeps_names_unique() {
        let mut names = ToolNames::with_limit(64);
        let long = "GetCustomersCustomerPaymentMethodsPaymentMethodBalanceTransactions";
        let first = names.assign(&named(None, None, Some(long)));
        let second = names.assign(&named(None, None, Some(long)));
        let short = names.assign(&named(None, None, Some("listCharges")));
        assert_eq!(first.len(), 64);
        assert_eq!(first, shorten(long, 64));
        assert_eq!(second.len(), 64);
        assert!(second.ends_with("_2"));
        assert_eq!(short, "listCharges");
    }

    #[test]
    fn fnv1a_matches_published_vectors() {
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }
}
