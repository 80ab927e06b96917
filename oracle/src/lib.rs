//! The gateway's safety invariants, written once, from the spec.
//!
//! # Why it exists
//!
//! Two kinds of test hunt for inputs that break the gateway's promises: the
//! property tests (`reference/tests/properties.rs`, on stable, in every
//! `cargo test`) and the cargo-fuzz targets (`fuzz/`, on nightly). Each used
//! to carry its own copy of what "broken" means, and the copies drifted: one
//! checked the URL's user info, fragment and query and the method, the
//! other did not, and both knew fewer writings of the credential than the
//! masker claims to hide. This crate is the one copy both use.
//!
//! It does not depend on the gateway. It judges plain data: a method, a
//! URL, headers as name and value pairs, body bytes, masked bytes, and the
//! credential and its [`Place`] described by its own types. So it cannot
//! agree with the gateway by sharing its code: the denied headers, the
//! credential's place and every writing of the credential are spelled out
//! here again, from the spec and the rules catalogue (`docs/rules.md`).
//!
//! What it holds:
//!
//! - [`writings`]: every way of writing the credential that the masker
//!   claims to hide, named one by one, for building the bodies the mask
//!   invariants are tried on;
//! - the request invariants ([`check_request`]): the credential in its
//!   place only, once, as the only value there; the base URL's scheme, host,
//!   port, user info and path kept, no dot segment after it, no fragment,
//!   the base URL's own query first; the operation's method; the gateway's
//!   own headers once each; no denied header from an argument; no CR, LF or
//!   NUL in a header; a JSON body only for an operation that takes one;
//! - the mask invariants: no writing whole in the text the masker kept
//!   ([`check_masked`]), no start of a writing left at a cut
//!   ([`check_nothing_partial`]), and a read budget that sees a writing
//!   whole past the cut ([`check_read_budget`]);
//! - the inputs both tests draw from: [`TRICKY_TEXTS`], [`CREDENTIALS`],
//!   and [`mixed`] writings of every secret ([`writings_and_mixes`]), with
//!   the hex digits' case mixed too;
//! - the helpers both tests need: [`find`], [`char_boundary_at_or_before`],
//!   [`basic_pair`], [`kept_pieces`].
//!
//! Each check returns a [`Violation`] naming the rule it breaks and the
//! evidence; each has an `assert_` twin that panics with that message, for
//! proptest and libFuzzer, which both report a panic with its input.
//!
//! # Example
//!
//! ```
//! use hosted_mcp_oracle::{check_masked, check_request, writings, Call, Place, Request};
//!
//! // A basic credential: the masker claims the credential, its base64 form
//! // and the password alone, each in every writing.
//! let writings = writings("ada:l0ve/lace", true);
//! assert!(writings.iter().any(|w| w.text == "l0ve\\/lace"));
//! assert!(writings.iter().any(|w| w.text == "YWRhOmwwdmUvbGFjZQ%3d%3d"));
//!
//! // A masker that hid only the plain form is caught.
//! let shown = "echo: [credential], YWRhOmwwdmUvbGFjZQ%3D%3D";
//! let violation = check_masked(shown.as_bytes(), &writings).unwrap_err();
//! assert!(violation.to_string().contains("survived masking"));
//!
//! // A request, as plain data, against what the call must produce.
//! let place = Place::Query("api_key".to_owned());
//! let call = Call {
//!     base: "https://api.example.com/v1?fixed=1",
//!     credential: "sk-live",
//!     place: Some(&place),
//!     tool: "listPets",
//!     method: "GET",
//!     content_type: None,
//!     accept: None,
//!     user_agent: None,
//!     also_denied: None,
//! };
//! let mut request = Request {
//!     method: "GET",
//!     url: "https://api.example.com/v1/pets?fixed=1&limit=2&api_key=sk-live",
//!     headers: vec![
//!         ("accept", b"application/json"),
//!         ("user-agent", b"hosted-mcp-gateway/0.1.0 (hosted-mcp)"),
//!         ("x-agentify-operation", b"listPets"),
//!     ],
//!     body: None,
//! };
//! assert_eq!(check_request(&request, &call), Ok(()));
//! // An argument that sets `Cookie` breaks TC-REQ-008.
//! request.headers.push(("cookie", b"session=1"));
//! assert!(check_request(&request, &call).unwrap_err().to_string().contains("TC-REQ-008"));
//! ```
//!
//! # Limits
//!
//! - It judges what was built, not how: a request is checked as sent, a
//!   masked text as shown. Whether a refused call should have been refused
//!   (a `..` path value, a header value with a newline) is the scenarios'
//!   business; here a refusal is always safe.
//! - It does not look for the credential's text outside its place: an
//!   agent may send that text in an argument itself, and the gateway
//!   forwards it as the agent's.
//! - The writings are the masker's claims (TC-MASK-006), listed whole, plus
//!   mixes of them character by character and hex digit by hex digit; it
//!   cannot list every mix. A writing the masker does not claim (`+` for a
//!   space, base64 of the credential alone, HTML entities) is not checked.
//! - Masked text is read between masks ([`kept_pieces`]): a credential that
//!   overlaps the mask's own text (`l]x` in `[credential]x`) is not "found"
//!   where nothing of the upstream's survived.
//! - A credential holding U+FFFD cannot be told from a stray byte decoded
//!   on the way to text; the tests do not generate one.
//! - The header lists are the spec's; the gateway's own, longer list can be
//!   added to them ([`Call::also_denied`]) but is not taken on trust.

