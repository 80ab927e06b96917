//! Replacing the credential in everything that goes back to the agent.
//!
//! Rules (see `docs/rules.md`): TC-MASK-004, TC-MASK-005 and TC-MASK-006 are
//! decided here. TC-MASK-001, TC-MASK-002 and TC-MASK-003 are decided where
//! the answer is read (`answer.rs`), TC-MASK-007 where the gateway writes its
//! own texts (`gateway.rs`).
//!
//! A credential can come back written in many ways: as sent, percent-encoded
//! (in either hex case, and often only in part: Python's `quote` keeps `/`),
//! JSON-escaped (`\"`, `\/`, `\u002B`, or only some characters escaped, as
//! Gson does for `=`). Listing whole forms would miss the mixed ones, so the
//! masker matches the credential one character at a time, each character
//! written as itself, as a JSON escape, or percent-encoded. For basic
//! authentication the base64 form and the password alone are hidden too.

use std::fmt;

use base64::Engine as _;
use memchr::memmem::Finder;

use crate::convert::{basic_pair, CredentialPlacement};

/// What the agent sees instead of the credential.
pub const MASK: &str = "[credential]";

/// Finds the credential, in each way it can be written, and hides it.
#[derive(Clone, Default)]
pub struct Masker {
    /// The secrets to hide: the credential and, for basic authentication, its
    /// base64 form and the password alone. Distinct, longest first.
    secrets: Vec<Secret>,
}

/// One secret, matched character by character.
#[derive(Clone)]
struct Secret {
    chars: Vec<char>,
    /// The secret as written, found fast by a substring searcher, since most
    /// echoes are plain.
    plain: Finder<'static>,
    /// The most bytes one occurrence can take, each character at its widest.
    widest: usize,
}

/// The secrets are the credential: only their count is shown.
impl fmt::Debug for Masker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Masker")
            .field("secrets", &self.secrets.len())
            .finish_non_exhaustive()
    }
}

impl Masker {
    /// Masks the credential in every writing [`Secret`] knows, and for basic
    /// authentication its base64 form and the password on its own (TC-MASK-006).
    /// An absent or empty credential masks nothing.
    pub fn new(credential: Option<&str>, placement: Option<&CredentialPlacement>) -> Masker {
        Masker::of(credential.map(|credential| secret_forms(credential, placement)))
    }

    /// Masks each of `secrets` (forms of credentials, as [`secret_forms`]
    /// gives them), in every writing: a gateway that holds several stored
    /// credentials masks all of them in every answer.
    pub fn of(secrets: impl IntoIterator<Item = Vec<String>>) -> Masker {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .flatten()
            .filter(|secret| !secret.is_empty())
            .collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        Masker {
            secrets: secrets.iter().map(|secret| Secret::new(secret)).collect(),
        }
    }

    /// How many bytes past a cut must be read so a credential that starts
    /// before the cut is seen whole.
    pub fn longest_form(&self) -> usize {
        self.secrets
            .iter()
            .map(|secret| secret.widest)
            .max()
            .unwrap_or(0)
    }

    /// Masks a whole text.
    pub fn mask(&self, text: &str) -> String {
        if self.secrets.is_empty() {
            return text.to_owned();
        }
        // Every occurrence is made of whole characters, so in valid UTF-8 it
        // starts and ends on character boundaries and the text can be copied
        // as `str` slices. Should a slice not fall on one, the byte path decides.
        let mut masked = String::with_capacity(text.len());
        let mut copied = 0;
        for (start, end) in self.matches(text.as_bytes(), text.len()) {
            let Some(before) = text.get(copied..start) else {
                return self.mask_bytes(text);
            };
            masked.push_str(before);
            masked.push_str(MASK);
            copied = end;
        }
        match text.get(copied..) {
            Some(rest) => masked.push_str(rest),
            None => return self.mask_bytes(text),
        }
        masked
    }

    fn mask_bytes(&self, text: &str) -> String {
        String::from_utf8_lossy(&self.mask_until(text.as_bytes(), text.len())).into_owned()
    }

