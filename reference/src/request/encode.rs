//! Percent-encoding, in one place so the masker can find the credential in the
//! exact form the request carried it.

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS, NON_ALPHANUMERIC};

/// Everything but RFC 3986 unreserved characters: `/`, `%`, `?`, `#`, spaces
/// and every non-ASCII byte included (TC-REQ-002).
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// What a document's literal path text may not carry as is: it keeps its `/`
/// separators and any `%XX` it was written with, but nothing that would end the
/// path or that URL parsers rewrite (a backslash becomes `/` in some).
const PATH_LITERAL: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|');

/// Encodes a path segment's value, a query name or value, or the credential.
pub fn encode_component(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

pub(super) fn encode_path_literal(text: &str) -> String {
    utf8_percent_encode(text, PATH_LITERAL).to_string()
}
