//! Replacing the credential in everything that goes back to the agent.
//!
//! Rules: TC-MASK-001 … TC-MASK-007 (see `docs/rules.md`).

use base64::Engine as _;

use crate::convert::CredentialPlacement;
use crate::request::encode_component;

/// What the agent sees instead of the credential.
pub const MASK: &str = "[credential]";

/// Finds the credential, in each form it can come back in, and hides it.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    /// Distinct forms, longest first, so a form that contains another wins.
    forms: Vec<Vec<u8>>,
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
        Masker { forms }
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
        let mut position = 0;
        while position < cut {
            let rest = &bytes[position..];
            match self.forms.iter().find(|form| rest.starts_with(form)) {
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

    #[test]
    fn multi_byte_credentials_keep_text_valid() {
        let masker = Masker::new(Some("ключ"), None);
        assert_eq!(masker.mask("a ключ b"), "a [credential] b");
    }
}
