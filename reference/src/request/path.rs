//! The request path: base path, then the operation's path with each path
//! argument encoded as one segment (TC-REQ-002), never leaving the base path
//! (TC-REQ-003, TC-REQ-004), never empty (TC-REQ-020).

use serde_json::{Map, Value};

use super::destination::Destination;
use super::encode::{encode_component, encode_path_literal};
use super::refusal::Refusal;
use super::style;
use crate::convert::{Location, ParameterPlan};
use crate::errors::PathValueProblem;

/// Renders the full path for `template`, e.g. `/v1/pets/a%2Fb`.
pub(super) fn render(
    template: &str,
    parameters: &[ParameterPlan],
    arguments: &Map<String, Value>,
    destination: &Destination,
) -> Result<String, Refusal> {
    let operation_path = substitute(template, parameters, arguments)?;
    let base = destination.base_segments();
    let mut segments: Vec<&str> = base.iter().map(String::as_str).collect();
    // TC-REQ-004: dot segments written in the document are resolved here,
    // before any URL parser can, and may never climb into or above the base
    // path.
    for segment in operation_path.split('/').skip(1) {
        match dot_segment(segment) {
            Some(DotSegment::Current) => {}
            Some(DotSegment::Parent) if segments.len() > base.len() => {
                segments.pop();
            }
            Some(DotSegment::Parent) => {
                return Err(Refusal::PathEscapesBase {
                    base_path: destination.base().path().to_owned(),
                })
            }
            None => segments.push(segment),
        }
    }
    Ok(format!("/{}", segments.join("/")))
}

/// Replaces each `{name}` with its argument, encoded; literal text is kept,
/// with only what a path cannot carry encoded.
fn substitute(
    template: &str,
    parameters: &[ParameterPlan],
    arguments: &Map<String, Value>,
) -> Result<String, Refusal> {
    let mut path = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(length) = rest[open..].find('}') else {
            break;
        };
        path.push_str(&encode_path_literal(&rest[..open]));
        let name = &rest[open + 1..open + length];
        path.push_str(&segment_value(name, parameters, arguments)?);
        rest = &rest[open + length + 1..];
    }
    path.push_str(&encode_path_literal(rest));
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    Ok(path)
}

/// TC-REQ-002: one path argument as an encoded segment: everything but
/// unreserved characters encoded, `/` and `%` included, so it cannot add
/// segments.
fn segment_value(
    name: &str,
    parameters: &[ParameterPlan],
    arguments: &Map<String, Value>,
) -> Result<String, Refusal> {
    let parameter = parameters
        .iter()
        .find(|p| p.location == Location::Path && p.name == name);
    let argument = parameter.map_or(name, |p| p.argument.as_str());
    let refuse = |reason| Refusal::PathValue {
        argument: argument.to_owned(),
        reason,
    };
    let explode = parameter.is_some_and(|p| p.explode);
    let encoded = arguments
        .get(argument)
        .and_then(|value| style::simple_with(value, explode, encode_component))
        .ok_or_else(|| refuse(PathValueProblem::Absent))?;
    match encoded.as_str() {
        // TC-REQ-020: `/pets/` would name another resource than `/pets/{id}`.
        "" => Err(refuse(PathValueProblem::Empty)),
        // TC-REQ-003: a dot segment would move the path, not name a resource.
        "." | ".." => Err(refuse(PathValueProblem::DotSegment)),
        _ => Ok(encoded),
    }
}

enum DotSegment {
    Current,
    Parent,
}

/// `.` and `..`, also written as `%2e` in either case (as URL parsers read
/// them). Read token by token, not decoded into a new string: every segment
/// of every call passes here.
fn dot_segment(segment: &str) -> Option<DotSegment> {
    let mut rest = segment.as_bytes();
    let mut dots = 0;
    while !rest.is_empty() {
        rest = match rest {
            [b'.', after @ ..] => after,
            [b'%', b'2', b'e' | b'E', after @ ..] => after,
            _ => return None,
        };
        dots += 1;
    }
    match dots {
        1 => Some(DotSegment::Current),
        2 => Some(DotSegment::Parent),
        _ => None,
    }
}