macro_rules! ensure {
    ($condition:expr, $($message:tt)+) => {
        if !$condition {
            return Err($crate::Violation(format!($($message)+)));
        }
    };
}

mod generate;
mod mask;
mod place;
mod request;
mod violation;
mod writings;

pub use generate::{mixed, writings_and_mixes, CREDENTIALS, TRICKY_TEXTS};
pub use mask::{
    assert_masked, assert_nothing_partial, assert_read_budget, check_masked, check_nothing_partial,
    check_read_budget, find, kept_pieces, MASK,
};
pub use place::{basic_pair, Place};
pub use request::{
    assert_request_safe, check_request, slot, spec_denied, Call, Request, Slot, DENIED_HEADERS,
    DENIED_HEADER_PREFIXES, OPERATION_HEADER,
};
pub use violation::Violation;
pub use writings::{
    secrets, write, write_char, writings, Char, Rule, Secret, Writing, CHAR_WAYS, WAYS,
};

/// Where an answer is cut on a character boundary (TC-ANS-004): the
/// largest index at most `limit` that does not split a UTF-8 sequence,
/// looking back at most three bytes (past that the bytes are no UTF-8, and
/// the cut stays at `limit`). All of `bytes` when it is no longer than
/// `limit`.
pub fn char_boundary_at_or_before(bytes: &[u8], limit: usize) -> usize {
    if bytes.len() <= limit {
        return bytes.len();
    }
    let continuation = |at: usize| bytes.get(at).is_some_and(|b| b & 0xC0 == 0x80);
    let mut cut = limit;
    while cut > 0 && limit - cut < 3 && continuation(cut) {
        cut -= 1;
    }
    if continuation(cut) {
        limit
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cut_never_splits_a_character() {
        let text = "aé€😀".as_bytes();
        assert_eq!(char_boundary_at_or_before(text, 100), text.len());
        assert_eq!(char_boundary_at_or_before(text, 2), 1);
        assert_eq!(char_boundary_at_or_before(text, 5), 3);
        assert_eq!(char_boundary_at_or_before(text, 8), 6);
        // Four continuation bytes in a row are no UTF-8: cut at the limit.
        assert_eq!(
            char_boundary_at_or_before(&[b'a', 0x80, 0x80, 0x80, 0x80, 0x80], 5),
            5
        );
    }
}
