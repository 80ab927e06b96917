//! Argument values as text, per OpenAPI's serialization styles.

use std::borrow::Cow;

use serde_json::Value;

/// A scalar as the text it stands for: strings as they are, numbers and
/// booleans as their JSON text. Nested arrays and objects, which the styles do
/// not define, travel as JSON text. Null has no text.
pub(super) fn scalar(value: &Value) -> Option<Cow<'_, str>> {
    match value {
        Value::Null => None,
        Value::String(text) => Some(Cow::Borrowed(text)),
        other => Some(Cow::Owned(other.to_string())),
    }
}

/// The items of an array, or the name-value pairs of an object, as texts.
pub(super) enum Parts<'v> {
    Scalar(Cow<'v, str>),
    Items(Vec<Cow<'v, str>>),
    Members(Vec<(&'v str, Cow<'v, str>)>),
}

pub(super) fn parts(value: &Value) -> Option<Parts<'_>> {
    match value {
        Value::Array(items) => Some(Parts::Items(items.iter().filter_map(scalar).collect())),
        Value::Object(members) => Some(Parts::Members(
            members
                .iter()
                .filter_map(|(name, value)| Some((name.as_str(), scalar(value)?)))
                .collect(),
        )),
        other => scalar(other).map(Parts::Scalar),
    }
}

/// TC-REQ-006: simple style (headers, and path values before encoding):
/// arrays comma-joined without spaces; objects as `k,v,k,v`, or `k=v,k=v`
/// exploded.
pub(super) fn simple(value: &Value, explode: bool) -> Option<String> {
    simple_with(value, explode, |text| text.to_owned())
}

/// Simple style with each part passed through `encode`; the delimiters `,`
/// and `=` stay as they are.
pub(super) fn simple_with(
    value: &Value,
    explode: bool,
    encode: impl Fn(&str) -> String,
) -> Option<String> {
    Some(match parts(value)? {
        Parts::Scalar(text) => encode(&text),
        Parts::Items(items) => items
            .iter()
            .map(|item| encode(item))
            .collect::<Vec<_>>()
            .join(","),
        Parts::Members(members) => members
            .iter()
            .map(|(name, value)| {
                let separator = if explode { "=" } else { "," };
                format!("{}{separator}{}", encode(name), encode(value))
            })
            .collect::<Vec<_>>()
            .join(","),
    })
}