    /// Masks `bytes` and keeps what starts before `cut`: a credential that
    /// starts before the cut and ends after it is masked whole, so no part of
    /// it is left at the cut (TC-MASK-005). Masking works on the collected
    /// bytes, so where the network split them does not matter (TC-MASK-004).
    /// Masking keeps valid UTF-8 valid.
    pub fn mask_until(&self, bytes: &[u8], cut: usize) -> Vec<u8> {
        let cut = cut.min(bytes.len());
        let mut masked = Vec::with_capacity(cut);
        let mut copied = 0;
        for (start, end) in self.matches(bytes, cut) {
            masked.extend_from_slice(&bytes[copied..start]);
            masked.extend_from_slice(MASK.as_bytes());
            copied = end;
        }
        if copied < cut {
            masked.extend_from_slice(&bytes[copied..cut]);
        }
        masked
    }

    /// The occurrences that start before `cut`, left to right, none
    /// overlapping the one before: where several start at the same place the
    /// longest wins, and the next is looked for after it.
    ///
    /// An occurrence is either written plainly, which the substring searchers
    /// find, or holds a `\` or `%`. In the second case the bytes before its
    /// first `\` or `%` are a plain beginning of the secret, so each `\` and
    /// `%` in the text names the few places such an occurrence can start.
    fn matches(&self, bytes: &[u8], cut: usize) -> Vec<(usize, usize)> {
        let cut = cut.min(bytes.len());
        let mut starts = Vec::new();
        for secret in &self.secrets {
            secret.plain_starts(bytes, cut, &mut starts);
        }
        // An occurrence that starts before the cut may hold its first escape
        // after it.
        let reach_past_cut = (cut + self.longest_form()).min(bytes.len());
        for escape in memchr::memchr2_iter(b'\\', b'%', &bytes[..reach_past_cut]) {
            for secret in &self.secrets {
                secret.starts_before_escape(bytes, escape, &mut starts);
            }
        }
        starts.retain(|&start| start < cut);
        starts.sort_unstable();
        starts.dedup();
        let mut reach = Reach::default();
        let mut found = Vec::new();
        let mut position = 0;
        for start in starts {
            if start < position {
                continue;
            }
            // Secrets are longest first, but an escaped shorter secret can
            // still run further: every secret is tried.
            let end = self
                .secrets
                .iter()
                .filter_map(|secret| secret.match_at(bytes, start, &mut reach))
                .max();
            if let Some(end) = end {
                found.push((start, end));
                position = end;
            }
        }
        found
    }
}

/// What of a credential is secret: the credential, and for basic
/// authentication its base64 form and the password alone (TC-MASK-006).
/// None for an empty credential.
pub fn secret_forms(credential: &str, placement: Option<&CredentialPlacement>) -> Vec<String> {
    if credential.is_empty() {
        return Vec::new();
    }
    let mut secrets = vec![credential.to_owned()];
    if placement == Some(&CredentialPlacement::Basic) {
        let pair = basic_pair(credential);
        secrets.push(base64::engine::general_purpose::STANDARD.encode(pair.as_ref()));
        secrets.extend(basic_secret_part(&pair).map(str::to_owned));
    }
    secrets
}

/// For basic authentication (`user:password`), the part that is secret on
/// its own: the password, or the user name when the password is empty, as
/// APIs that take a key as the user name ask for.
fn basic_secret_part(credential: &str) -> Option<&str> {
    let (user, password) = credential.split_once(':')?;
    Some(if password.is_empty() { user } else { password }).filter(|part| !part.is_empty())
}

impl Secret {
    fn new(secret: &str) -> Secret {
        Secret {
            chars: secret.chars().collect(),
            plain: Finder::new(secret.as_bytes()).into_owned(),
            widest: secret.chars().map(widest_writing).sum(),
        }
    }

    /// Every start of the plain secret before `cut`, overlapping ones too:
    /// an earlier occurrence of another secret may end inside one of them.
    fn plain_starts(&self, bytes: &[u8], cut: usize, starts: &mut Vec<usize>) {
        let length = self.plain.needle().len();
        let end = (cut + length).saturating_sub(1).min(bytes.len());
        let mut from = 0;
        while let Some(offset) = bytes.get(from..end).and_then(|hay| self.plain.find(hay)) {
            starts.push(from + offset);
            from += offset + 1;
        }
    }

