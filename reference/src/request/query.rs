//! Query arguments, form style with exploded arrays by default (TC-REQ-005),
//! or the style a parameter declares (TC-REQ-019).

use serde_json::{Map, Value};

use super::encode::encode_component;
use super::style::{self, Parts};
use crate::convert::{Location, ParameterPlan};

/// One `name=value` pair, already encoded, with the name it was made for so
/// the credential can take that name's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Pair {
    pub name: String,
    pub encoded: String,
}

impl Pair {
    fn new(name: &str, encoded_value: &str) -> Pair {
        Pair {
            name: name.to_owned(),
            encoded: format!("{}={encoded_value}", encode_component(name)),
        }
    }
}

/// The query pairs the arguments produce, in parameter order; null and absent
/// arguments and empty arrays produce none.
pub(super) fn pairs(parameters: &[ParameterPlan], arguments: &Map<String, Value>) -> Vec<Pair> {
    let mut pairs = Vec::new();
    for parameter in parameters.iter().filter(|p| p.location == Location::Query) {
        let Some(parts) = arguments.get(&parameter.argument).and_then(style::parts) else {
            continue;
        };
        let name = parameter.name.as_str();
        // TC-REQ-005: form unless the parameter declares another style.
        let style = parameter.style.as_deref().unwrap_or("form");
        match parts {
            Parts::Scalar(text) => pairs.push(Pair::new(name, &encode_component(&text))),
            Parts::Items(items) if items.is_empty() => {}
            // TC-REQ-005: exploded, each item is a pair of its own.
            Parts::Items(items) if parameter.explode => pairs.extend(
                items
                    .iter()
                    .map(|item| Pair::new(name, &encode_component(item))),
            ),
            // TC-REQ-019: not exploded, the items share one pair, joined as
            // the style says.
            Parts::Items(items) => {
                let delimiter = match style {
                    "spaceDelimited" => "%20",
                    "pipeDelimited" => "|",
                    _ => ",",
                };
                let joined = items
                    .iter()
                    .map(|item| encode_component(item))
                    .collect::<Vec<_>>()
                    .join(delimiter);
                pairs.push(Pair::new(name, &joined));
            }
            // TC-REQ-019: `name[key]=value` for each member.
            Parts::Members(members) if style == "deepObject" => {
                pairs.extend(members.iter().map(|(key, value)| {
                    Pair::new(&format!("{name}[{key}]"), &encode_component(value))
                }))
            }
            Parts::Members(members) if parameter.explode => pairs.extend(
                members
                    .iter()
                    .map(|(key, value)| Pair::new(key, &encode_component(value))),
            ),
            Parts::Members(members) => {
                let joined = members
                    .iter()
                    .map(|(key, value)| {
                        format!("{},{}", encode_component(key), encode_component(value))
                    })
                    .collect::<Vec<_>>()
                    .join(",");
                pairs.push(Pair::new(name, &joined));
            }
        }
    }
    pairs
}

/// The query string: the base URL's own query, if it has one, then the pairs.
pub(super) fn join(base_query: Option<&str>, pairs: &[Pair]) -> Option<String> {
    let parts: Vec<&str> = base_query
        .filter(|query| !query.is_empty())
        .into_iter()
        .chain(pairs.iter().map(|pair| pair.encoded.as_str()))
        .collect();
    (!parts.is_empty()).then(|| parts.join("&"))
}
