//! Agents' keys: a file of the SHA-256 hashes of the keys agents may show,
//! each with a label the log names. The keys themselves are never stored:
//! a copy of the file (a backup, a config repository) lets no one in.
//!
//! One key a line, `sha256:` and 64 hex digits, then the label; `#` starts a
//! comment line. `hosted-mcp-gateway agent-key --label NAME` makes a key
//! and its line.
//!
//! ```text
//! # agents of the pets API
//! sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ci-runner
//! ```

use std::fmt;
use std::path::Path;

use subtle::ConstantTimeEq as _;

use super::errors::{GateError, RandomFailed};
use super::hash::sha256;

/// The keys agents may show.
pub struct KeyRing {
    keys: Vec<Key>,
}

struct Key {
    sha256: [u8; 32],
    label: String,
    /// Who the key lets in, told apart from every other key: `key:` and
    /// the first 16 hex digits of its hash (a file holds two keys with one
    /// label while one is rotated out).
    principal: String,
}

/// Only the count and labels: the hashes would let an attacker test keys
/// offline.
impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyRing")
            .field(
                "labels",
                &self.keys.iter().map(|k| &k.label).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl KeyRing {
    /// Reads a keys file; an error names the file, and the line for a line
    /// that is not a key (never the line itself: it may hold a key).
    pub fn read(path: &Path) -> Result<KeyRing, GateError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| GateError::KeysFileUnreadable { source })?;
        KeyRing::parse(&text).map_err(|(line, why)| GateError::KeysFileLine {
            path: path.to_owned(),
            line,
            why,
        })
    }

    /// The keys of a file's text; an error gives the line and why.
    pub fn parse(text: &str) -> Result<KeyRing, (usize, &'static str)> {
        let mut keys = Vec::new();
        for (number, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (hash, label) = line.split_once(char::is_whitespace).ok_or((
                number,
                "a key's line is `sha256:HEX LABEL`: the label is missing",
            ))?;
            let digits = hash.strip_prefix("sha256:").ok_or((
                number,
                "a key's line starts with `sha256:` and the key's hash (never the key itself)",
            ))?;
            let sha256 = hex_digest(digits)
                .ok_or((number, "the hash after `sha256:` must be 64 hex digits"))?;
            keys.push(Key {
                principal: format!("key:{}", &digits[..16].to_ascii_lowercase()),
                sha256,
                label: label.trim().to_owned(),
            });
        }
        Ok(KeyRing { keys })
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether it holds none (then no agent gets in by key).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The label and principal of the key `presented`, if it is one of
    /// them. Every key is compared, each in constant time, so how long it
    /// takes says nothing of which key, or how much of one, matched.
    pub fn find(&self, presented: &str) -> Option<(&str, &str)> {
        let hash = sha256(presented.as_bytes());
        let mut found = None;
        for key in &self.keys {
            if bool::from(key.sha256.ct_eq(&hash)) && found.is_none() {
                found = Some((key.label.as_str(), key.principal.as_str()));
            }
        }
        found
    }
}

/// The line of a keys file for `key`, labelled `label`.
pub fn line_for(key: &str, label: &str) -> String {
    let hex: String = sha256(key.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex} {label}")
}

/// A new key: 32 random bytes, as 64 hex digits after `hmk_`.
pub fn new_key() -> Result<String, RandomFailed> {
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| RandomFailed)?;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("hmk_{hex}"))
}

fn hex_digest(digits: &str) -> Option<[u8; 32]> {
    if digits.len() != 64 || !digits.is_ascii() {
        return None;
    }
    let mut hash = [0u8; 32];
    for (byte, pair) in hash.iter_mut().zip(digits.as_bytes().chunks(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_found_by_its_hash_and_named_by_its_label() {
        let text = format!(
            "# agents\n\n{}\n  {}  \n",
            line_for("key-one", "alice laptop"),
            line_for("key-two", "ci")
        );
        let ring = KeyRing::parse(&text).expect("parses");
        assert_eq!(ring.len(), 2);
        let label = |key: &str| ring.find(key).map(|(label, _)| label);
        assert_eq!(label("key-one"), Some("alice laptop"));
        assert_eq!(label("key-two"), Some("ci"));
        assert_eq!(ring.find("key-three"), None);
        assert_eq!(ring.find(""), None);
        let debug = format!("{ring:?}");
        assert!(
            debug.contains("alice laptop") && !debug.contains("sha256"),
            "{debug}"
        );
        assert!(!ring.is_empty());
        assert!(KeyRing::parse("# no keys yet\n")
            .expect("parses")
            .is_empty());
    }

    #[test]
    fn the_hash_is_sha256_in_lower_or_upper_case() {
        // SHA-256 of "test", as `printf test | sha256sum` gives it.
        let lower = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 t";
        assert_eq!(line_for("test", "t"), lower);
        let upper = format!("sha256:{} t", lower[7..71].to_ascii_uppercase());
        assert_eq!(
            KeyRing::parse(&upper).expect("parses").find("test"),
            Some(("t", "key:9f86d081884c7d65")),
            "one key is one agent, in either case"
        );
    }

    #[test]
    fn a_wrong_line_is_named_with_why() {
        let wrong = [
            ("sha256:abcd", "label is missing"),
            (
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 t",
                "`sha256:`",
            ),
            (
                "sha256:xyz0d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 t",
                "64 hex",
            ),
            ("sha256:9f86 t", "64 hex"),
            ("my-plain-key alice", "never the key itself"),
        ];
        for (line, why) in wrong {
            let text = format!("# first\n{line}\n");
            let (number, message) = KeyRing::parse(&text).expect_err(line);
            assert_eq!(number, 2, "{line}");
            assert!(message.contains(why), "{line}: {message}");
        }
    }

    #[test]
    fn new_keys_differ_and_fit_their_lines() {
        let (one, two) = (new_key().unwrap(), new_key().unwrap());
        assert_ne!(one, two);
        assert_eq!(one.len(), 68);
        let ring = KeyRing::parse(&line_for(&one, "one")).unwrap();
        assert_eq!(ring.find(&one).map(|(label, _)| label), Some("one"));
    }

    #[test]
    fn two_keys_of_one_label_are_two_agents() {
        let lines = [line_for("old-key", "ci"), line_for("new-key", "ci")];
        let ring = KeyRing::parse(&lines.join("\n")).expect("parses");
        let (old_label, old) = ring.find("old-key").expect("found");
        let (new_label, new) = ring.find("new-key").expect("found");
        assert_eq!(old_label, new_label);
        assert_ne!(old, new, "each key is its own agent");
        assert!(old.starts_with("key:") && old.len() == 20, "{old}");
        assert!(!old.contains("old-key"), "the principal holds no key");
    }
}
