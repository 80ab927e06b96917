//! Every writing of the credential the masker claims to hide (TC-MASK-001,
//! TC-MASK-006).
//!
//! The masker (`reference/src/answer/mask.rs`, `Masker::new`) claims:
//!
//! - the secrets: the credential; for basic authentication also the base64
//!   of its `user:password` pair (a credential without `:` gets an empty
//!   password first) and the part secret on its own, the password, or the
//!   user name when the password is empty; an empty credential is none;
//! - for each secret, each character written as itself, as a JSON escape
//!   (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\uXXXX` with hex
//!   digits of either case, a surrogate pair beyond the first plane), or
//!   percent-encoded (every byte of its UTF-8, hex digits of either case),
//!   each character independently of the others, so wholly or in part and
//!   mixed.
//!
//! Mixes cannot all be listed; [`WAYS`] lists the whole writings real
//! encoders produce and mixes that give every character every writing.

use std::fmt;
use std::fmt::Write as _;

use base64::Engine as _;
use percent_encoding::percent_encode_byte;

use crate::place::basic_pair;

/// Which secret a writing writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secret {
    /// The stored credential.
    Credential,
    /// For basic authentication: the base64 of the `user:password` pair,
    /// as the `Authorization` header carries it.
    Base64,
    /// For basic authentication: the part secret on its own, the password,
    /// or the user name when the password is empty.
    Alone,
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Secret::Credential => "the credential",
            Secret::Base64 => "the basic credential's base64",
            Secret::Alone => "the basic credential's password alone",
        })
    }
}

/// One writing of one secret, as it could come back from an upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writing {
    pub secret: Secret,
    /// How it is written: one of [`WAYS`]' names.
    pub way: &'static str,
    pub text: String,
}

impl fmt::Display for Writing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({:?})", self.secret, self.way, self.text)
    }
}

/// How one character is written.
#[derive(Debug, Clone, Copy)]
pub enum Char {
    /// As itself, in UTF-8.
    Plain,
    /// Every byte of its UTF-8 as `%XX`, upper-case hex.
    PercentUpper,
    /// Every byte of its UTF-8 as `%xx`, lower-case hex.
    PercentLower,
    /// As a JSON encoder writes it in a string: `\"`, `\\`, control
    /// characters escaped (`\n`, `\u001f`), anything else as itself.
    JsonMinimal,
    /// As [`Char::JsonMinimal`], but `/` as `\/` (PHP's `json_encode`).
    JsonSlash,
    /// `\uXXXX`, lower-case hex; a surrogate pair beyond the first plane.
    UnicodeLower,
    /// `\uXXXX`, upper-case hex; a surrogate pair beyond the first plane.
    UnicodeUpper,
    /// Every byte of its UTF-8 as `%XX`, the hex letters alternating in
    /// case from one to the next, the first lower (`%c3%A9`): one
    /// character's escapes need not agree on a case.
    PercentAlternating,
    /// `\uXXXX`, the hex letters alternating in case as in
    /// [`Char::PercentAlternating`] (`\u00aB`, `\ud83D\udE00`): nor need
    /// one escape's digits.
    UnicodeAlternating,
    /// `\uXXXX`; beyond the first plane a surrogate pair whose halves
    /// differ in case, the first upper (`\uD83D\ude00`).
    UnicodeHalves,
    /// The longest writing the masker claims for it: `\uXXXX` unless
    /// percent-encoding takes more bytes (three-byte characters). The sum
    /// over a secret is how far past a cut the masker must read.
    Widest,
}

/// Every way of writing one character, for writings mixed at random.
pub const CHAR_WAYS: [Char; 11] = [
    Char::Plain,
    Char::PercentUpper,
    Char::PercentLower,
    Char::JsonMinimal,
    Char::JsonSlash,
    Char::UnicodeLower,
    Char::UnicodeUpper,
    Char::PercentAlternating,
    Char::UnicodeAlternating,
    Char::UnicodeHalves,
    Char::Widest,
];

