//! The upstream's answer to the text the agent sees.
//!
//! Rules (see `docs/rules.md`): TC-ANS-001, TC-ANS-002, TC-ANS-003,
//! TC-ANS-004, TC-ANS-005, TC-ANS-006, TC-ANS-007, TC-ANS-008, TC-ANS-010;
//! TC-MASK-001, TC-MASK-002, TC-MASK-003, TC-MASK-004, TC-MASK-005,
//! TC-MASK-006. TC-ANS-009 (reading stops at the budget) is `deliver.rs`'s.
//!
//! Every text taken from the answer (body, `Location`, content type) is masked
//! here, once, before it is cut or embedded in a message.

mod mask;
mod pretty;

use reqwest::header::{CONTENT_TYPE, LOCATION};
use reqwest::StatusCode;

use crate::deliver::Delivered;
use crate::errors::{AgentMessage, BodySize, ErrorCode, BODY_LIMIT, ERROR_BODY_LIMIT};

pub use mask::{secret_forms, Masker, MASK};

/// What a tool call hands back to the agent: text, and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAnswer {
    pub text: String,
    pub is_error: bool,
    /// The catalogue code the text carries (an error, or a note after the
    /// body), for the operator's log; `None` for a plain answer.
    pub code: Option<ErrorCode>,
}

impl ToolAnswer {
    /// A message of the catalogue on its own, as the agent sees it.
    pub fn from_message(message: &AgentMessage) -> ToolAnswer {
        ToolAnswer {
            text: message.render(),
            is_error: message.is_error(),
            code: Some(message.code()),
        }
    }
}

/// How many body bytes to read so that the 1 MB cut can be decided
/// (TC-ANS-003) and a credential straddling it masked whole (TC-MASK-005).
pub fn read_budget(masker: &Masker) -> usize {
    BODY_LIMIT + masker.longest_form().max(1)
}

/// Turns a delivered answer into the agent's text.
pub fn interpret(delivered: &Delivered, masker: &Masker) -> ToolAnswer {
    let status = delivered.status;
    if status.is_success() {
        return success(delivered, masker);
    }
    let message = if is_redirect(status) {
        // TC-ANS-007, TC-MASK-003: an error naming the `Location`, masked.
        AgentMessage::UpstreamRedirect {
            status,
            location: delivered
                .headers
                .get(LOCATION)
                .map(|location| masker.mask(&String::from_utf8_lossy(location.as_bytes()))),
        }
    } else {
        // TC-ANS-008, TC-MASK-002: the status and at most the first 1,024
        // bytes of the body, cut on a character boundary and masked.
        let cut = char_boundary_at_or_before(&delivered.body, ERROR_BODY_LIMIT);
        AgentMessage::UpstreamStatus {
            status,
            body_start: String::from_utf8_lossy(&masker.mask_until(&delivered.body, cut))
                .into_owned(),
        }
    };
    ToolAnswer::from_message(&message)
}

fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

