//! What the tests that hunt for broken promises (the property tests in
//! `reference/tests/properties.rs`, the fuzz targets in `fuzz/`) and the
//! harness's masking scenarios draw their inputs from, written once: texts
//! that have tripped gateways before, credentials whose characters have
//! writings of their own, and writings of every secret mixed at random.
//!
//! Nothing here draws at random itself: each generator takes `pick`, which
//! returns a number below the one it is given. A fuzz target passes its
//! `Unstructured`'s choices, a property test a list of numbers proptest
//! drew, so each keeps its own way of shrinking a failure.

use crate::writings::{
    recase_hex_letters, secrets, write_char, writings, Char, Writing, CHAR_WAYS,
};

/// Texts that have tripped gateways before: dot segments, encodings,
/// control characters, header names, dates, numbers, the credential's
/// neighbours.
pub const TRICKY_TEXTS: &[&str] = &[
    "",
    ".",
    "..",
    "%2e",
    "%2E%2e",
    ".%2e",
    "../..",
    "a/b",
    "/",
    "//evil.example",
    "?x=1",
    "#frag",
    "a b",
    "\r\nX-Injected: 1",
    "\n",
    "\0",
    "\t",
    "\u{7f}",
    "é",
    "ключ",
    "\u{1F511}",
    "\u{FFFD}",
    "\\",
    "%",
    "%00",
    "%0d%0a",
    "+",
    "=",
    "&",
    ",",
    "|",
    "[",
    "]",
    "{id}",
    "Authorization",
    "api_key",
    "X-Pet-Key",
    "x-agentify-operation",
    "Bearer x",
    "2024-02-29",
    "2023-02-29",
    "2024-02-29T13:45:00Z",
    "23:59:60Z",
    "a@b.example",
    "@",
    "123e4567-e89b-12d3-a456-426614174000",
    "0",
    "-1",
    "1e400",
    "true",
    "null",
    "[credential]",
];

/// Credentials with the characters that have writings of their own: `/`,
/// `+`, `=`, `:`, quotes, `%`, a space, letters beyond ASCII.
pub const CREDENTIALS: &[&str] = &[
    "sk-live-7f3a",
    "s3cr3t/+=&token",
    "ada:lovelace",
    "sk/\"live\"+42",
    "a b",
    "x",
    "%41",
    "ключ",
];

/// `secret` written character by character, each character a way `pick`
/// chooses from [`CHAR_WAYS`], and each hex digit of an escape in the case
/// `pick` chooses: a writing no list names, and every one the masker claims.
pub fn mixed(secret: &str, pick: &mut impl FnMut(usize) -> usize) -> String {
    let mut written = String::with_capacity(secret.len() * 6);
    for c in secret.chars() {
        let how = CHAR_WAYS[pick(CHAR_WAYS.len()) % CHAR_WAYS.len()];
        let from = written.len();
        write_char(c, how, &mut written);
        if escapes(how) {
            recase_hex_letters(&mut written, from, || pick(2) == 0);
        }
    }
    written
}

/// Whether `how` writes a character as escapes only (`%XX`, `\uXXXX`),
/// whose letters are then all hex digits, whose case may change (`u` has
/// none to lose: it is written lower case again below).
fn escapes(how: Char) -> bool {
    !matches!(how, Char::Plain | Char::JsonMinimal | Char::JsonSlash)
}

/// Every writing [`writings`] lists for `credential`, and for each of its
/// secrets (the credential; for basic authentication its base64 form and
/// the part secret alone) one more [`mixed`] by `pick`.
pub fn writings_and_mixes(
    credential: &str,
    basic: bool,
    pick: &mut impl FnMut(usize) -> usize,
) -> Vec<Writing> {
    let mut all = writings(credential, basic);
    for (secret, text) in secrets(credential, basic) {
        let text = mixed(&text, pick);
        if all.iter().all(|writing| writing.text != text) {
            all.push(Writing {
                secret,
                way: "mixed at random, character by character and hex digit by hex digit",
                text,
            });
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writings::Secret;

    /// A `pick` that returns the numbers of `choices` in turn, each below
    /// the bound it is asked for.
    fn picks(choices: &[usize]) -> impl FnMut(usize) -> usize + '_ {
        let mut next = choices.iter().cycle();
        move |below| next.next().copied().unwrap_or(0) % below
    }

    #[test]
    fn a_mix_picks_each_characters_way_and_each_hex_digits_case() {
        let way = |wanted: Char| {
            CHAR_WAYS
                .iter()
                .position(|&how| std::mem::discriminant(&how) == std::mem::discriminant(&wanted))
                .expect("a way of CHAR_WAYS")
        };
        // `é` percent-encoded with its digits' cases upper, lower ("%C3%a9"),
        // then `a` as itself, then `😀` as `\u` with cases lower, upper,
        // upper, lower ("\ud83D\uDe00").
        let choices = [
            way(Char::PercentUpper),
            1,
            0,
            way(Char::Plain),
            way(Char::UnicodeLower),
            0,
            1,
            1,
            0,
        ];
        assert_eq!(mixed("éa😀", &mut picks(&choices)), "%C3%a9a\\ud83D\\uDe00");
    }

    #[test]
    fn a_mix_never_recases_what_is_not_a_hex_digit() {
        // Every character as itself or JSON-escaped, whatever the cases.
        let plain = CHAR_WAYS
            .iter()
            .position(|how| matches!(how, Char::Plain))
            .expect("Plain is a way");
        assert_eq!(mixed("aBcD\\", &mut picks(&[plain])), "aBcD\\");
        // `\u` keeps its lower-case `u`.
        let unicode = CHAR_WAYS
            .iter()
            .position(|how| matches!(how, Char::UnicodeUpper))
            .expect("UnicodeUpper is a way");
        assert_eq!(mixed("z", &mut picks(&[unicode, 1])), "\\u007A");
    }

    #[test]
    fn every_secret_gets_a_mix() {
        let all = writings_and_mixes("ada:l0ve/lace", true, &mut picks(&[3, 1, 4, 1, 5, 9, 2, 6]));
        let listed = writings("ada:l0ve/lace", true).len();
        let mixes: Vec<Secret> = all[listed..].iter().map(|writing| writing.secret).collect();
        assert_eq!(mixes, [Secret::Credential, Secret::Base64, Secret::Alone]);
    }

    #[test]
    fn the_credentials_hold_no_replacement_character() {
        // A credential holding U+FFFD cannot be told from a stray byte.
        assert!(CREDENTIALS
            .iter()
            .all(|credential| !credential.contains('\u{FFFD}')));
    }
}
