//! Replacing the credential in everything that goes back to the agent.
//!
//! Rules: TC-MASK-001 … TC-MASK-007 (see `docs/rules.md`).

use std::fmt;

use base64::Engine as _;
use memchr::memmem::Finder;

use crate::convert::CredentialPlacement;
use crate::request::encode_component;

/// What the agent sees instead of the credential.
pub const MASK: &str = "[credential]";

/// Finds the credential, in each form it can come back in, and hides it.
#[derive(Clone, Default)]
pub struct Masker {
    /// Distinct forms, longest first, so a form that contains another wins.
    forms: Vec<Vec<u8>>,
    /// One substring searcher per form, in the same order, built once here
    /// rather than on every answer.
    finders: Vec<Finder<'static>>,
}

/// The forms are the credential itself: only their count is shown.
impl fmt::Debug for Masker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Masker")
            .field("forms", &self.forms.len())
            .finish_non_exhaustive()
    }
}

impl Masker {
    /// Masks the credential as sent and, beyond that, its percent-encoded
    /// and JSON-escaped forms and, for basic authentication, its base64 form
    /// (TC-MASK-006). An absent or empty credential masks nothing.
    pub fn new(credential: Option<&str>, placement: Option<&CredentialPlacement>) -> Masker {
        let Some(secret) = credential.filter(|secret| !secret.is_empty()) else {
            return Masker::default();
        };
        let json_escaped = serde_json::to_string(secret).unwrap_or_default();
        let json_escaped = json_escaped
            .strip_prefix('"')
            .and_then(|inner| inner.strip_suffix('"'))
            .unwrap_or(secret)
            .to_owned();
        let mut forms = vec![secret.to_owned(), encode_component(secret), json_escaped];
        if placement == Some(&CredentialPlacement::Basic) {
            forms.push(base64::engine::general_purpose::STANDARD.encode(secret));
        }
        let mut forms: Vec<Vec<u8>> = forms.into_iter().map(String::into_bytes).collect();
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        forms.dedup();
        let finders = forms
            .iter()
            .map(|form| Finder::new(form).into_owned())
            .collect();
        Masker { forms, finders }
    }

    /// How many bytes past a cut must be read so a credential that starts
    /// before the cut is seen whole.
    pub fn longest_form(&self) -> usize {
        self.forms.first().map_or(0, Vec::len)
    }

    /// Masks a whole text.
    pub fn mask(&self, text: &str) -> String {
        if self.forms.is_empty() {
            return text.to_owned();
        }
        // Every form is valid UTF-8, so in valid UTF-8 a match starts and ends
        // on character boundaries and the text can be copied as `str` slices.
        // Should a slice not fall on a boundary, the byte path decides.
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
    /// Masking a form that is valid UTF-8 keeps valid UTF-8 valid.
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

    /// The credential's occurrences that start before `cut`, left to right,
    /// none overlapping the one before: where several forms start at the
    /// same place the longest wins, and scanning resumes after it.
    fn matches<'m, 'b>(&'m self, bytes: &'b [u8], cut: usize) -> Matches<'m, 'b> {
        let mut matches = Matches {
            masker: self,
            bytes,
            cut: cut.min(bytes.len()),
            position: 0,
            next: Vec::with_capacity(self.forms.len()),
        };
        for form in 0..self.forms.len() {
            let next = matches.search(form, 0);
            matches.next.push(next);
        }
        matches
    }
}

/// The walk behind [`Masker::matches`]. Each form's next occurrence at or
/// after the position is searched for once, and again only when a match has
/// been taken past it, so each form costs about one pass over the bytes.
struct Matches<'m, 'b> {
    masker: &'m Masker,
    bytes: &'b [u8],
    cut: usize,
    position: usize,
    /// Per form, where it next occurs, from the last search.
    next: Vec<Option<usize>>,
}

impl Matches<'_, '_> {
    /// Where `form` next starts at or after `from`, if before the cut.
    fn search(&self, form: usize, from: usize) -> Option<usize> {
        if from >= self.cut {
            return None;
        }
        let length = self.masker.forms.get(form)?.len();
        // A match must start before the cut but may end after it.
        let end = (self.cut + length - 1).min(self.bytes.len());
        let haystack = self.bytes.get(from..end)?;
        self.masker
            .finders
            .get(form)?
            .find(haystack)
            .map(|offset| from + offset)
    }
}

impl Iterator for Matches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for form in 0..self.next.len() {
            let mut next = self.next[form];
            if next.is_some_and(|start| start < self.position) {
                next = self.search(form, self.position);
                self.next[form] = next;
            }
            // Forms are longest first: on a tie the earlier form wins.
            if let Some(start) = next {
                if best.is_none_or(|(best_start, _)| start < best_start) {
                    best = Some((start, form));
                }
            }
        }
        let (start, form) = best?;
        let end = start + self.masker.forms[form].len();
        self.position = end;
        Some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const SECRET: &str = "sk/\"live\"+42";

    fn masker() -> Masker {
        Masker::new(Some(SECRET), Some(&CredentialPlacement::Bearer))
    }

    #[rstest]
    #[case::raw("token sk/\"live\"+42 echoed", "token [credential] echoed")]
    #[case::twice("sk/\"live\"+42sk/\"live\"+42", "[credential][credential]")]
    #[case::percent_encoded("?key=sk%2F%22live%22%2B42&x", "?key=[credential]&x")]
    #[case::json_escaped("{\"echo\":\"sk/\\\"live\\\"+42\"}", "{\"echo\":\"[credential]\"}")]
    #[case::prefix_only("sk/\"live", "sk/\"live")]
    #[case::unrelated("nothing here", "nothing here")]
    fn forms_are_masked(#[case] text: &str, #[case] expected: &str) {
        assert_eq!(masker().mask(text), expected);
    }

    #[test]
    fn basic_credentials_are_masked_in_base64_too() {
        let masker = Masker::new(Some("ada:lovelace"), Some(&CredentialPlacement::Basic));
        assert_eq!(
            masker.mask("Basic YWRhOmxvdmVsYWNl and ada:lovelace"),
            "Basic [credential] and [credential]"
        );
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
    }

    /// The masking as first written: at each byte, the longest form that
    /// starts there, else the byte itself. The searchers must agree with it.
    fn byte_by_byte(masker: &Masker, bytes: &[u8], cut: usize) -> Vec<u8> {
        let cut = cut.min(bytes.len());
        let mut masked = Vec::new();
        let mut position = 0;
        while position < cut {
            let rest = &bytes[position..];
            match masker.forms.iter().find(|form| rest.starts_with(form)) {
                Some(form) => {
                    masked.extend_from_slice(MASK.as_bytes());
                    position += form.len();
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
            // Three forms sharing their ends: a"a, a%22a and a\"a.
            Masker::new(Some("a\"a"), None),
            // Forms that overlap themselves.
            Masker::new(Some("aba"), None),
            Masker::new(Some("aa"), None),
            // Raw, percent-encoded and base64 (YTph).
            Masker::new(Some("a:a"), Some(&CredentialPlacement::Basic)),
            Masker::new(Some("é/é"), None),
            // The raw form x\ is the start of the JSON-escaped one, x\\.
            Masker::new(Some("x\\"), None),
        ];
        let alphabet: &[u8] = b"a\"%22\\b:YTphe/\xc3\xa9x5C";
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
    }
}