/// How a writing writes the character at an index (counted in characters).
pub type Rule = fn(usize, char) -> Char;

/// Characters RFC 3986 never needs to encode: letters, digits, `-._~`.
fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

/// The ways of writing a secret, each named, in the order [`writings`]
/// lists them.
pub const WAYS: &[(&str, Rule)] = &[
    // TC-MASK-001, TC-MASK-002, TC-MASK-003: the credential as sent.
    ("as stored", |_, _| Char::Plain),
    // TC-MASK-006, percent-encoded wholly, in either hex case.
    ("percent-encoded, every byte, upper-case hex", |_, _| {
        Char::PercentUpper
    }),
    ("percent-encoded, every byte, lower-case hex", |_, _| {
        Char::PercentLower
    }),
    // In part: what URL encoders write (JavaScript's encodeURIComponent
    // but for `!'()*`, Go's QueryEscape but for the space).
    (
        "percent-encoded but unreserved characters, upper-case hex",
        |_, c| {
            if unreserved(c) {
                Char::Plain
            } else {
                Char::PercentUpper
            }
        },
    ),
    (
        "percent-encoded but unreserved characters, lower-case hex",
        |_, c| {
            if unreserved(c) {
                Char::Plain
            } else {
                Char::PercentLower
            }
        },
    ),
    // Python's `urllib.parse.quote` keeps `/` by default.
    (
        "percent-encoded but unreserved characters and `/`",
        |_, c| {
            if unreserved(c) || c == '/' {
                Char::Plain
            } else {
                Char::PercentUpper
            }
        },
    ),
    (
        "percent-encoded, hex case changing from character to character",
        |index, _| {
            if index % 2 == 0 {
                Char::PercentUpper
            } else {
                Char::PercentLower
            }
        },
    ),
    // Hex case mixed inside one character's escapes.
    (
        "percent-encoded, hex case alternating inside each character",
        |_, _| Char::PercentAlternating,
    ),
    // TC-MASK-006, JSON-escaped.
    (
        "JSON-escaped as an encoder does (`\\\"`, `\\\\`, controls)",
        |_, _| Char::JsonMinimal,
    ),
    ("JSON-escaped with `/` as `\\/`", |_, _| Char::JsonSlash),
    (
        "JSON-escaped, every character `\\uxxxx` (lower-case hex)",
        |_, _| Char::UnicodeLower,
    ),
    (
        "JSON-escaped, every character `\\uXXXX` (upper-case hex)",
        |_, _| Char::UnicodeUpper,
    ),
    // Hex case mixed inside one escape, and across a surrogate pair.
    (
        "JSON-escaped `\\uXXXX`, hex case alternating inside each character",
        |_, _| Char::UnicodeAlternating,
    ),
    (
        "JSON-escaped `\\uXXXX`, a surrogate pair's halves in two cases",
        |_, _| Char::UnicodeHalves,
    ),
    // In part, as Gson writes `=` as `\u003d`.
    (
        "JSON-escaped, `\\uxxxx` but ASCII letters and digits",
        |_, c| {
            if c.is_ascii_alphanumeric() {
                Char::Plain
            } else {
                Char::UnicodeLower
            }
        },
    ),
    // Mixed: the masker matches character by character, so each character
    // may be written its own way. Four turns of one cycle give every
    // character every one of its four writings.
    (
        "mixed by character (as itself, `\\u`, `%XX`, `%xx`, ...)",
        |index, _| MIXED[index % 4],
    ),
    (
        "mixed by character (`\\u`, `%XX`, `%xx`, as itself, ...)",
        |index, _| MIXED[(index + 1) % 4],
    ),
    (
        "mixed by character (`%XX`, `%xx`, as itself, `\\u`, ...)",
        |index, _| MIXED[(index + 2) % 4],
    ),
    (
        "mixed by character (`%xx`, as itself, `\\u`, `%XX`, ...)",
        |index, _| MIXED[(index + 3) % 4],
    ),
    // The longest occurrence the masker must see whole past a cut.
    ("each character at its widest", |_, _| Char::Widest),
];

