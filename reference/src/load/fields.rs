//! Fields of a document's JSON objects, read leniently: what is not of the
//! expected kind is passed over.

use serde_json::{Map, Value};

/// The string at `key` of an object, if it is one.
pub fn string_field(object: &Map<String, Value>, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A list of strings as written (tags, media types); anything else in it is
/// passed over.
pub fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