    /// Where an occurrence whose first `\` or `%` is at `escape` can start:
    /// at `escape` itself, or where the plain bytes before it are the
    /// secret's first characters.
    fn starts_before_escape(&self, bytes: &[u8], escape: usize, starts: &mut Vec<usize>) {
        let plain = self.plain.needle();
        starts.push(escape);
        let mut prefix = 0;
        for c in &self.chars[..self.chars.len().saturating_sub(1)] {
            prefix += c.len_utf8();
            let Some(start) = escape.checked_sub(prefix) else {
                break;
            };
            // The byte just before the escape rules out most places at once.
            if bytes[escape - 1] == plain[prefix - 1] && bytes[start..escape] == plain[..prefix] {
                starts.push(start);
            }
        }
    }

    /// Where an occurrence starting at `start` ends, the furthest when the
    /// text can be read in several ways (a `%` in the secret matches both `%`
    /// and `%25`); `None` when none starts there.
    fn match_at(&self, bytes: &[u8], start: usize, reach: &mut Reach) -> Option<usize> {
        reach.now.clear();
        reach.now.push(start);
        for &c in &self.chars {
            reach.next.clear();
            for &at in &reach.now {
                for end in writings(c, bytes, at).into_iter().flatten() {
                    if !reach.next.contains(&end) {
                        reach.next.push(end);
                    }
                }
            }
            if reach.next.is_empty() {
                return None;
            }
            std::mem::swap(&mut reach.now, &mut reach.next);
        }
        reach.now.iter().copied().max()
    }
}

/// The offsets a partial match can have reached, kept between attempts so
/// matching allocates once per text.
#[derive(Default)]
struct Reach {
    now: Vec<usize>,
    next: Vec<usize>,
}

/// TC-MASK-006: where `c` ends when written at `at`: as itself, as a JSON
/// escape, or percent-encoded (either hex case).
fn writings(c: char, bytes: &[u8], at: usize) -> [Option<usize>; 3] {
    let mut utf8 = [0; 4];
    let plain = c.encode_utf8(&mut utf8).as_bytes();
    let rest = bytes.get(at..).unwrap_or_default();
    [
        rest.starts_with(plain).then_some(at + plain.len()),
        json_escape(rest)
            .filter(|&(escaped, _)| escaped == c)
            .map(|(_, used)| at + used),
        percent_encoded(plain, rest).then_some(at + 3 * plain.len()),
    ]
}

/// The character a JSON escape at the start of `text` stands for, and the
/// bytes it takes: `\n`, `\/`, `\u00e9`, or a surrogate pair `\ud83d\ude00`.
fn json_escape(text: &[u8]) -> Option<(char, usize)> {
    let (&b'\\', rest) = text.split_first()? else {
        return None;
    };
    let simple = match rest.first()? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex_unit(rest.get(1..5)?)?;
            if !(0xD800..0xDC00).contains(&unit) {
                return Some((char::from_u32(unit)?, 6));
            }
            let low = match text.get(6..12)? {
                [b'\\', b'u', digits @ ..] => hex_unit(digits)?,
                _ => return None,
            };
            if !(0xDC00..0xE000).contains(&low) {
                return None;
            }
            let pair = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            return Some((char::from_u32(pair)?, 12));
        }
        _ => return None,
    };
    Some((simple, 2))
}

/// Four hex digits, either case.
fn hex_unit(digits: &[u8]) -> Option<u32> {
    let [a, b, c, d] = digits else {
        return None;
    };
    [a, b, c, d]
        .into_iter()
        .try_fold(0, |unit, &digit| Some(unit << 4 | hex_digit(digit)?))
}

/// One hex digit, either case (`from_str_radix` would also take a sign).
fn hex_digit(digit: u8) -> Option<u32> {
    char::from(digit).to_digit(16)
}

/// Whether `text` starts with `%XX` for each byte of `plain`, either hex case.
fn percent_encoded(plain: &[u8], text: &[u8]) -> bool {
    text.len() >= 3 * plain.len()
        && plain
            .iter()
            .zip(text.chunks_exact(3))
            .all(|(&byte, written)| match *written {
                [b'%', high, low] => {
                    hex_digit(high).zip(hex_digit(low))
                        == Some((u32::from(byte >> 4), u32::from(byte & 15)))
                }
                _ => false,
            })
}