const MIXED: [Char; 4] = [
    Char::Plain,
    Char::UnicodeLower,
    Char::PercentUpper,
    Char::PercentLower,
];

/// The secrets the masker hides for `credential` (see the module's
/// documentation), distinct, the credential first. `basic` is whether the
/// credential goes as `Authorization: Basic`; none for an empty credential.
pub fn secrets(credential: &str, basic: bool) -> Vec<(Secret, String)> {
    if credential.is_empty() {
        return Vec::new();
    }
    let mut secrets = vec![(Secret::Credential, credential.to_owned())];
    if basic {
        let pair = basic_pair(credential);
        secrets.push((
            Secret::Base64,
            base64::engine::general_purpose::STANDARD.encode(&pair),
        ));
        if let Some((user, password)) = pair.split_once(':') {
            let alone = if password.is_empty() { user } else { password };
            if !alone.is_empty() {
                secrets.push((Secret::Alone, alone.to_owned()));
            }
        }
    }
    let mut distinct: Vec<(Secret, String)> = Vec::with_capacity(secrets.len());
    for (secret, text) in secrets {
        if !distinct.iter().any(|(_, seen)| *seen == text) {
            distinct.push((secret, text));
        }
    }
    distinct
}

/// Every writing of every secret of `credential` that the masker claims to
/// hide: each of [`secrets`] in each of [`WAYS`], distinct texts only (the
/// first name kept). Empty for an empty credential.
pub fn writings(credential: &str, basic: bool) -> Vec<Writing> {
    let mut writings: Vec<Writing> = Vec::new();
    for (secret, text) in secrets(credential, basic) {
        for &(way, rule) in WAYS {
            let written = write(&text, rule);
            if !writings.iter().any(|writing| writing.text == written) {
                writings.push(Writing {
                    secret,
                    way,
                    text: written,
                });
            }
        }
    }
    writings
}

/// `secret` written by `rule`, character by character.
pub fn write(secret: &str, rule: Rule) -> String {
    let mut written = String::with_capacity(secret.len() * 6);
    for (index, c) in secret.chars().enumerate() {
        write_char(c, rule(index, c), &mut written);
    }
    written
}

/// Appends `c` written `how`.
pub fn write_char(c: char, how: Char, out: &mut String) {
    let mut utf8 = [0; 4];
    let bytes = c.encode_utf8(&mut utf8).as_bytes();
    match how {
        Char::Plain => out.push(c),
        Char::PercentUpper => {
            for &byte in bytes {
                out.push_str(percent_encode_byte(byte));
            }
        }
        Char::PercentLower => {
            for &byte in bytes {
                out.push_str(&percent_encode_byte(byte).to_ascii_lowercase());
            }
        }
        Char::JsonMinimal => {
            let quoted = serde_json::Value::from(c.to_string()).to_string();
            out.push_str(&quoted[1..quoted.len() - 1]);
        }
        Char::JsonSlash if c == '/' => out.push_str("\\/"),
        Char::JsonSlash => write_char(c, Char::JsonMinimal, out),
        Char::UnicodeLower => {
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
        Char::UnicodeUpper => {
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04X}");
            }
        }
        Char::PercentAlternating => {
            let from = out.len();
            write_char(c, Char::PercentUpper, out);
            alternate_hex_case(out, from);
        }
        Char::UnicodeAlternating => {
            let from = out.len();
            write_char(c, Char::UnicodeUpper, out);
            alternate_hex_case(out, from);
        }
        Char::UnicodeHalves => {
            let mut buffer = [0; 2];
            let mut units = c.encode_utf16(&mut buffer).iter();
            if let Some(high) = units.next() {
                let _ = write!(out, "\\u{high:04X}");
            }
            for low in units {
                let _ = write!(out, "\\u{low:04x}");
            }
        }
        Char::Widest if 3 * c.len_utf8() > 6 * c.len_utf16() => {
            write_char(c, Char::PercentUpper, out);
        }
        Char::Widest => write_char(c, Char::UnicodeUpper, out),
    }
}

