//! The lookups a call makes over and over, built once at compile time: the
//! members of a large `enum` and the names in `properties`.
//!
//! Both are hashed with FxHash (`rustc-hash`, the multiply-rotate hash rustc
//! uses) instead of the standard library's SipHash, into a small open-addressed
//! table that compares names without calling `memcmp`. The keys come from the schema,
//! not from the caller; a caller's string is only ever looked up, so the worst
//! it can do is walk the schema's own collisions.

use std::hash::Hasher;

use rustc_hash::FxHasher;
use serde_json::Value;

use super::json;

#[inline]
fn u32_at(bytes: &[u8], start: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[start..start + 4]);
    u32::from_le_bytes(word)
}

#[inline]
fn u64_at(bytes: &[u8], start: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[start..start + 8]);
    u64::from_le_bytes(word)
}

fn hash(name: &str) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name.as_bytes());
    hasher.finish()
}

/// Byte equality without a call to `memcmp`: names are short, and the call
/// costs more than comparing them a word at a time.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    let length = a.len();
    if length != b.len() {
        return false;
    }
    match length {
        0 => true,
        1..=3 => a[0] == b[0] && a[length / 2] == b[length / 2] && a[length - 1] == b[length - 1],
        4..=8 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, length - 4) == u32_at(b, length - 4),
        _ => {
            let mut start = 0;
            while start + 8 < length {
                if u64_at(a, start) != u64_at(b, start) {
                    return false;
                }
                start += 8;
            }
            u64_at(a, length - 8) == u64_at(b, length - 8)
        }
    }
}

/// Up to this many names are found by comparing them in turn (length first,
/// so most comparisons end at once); more are hashed.
const SCANNED: usize = 8;

/// A map from names, for `properties` and string enums. Past [`SCANNED`]
/// entries, an open-addressed index (linear probing, at most half full) points
/// into them, each slot keeping part of its name's hash.
#[derive(Debug, Clone)]
pub(super) struct Names<V> {
    entries: Box<[(Box<str>, V)]>,
    /// `(hash as u32, entry index + 1)`; an entry index of 0 is an empty slot.
    index: Box<[(u32, u32)]>,
}

impl<V> Default for Names<V> {
    fn default() -> Self {
        Names {
            entries: Box::default(),
            index: Box::default(),
        }
    }
}

impl<V> Names<V> {
    /// The entries, the first of equal names winning.
    pub fn new(entries: impl IntoIterator<Item = (Box<str>, V)>) -> Names<V> {
        let mut kept: Vec<(Box<str>, V)> = Vec::new();
        let mut index = Vec::new();
        let all: Vec<(Box<str>, V)> = entries.into_iter().collect();
        let capacity = (all.len() * 2).next_power_of_two();
        if all.len() > SCANNED {
            index = vec![(0, 0); capacity];
        }
        let mask = capacity.wrapping_sub(1);
        for (name, value) in all {
            if index.is_empty() {
                if !kept.iter().any(|(taken, _)| *taken == name) {
                    kept.push((name, value));
                }
                continue;
            }
            let hash = hash(&name);
            let mut slot = hash as usize & mask;
            loop {
                match index[slot] {
                    (_, 0) => {
                        kept.push((name, value));
                        index[slot] = (hash as u32, kept.len() as u32);
                        break;
                    }
                    (_, entry) if kept[entry as usize - 1].0 == name => break,
                    _ => slot = (slot + 1) & mask,
                }
            }
        }
        Names {
            entries: kept.into_boxed_slice(),
            index: index.into_boxed_slice(),
        }
    }

    #[inline]
    pub fn get(&self, name: &str) -> Option<&V> {
        if self.index.is_empty() {
            return self
                .entries
                .iter()
                .find(|(candidate, _)| same(candidate.as_bytes(), name.as_bytes()))
                .map(|(_, value)| value);
        }
        let mask = self.index.len() - 1;
        let hash = hash(name);
        let mut slot = hash as usize & mask;
        // At most half the slots are taken, so an empty one ends every probe.
        loop {
            let (tag, entry) = self.index[slot];
            if entry == 0 {
                return None;
            }
            if tag == hash as u32 {
                let (candidate, value) = &self.entries[entry as usize - 1];
                if same(candidate.as_bytes(), name.as_bytes()) {
                    return Some(value);
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, value)| value)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.entries.iter_mut().map(|(_, value)| value)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The values an `enum` allows. Strings, which make up nearly every real
/// enum, are hashed; other values keep JSON equality (`1` equals `1.0`) by
/// being compared one by one. A string equals only a string, so each value is
/// looked for on its own side only.
#[derive(Debug, Clone, Default)]
pub(super) struct Enumeration {
    strings: Names<()>,
    others: Box<[Value]>,
}

impl Enumeration {
    pub fn new(values: &[Value]) -> Enumeration {
        let mut strings = Vec::new();
        let mut others = Vec::new();
        for value in values {
            match value {
                Value::String(text) => strings.push((Box::from(text.as_str()), ())),
                other => others.push(other.clone()),
            }
        }
        Enumeration {
            strings: Names::new(strings),
            others: others.into_boxed_slice(),
        }
    }

    #[inline]
    pub fn contains(&self, value: &Value) -> bool {
        match value {
            Value::String(text) => self.strings.contains_key(text),
            other => self
                .others
                .iter()
                .any(|candidate| json::equal(candidate, other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use serde_json::json;

    use super::*;

    #[test]
    fn enumerations_keep_json_equality() {
        let values = json!(["a", 1, null, [1, 2.0], {"k": 1.0}, true]);
        let allowed = Enumeration::new(values.as_array().expect("array"));
        for value in [
            json!("a"),
            json!(1.0),
            json!(null),
            json!([1.0, 2]),
            json!({"k": 1}),
            json!(true),
        ] {
            assert!(allowed.contains(&value), "{value}");
        }
        for value in [
            json!("b"),
            json!("1"),
            json!(2),
            json!(false),
            json!([1]),
            json!({}),
        ] {
            assert!(!allowed.contains(&value), "{value}");
        }
    }

    #[test]
    fn hashes_tell_close_names_apart() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "abcdefgh\0",
        ];
        let hashes: HashSet<u64> = names.iter().map(|name| hash(name)).collect();
        assert_eq!(hashes.len(), names.len());
        let table = Names::new(names.iter().map(|name| (Box::from(*name), name.len())));
        for name in names {
            assert_eq!(table.get(name), Some(&name.len()), "{name:?}");
            for other in names {
                assert_eq!(same(name.as_bytes(), other.as_bytes()), name == other);
            }
        }
        for absent in ["c", "abcdefgj", "abcdefghijklmnoz", "abcdefghijklmnopq"] {
            assert_eq!(table.get(absent), None, "{absent}");
        }
    }

    #[test]
    fn the_first_of_equal_names_wins() {
        let table = Names::new([
            (Box::from("a"), 1),
            (Box::from("b"), 2),
            (Box::from("a"), 3),
        ]);
        assert_eq!(table.get("a"), Some(&1));
        assert_eq!(table.values().count(), 2);
        assert_eq!(Names::<u8>::default().get("a"), None);
    }
}