/// The most bytes `c` can take: percent-encoded, or a JSON `\u` escape
/// (a surrogate pair beyond the first plane).
fn widest_writing(c: char) -> usize {
    let escaped = if c.len_utf16() == 2 { 12 } else { 6 };
    (3 * c.len_utf8()).max(escaped)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const SECRET: &str = "sk/\"live\"+42=é";

    fn masker() -> Masker {
        Masker::new(Some(SECRET), Some(&CredentialPlacement::Bearer))
    }

    #[rstest]
    #[case::raw("token sk/\"live\"+42=é echoed", "token [credential] echoed")]
    #[case::twice("sk/\"live\"+42=ésk/\"live\"+42=é", "[credential][credential]")]
    #[case::percent_upper("?key=sk%2F%22live%22%2B42%3D%C3%A9&x", "?key=[credential]&x")]
    #[case::percent_lower("?key=sk%2f%22live%22%2b42%3d%c3%a9&x", "?key=[credential]&x")]
    #[case::percent_mixed_case("?key=sk%2f%22live%22%2B42%3d%C3%a9&x", "?key=[credential]&x")]
    #[case::percent_slash_kept("?key=sk/%22live%22%2B42%3D%C3%A9&x", "?key=[credential]&x")]
    #[case::json_escaped("{\"echo\":\"sk/\\\"live\\\"+42=é\"}", "{\"echo\":\"[credential]\"}")]
    #[case::json_slash("{\"echo\":\"sk\\/\\\"live\\\"+42=é\"}", "{\"echo\":\"[credential]\"}")]
    #[case::json_unicode_some(
        "\"sk/\\u0022live\\u0022\\u002b42\\u003D\\u00e9\"",
        "\"[credential]\""
    )]
    #[case::json_unicode_all(
        "\"\\u0073\\u006B\\u002F\\u0022\\u006c\\u0069\\u0076\\u0065\\u0022\\u002b\\u0034\\u0032\\u003d\\u00E9\"",
        "\"[credential]\""
    )]
    #[case::prefix_only("sk/\"live", "sk/\"live")]
    #[case::escape_breaks_off("sk\\/\\\"liv", "sk\\/\\\"liv")]
    #[case::wrong_character_escaped("sk/\"live\"+42=\\u00e8", "sk/\"live\"+42=\\u00e8")]
    #[case::unrelated("nothing here", "nothing here")]
    fn every_writing_is_masked(#[case] text: &str, #[case] expected: &str) {
        assert_eq!(masker().mask(text), expected);
    }

    #[test]
    fn characters_beyond_the_first_plane_match_as_surrogate_pairs() {
        let masker = Masker::new(Some("key😀"), None);
        assert_eq!(masker.mask("a key\\ud83d\\ude00 b"), "a [credential] b");
        assert_eq!(masker.mask("a key\\uD83D\\uDE00 b"), "a [credential] b");
        assert_eq!(masker.mask("a key%F0%9F%98%80 b"), "a [credential] b");
        // A high surrogate with no low one after it is no character.
        assert_eq!(masker.mask("key\\ud83d\\u0041"), "key\\ud83d\\u0041");
        assert_eq!(masker.longest_form(), 3 * 6 + 12);
    }

    #[test]
    fn hex_digits_take_no_sign() {
        let masker = Masker::new(Some("A"), None);
        assert_eq!(
            masker.mask("\\u+041 %+41 \\u0041 %41"),
            "\\u+041 %+41 [credential] [credential]"
        );
    }

    #[test]
    fn basic_credentials_are_masked_in_base64_and_by_their_password() {
        let masker = Masker::new(Some("ada:l0ve/lace"), Some(&CredentialPlacement::Basic));
        assert_eq!(
            masker.mask("Basic YWRhOmwwdmUvbGFjZQ== and ada:l0ve/lace and l0ve\\/lace, YWRhOmwwdmUvbGFjZQ%3D%3D"),
            "Basic [credential] and [credential] and [credential], [credential]"
        );
    }

    #[test]
    fn a_basic_credential_without_a_colon_is_masked_in_the_base64_that_was_sent() {
        // Sent as base64("sk_live_42:"), the key being the user name.
        let masker = Masker::new(Some("sk_live_42"), Some(&CredentialPlacement::Basic));
        assert_eq!(
            masker.mask("Basic c2tfbGl2ZV80Mjo= and sk_live_42"),
            "Basic [credential] and [credential]"
        );
    }

    #[rstest]
    #[case::password("ada:s3cret", "ada s3cret", "ada [credential]")]
    #[case::key_as_user("sk_live_42:", "sk_live_42 charged", "[credential] charged")]
    #[case::no_colon("justakey", "justakey", "[credential]")]
    fn the_secret_part_of_a_basic_credential_is_masked_alone(
        #[case] credential: &str,
        #[case] text: &str,
        #[case] expected: &str,
    ) {
        let masker = Masker::new(Some(credential), Some(&CredentialPlacement::Basic));
        assert_eq!(masker.mask(text), expected);
    }

    #[test]
    fn the_password_alone_is_masked_for_basic_credentials_only() {
        let masker = Masker::new(Some("ada:s3cret"), Some(&CredentialPlacement::Bearer));
        assert_eq!(masker.mask("s3cret"), "s3cret");
    }

    #[test]
    fn empty_or_absent_credential_masks_nothing() {
        for masker in [Masker::new(Some(""), None), Masker::new(None, None)] {
            assert_eq!(masker.mask("any text"), "any text");
            assert_eq!(masker.longest_form(), 0);
        }
    }

    #[test]
    fn a_credential_straddling_the_cut_is_masked_whole() {
        let masker = Masker::new(Some("SECRET"), None);
        let bytes = b"abcdSECRETxyz";
        assert_eq!(masker.mask_until(bytes, 6), b"abcd[credential]");
        assert_eq!(masker.mask_until(bytes, 4), b"abcd");
        // Its first escape may come after the cut too.
        let escaped = b"abcdSECR\\u0045Txyz";
        assert_eq!(masker.mask_until(escaped, 5), b"abcd[credential]");
    }

    /// The masking spelled out: at each byte, the furthest-reaching
    /// occurrence of any secret that starts there, else the byte itself.
    /// The search from plain matches and escapes must agree with it.
    fn byte_by_byte(masker: &Masker, bytes: &[u8], cut: usize) -> Vec<u8> {
        let cut = cut.min(bytes.len());
        let mut reach = Reach::default();
        let mut masked = Vec::new();
        let mut position = 0;
        while position < cut {
            let end = masker
                .secrets
                .iter()
                .filter_map(|secret| secret.match_at(bytes, position, &mut reach))
                .max();
            match end {
                Some(end) => {
                    masked.extend_from_slice(MASK.as_bytes());
                    position = end;
                }
                None => {
                    masked.push(bytes[position]);
                    position += 1;
                }
            }
        }
        masked
    }

    #[test]
    fn searching_masks_exactly_as_stepping_byte_by_byte() {
        let maskers = [
            // Writings sharing their ends: a"a, a%22a and a\"a.
            Masker::new(Some("a\"a"), None),
            // Secrets that overlap themselves.
            Masker::new(Some("aba"), None),
            Masker::new(Some("aa"), None),
            // Plain, escaped, base64 (YTph) and the password alone.
            Masker::new(Some("a:a"), Some(&CredentialPlacement::Basic)),
            Masker::new(Some("é/é"), None),
            // The plain x\ begins the escaped x\\.
            Masker::new(Some("x\\"), None),
            // A % matches both itself and %25.
            Masker::new(Some("%2%"), None),
        ];
        let alphabet: &[u8] = b"a\"%22\\b:YTphe/\xc3\xa9x5Cu0061";
        let mut seed: u32 = 0x2545_f491;
        for masker in &maskers {
            for length in 0..40 {
                for _ in 0..25 {
                    let bytes: Vec<u8> = (0..length)
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 17;
                            seed ^= seed << 5;
                            alphabet[seed as usize % alphabet.len()]
                        })
                        .collect();
                    for cut in 0..=length + 1 {
                        assert_eq!(
                            masker.mask_until(&bytes, cut),
                            byte_by_byte(masker, &bytes, cut),
                            "{:?} cut at {cut}",
                            String::from_utf8_lossy(&bytes)
                        );
                    }
                    if let Ok(text) = std::str::from_utf8(&bytes) {
                        let expected = byte_by_byte(masker, &bytes, bytes.len());
                        assert_eq!(masker.mask(text).into_bytes(), expected, "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn multi_byte_credentials_keep_text_valid() {
        let masker = Masker::new(Some("ключ"), None);
        assert_eq!(masker.mask("a ключ b"), "a [credential] b");
        assert_eq!(
            masker.mask("a %D0%BA%D0%BB%D1%8E%D1%87 b"),
            "a [credential] b"
        );
    }
}