/// Turns the hex letters of the escapes written from `from` on to lower,
/// upper, lower, ... case.
fn alternate_hex_case(out: &mut String, from: usize) {
    let mut lower = false;
    recase_hex_letters(out, from, || {
        lower = !lower;
        lower
    });
}

/// Writes each hex letter from `from` on in lower case when `lower()` says
/// so, else upper. Only for escapes: their only letters `a`-`f` are hex
/// digits (`u` and `%` are neither).
pub(crate) fn recase_hex_letters(out: &mut String, from: usize, mut lower: impl FnMut() -> bool) {
    let recased: String = out[from..]
        .chars()
        .map(|c| match c.is_ascii_hexdigit() && c.is_ascii_alphabetic() {
            false => c,
            true if lower() => c.to_ascii_lowercase(),
            true => c.to_ascii_uppercase(),
        })
        .collect();
    out.replace_range(from.., &recased);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn way(name: &str) -> Rule {
        WAYS.iter()
            .find(|(way, _)| *way == name)
            .map(|&(_, rule)| rule)
            .unwrap_or_else(|| panic!("no way named {name}"))
    }

    #[test]
    fn each_way_writes_as_named() {
        let secret = "a/\"é=😀";
        let cases = [
            ("as stored", "a/\"é=😀"),
            (
                "percent-encoded, every byte, upper-case hex",
                "%61%2F%22%C3%A9%3D%F0%9F%98%80",
            ),
            (
                "percent-encoded, every byte, lower-case hex",
                "%61%2f%22%c3%a9%3d%f0%9f%98%80",
            ),
            (
                "percent-encoded but unreserved characters, upper-case hex",
                "a%2F%22%C3%A9%3D%F0%9F%98%80",
            ),
            (
                "percent-encoded but unreserved characters, lower-case hex",
                "a%2f%22%c3%a9%3d%f0%9f%98%80",
            ),
            (
                "percent-encoded but unreserved characters and `/`",
                "a/%22%C3%A9%3D%F0%9F%98%80",
            ),
            (
                "percent-encoded, hex case changing from character to character",
                "%61%2f%22%c3%a9%3D%f0%9f%98%80",
            ),
            (
                "percent-encoded, hex case alternating inside each character",
                "%61%2f%22%c3%A9%3d%f0%9F%98%80",
            ),
            (
                "JSON-escaped as an encoder does (`\\\"`, `\\\\`, controls)",
                "a/\\\"é=😀",
            ),
            ("JSON-escaped with `/` as `\\/`", "a\\/\\\"é=😀"),
            (
                "JSON-escaped, every character `\\uxxxx` (lower-case hex)",
                "\\u0061\\u002f\\u0022\\u00e9\\u003d\\ud83d\\ude00",
            ),
            (
                "JSON-escaped, every character `\\uXXXX` (upper-case hex)",
                "\\u0061\\u002F\\u0022\\u00E9\\u003D\\uD83D\\uDE00",
            ),
            (
                "JSON-escaped `\\uXXXX`, hex case alternating inside each character",
                "\\u0061\\u002f\\u0022\\u00e9\\u003d\\ud83D\\udE00",
            ),
            (
                "JSON-escaped `\\uXXXX`, a surrogate pair's halves in two cases",
                "\\u0061\\u002F\\u0022\\u00E9\\u003D\\uD83D\\ude00",
            ),
            (
                "JSON-escaped, `\\uxxxx` but ASCII letters and digits",
                "a\\u002f\\u0022\\u00e9\\u003d\\ud83d\\ude00",
            ),
            (
                "mixed by character (as itself, `\\u`, `%XX`, `%xx`, ...)",
                "a\\u002f%22%c3%a9=\\ud83d\\ude00",
            ),
            (
                "mixed by character (`\\u`, `%XX`, `%xx`, as itself, ...)",
                "\\u0061%2F%22é\\u003d%F0%9F%98%80",
            ),
            (
                "mixed by character (`%XX`, `%xx`, as itself, `\\u`, ...)",
                "%61%2f\"\\u00e9%3D%f0%9f%98%80",
            ),
            (
                "mixed by character (`%xx`, as itself, `\\u`, `%XX`, ...)",
                "%61/\\u0022%C3%A9%3d😀",
            ),
            (
                "each character at its widest",
                "\\u0061\\u002F\\u0022\\u00E9\\u003D\\uD83D\\uDE00",
            ),
        ];
        assert_eq!(cases.len(), WAYS.len(), "every way is tried");
        for (name, expected) in cases {
            assert_eq!(write(secret, way(name)), expected, "{name}");
        }
    }

    #[test]
    fn short_escapes_and_wide_characters() {
        assert_eq!(
            write(
                "\\\n\u{1}",
                way("JSON-escaped as an encoder does (`\\\"`, `\\\\`, controls)")
            ),
            "\\\\\\n\\u0001"
        );
        // A three-byte character is widest percent-encoded.
        assert_eq!(write("€", way("each character at its widest")), "%E2%82%AC");
    }

    #[test]
    fn a_basic_credential_has_three_secrets() {
        let basic = secrets("ada:l0ve/lace", true);
        assert_eq!(
            basic,
            [
                (Secret::Credential, "ada:l0ve/lace".to_owned()),
                (Secret::Base64, "YWRhOmwwdmUvbGFjZQ==".to_owned()),
                (Secret::Alone, "l0ve/lace".to_owned()),
            ]
        );
        // The key as the user name: the base64 of `key:`, and the key.
        assert_eq!(
            secrets_of("sk_live_42", true),
            [
                (Secret::Credential, "sk_live_42"),
                (Secret::Base64, "c2tfbGl2ZV80Mjo=")
            ]
        );
        assert_eq!(
            secrets_of("sk_live_42:", true),
            [
                (Secret::Credential, "sk_live_42:"),
                (Secret::Base64, "c2tfbGl2ZV80Mjo="),
                (Secret::Alone, "sk_live_42")
            ]
        );
        assert_eq!(
            secrets_of(":", true),
            [(Secret::Credential, ":"), (Secret::Base64, "Og==")]
        );
        assert_eq!(
            secrets_of("ada:s3cret", false),
            [(Secret::Credential, "ada:s3cret")]
        );
        assert!(secrets("", true).is_empty());
        assert!(writings("", true).is_empty());
    }

    fn secrets_of(credential: &str, basic: bool) -> Vec<(Secret, &'static str)> {
        secrets(credential, basic)
            .into_iter()
            .map(|(secret, text)| (secret, &*text.leak()))
            .collect()
    }

    #[test]
    fn writings_are_distinct_and_name_their_secret() {
        let all = writings("ada:l0ve/lace", true);
        for (index, writing) in all.iter().enumerate() {
            assert!(all[..index].iter().all(|seen| seen.text != writing.text));
        }
        let alone = all
            .iter()
            .find(|writing| writing.text == "l0ve\\/lace")
            .expect("the password with `\\/`");
        assert_eq!(alone.secret, Secret::Alone);
        assert_eq!(
            alone.to_string(),
            "the basic credential's password alone JSON-escaped with `/` as `\\/` (\"l0ve\\\\/lace\")"
        );
        // Lower-case letters: hex digits have no case, and every way that
        // keeps letters writes them as stored. Left: as stored, `%XX`,
        // `\\uXXXX` and the four mixes.
        assert_eq!(writings("abc", false).len(), 7);
    }
}