fn success(delivered: &Delivered, masker: &Masker) -> ToolAnswer {
    let body = &delivered.body;
    let over_limit = !delivered.complete || body.len() > BODY_LIMIT;
    let content_type = delivered
        .headers
        .get(CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).trim().to_owned())
        .filter(|value| !value.is_empty());

    // TC-ANS-010: an empty body is a success that says so.
    if body.is_empty() && delivered.complete {
        return ToolAnswer::from_message(&AgentMessage::BodyEmpty {
            status: delivered.status,
        });
    }
    let kind = match content_type.as_deref() {
        Some(content_type) => MediaKind::of(content_type),
        // TC-ANS-006: no type, but UTF-8 (perhaps cut mid-character) is text.
        None if is_utf8_but_for_a_cut_tail(body, over_limit) => MediaKind::Text,
        // TC-ANS-005: no type and not UTF-8 is not text.
        None => MediaKind::Binary,
    };
    match kind {
        // TC-ANS-005: described by size and type, never shown.
        MediaKind::Binary => ToolAnswer::from_message(&AgentMessage::BodyNotText {
            status: delivered.status,
            size: if delivered.complete {
                BodySize::Exactly(body.len())
            } else {
                BodySize::MoreThan(BODY_LIMIT)
            },
            content_type: content_type.map(|content_type| masker.mask(&content_type)),
        }),
        _ if over_limit => {
            // TC-ANS-003, TC-ANS-004: cut at 1 MB on a character boundary,
            // shown raw because a cut JSON document no longer parses;
            // TC-MASK-005: a credential that straddles the cut is masked
            // whole.
            let cut = char_boundary_at_or_before(body, BODY_LIMIT);
            let notice = AgentMessage::BodyTruncated.render();
            // The masked bytes become the text in place when they are UTF-8,
            // grown once by the notice's length: appending to a buffer of
            // exactly 1 MB would double it, and copying it would add
            // another, 1 MB more per cut answer in flight either way.
            let mut text =
                String::from_utf8(masker.mask_until(body, cut)).unwrap_or_else(|not_utf8| {
                    String::from_utf8_lossy(not_utf8.as_bytes()).into_owned()
                });
            text.reserve_exact(2 + notice.len());
            text.push_str("\n\n");
            text.push_str(&notice);
            ToolAnswer {
                text,
                is_error: false,
                code: Some(ErrorCode::BodyTruncated),
            }
        }
        MediaKind::Json => {
            let raw = String::from_utf8_lossy(body);
            // TC-ANS-002, numbers digit for digit; TC-MASK-001, masked after
            // printing, since printing undoes any unusual escaping of the
            // credential.
            let shown = pretty::pretty(&raw).unwrap_or_else(|| raw.into_owned());
            ToolAnswer {
                text: masker.mask(&shown),
                is_error: false,
                code: None,
            }
        }
        MediaKind::Text => ToolAnswer {
            // TC-ANS-001, TC-MASK-001. Declared text that is not UTF-8 is still
            // shown, with U+FFFD for the bytes that do not decode.
            text: masker.mask(&String::from_utf8_lossy(body)),
            is_error: false,
            code: None,
        },
    }
}

/// How a body is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MediaKind {
    Json,
    Text,
    Binary,
}

impl MediaKind {
    /// TC-ANS-001, TC-ANS-005: text is `text/*`, JSON, XML, JavaScript, YAML
    /// and form-encoded data, with or without a structured-syntax suffix;
    /// any other declared type is not text.
    fn of(content_type: &str) -> MediaKind {
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let Some((kind, subtype)) = essence.split_once('/') else {
            return MediaKind::Binary;
        };
        let suffix = subtype.rsplit_once('+').map(|(_, suffix)| suffix);
        if kind == "application" && (subtype == "json" || suffix == Some("json")) {
            return MediaKind::Json;
        }
        let textual = kind == "text"
            || matches!(suffix, Some("json" | "xml" | "yaml"))
            || matches!(
                subtype,
                "xml"
                    | "javascript"
                    | "x-javascript"
                    | "ecmascript"
                    | "yaml"
                    | "x-yaml"
                    | "x-www-form-urlencoded"
            );
        if textual {
            MediaKind::Text
        } else {
            MediaKind::Binary
        }
    }
}

/// Valid UTF-8, allowing an incomplete character at the end when the body
/// was cut there.
fn is_utf8_but_for_a_cut_tail(body: &[u8], cut: bool) -> bool {
    match std::str::from_utf8(body) {
        Ok(_) => true,
        Err(error) => cut && error.error_len().is_none(),
    }
}

/// The largest index `<= limit` that does not split a UTF-8 sequence
/// (TC-ANS-004). Invalid bytes are not sequences and are cut anywhere.
fn char_boundary_at_or_before(bytes: &[u8], limit: usize) -> usize {
    if bytes.len() <= limit {
        return bytes.len();
    }
    let is_continuation = |byte: u8| byte & 0b1100_0000 == 0b1000_0000;
    // A UTF-8 sequence is at most four bytes: look back at most three.
    let mut cut = limit;
    while cut > 0 && limit - cut < 3 && bytes.get(cut).is_some_and(|b| is_continuation(*b)) {
        cut -= 1;
    }
    if bytes.get(cut).is_some_and(|b| is_continuation(*b)) {
        // Not inside a valid sequence after all.
        limit
    } else {
        cut
    }
}

#[cfg(test)]
mod tests;
