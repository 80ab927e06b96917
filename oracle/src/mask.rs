//! The mask invariants: what the masker kept holds no writing of the
//! credential whole (TC-MASK-001, TC-MASK-002, TC-MASK-003, TC-MASK-006),
//! leaves no start of one at a cut (TC-MASK-004, TC-MASK-005), and reads far
//! enough past a cut to see one whole.

use crate::violation::{holds, Violation};
use crate::writings::Writing;

/// What the agent sees where the credential was (TC-MASK-001).
pub const MASK: &str = "[credential]";

/// Where `needle` first occurs in `haystack`; an empty needle is at 0.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// The pieces of `masked` between masks: the text the masker kept.
pub fn kept_pieces(masked: &[u8]) -> Vec<&[u8]> {
    let mask = MASK.as_bytes();
    let mut pieces = Vec::new();
    let mut rest = masked;
    while let Some(at) = find(rest, mask) {
        pieces.push(&rest[..at]);
        rest = &rest[at + mask.len()..];
    }
    pieces.push(rest);
    pieces
}

/// No writing whole in any piece of `masked` the masker kept.
pub fn check_masked(masked: &[u8], writings: &[Writing]) -> Result<(), Violation> {
    for piece in kept_pieces(masked) {
        for writing in writings {
            ensure!(
                find(piece, writing.text.as_bytes()).is_none(),
                "TC-MASK-006: {writing} survived masking in {:?}",
                String::from_utf8_lossy(masked)
            );
        }
    }
    Ok(())
}

/// Nothing partial at the cut: `masked` is what the masker kept of
/// `original` up to `cut`. When the text kept after the last mask ends with
/// the start of a writing whose occurrence in `original` runs on past
/// `cut`, the masker showed part of the credential.
pub fn check_nothing_partial(
    masked: &[u8],
    original: &[u8],
    cut: usize,
    writings: &[Writing],
) -> Result<(), Violation> {
    let pieces = kept_pieces(masked);
    let tail = pieces.last().copied().unwrap_or_default();
    for writing in writings {
        let text = writing.text.as_bytes();
        for kept in 1..text.len().min(tail.len() + 1) {
            let start = cut.saturating_sub(kept);
            let runs_past_cut = start + kept == cut
                && original
                    .get(start..)
                    .is_some_and(|rest| rest.starts_with(text));
            ensure!(
                !(runs_past_cut && tail.ends_with(&text[..kept])),
                "TC-MASK-005: {kept} bytes of {writing} left at the cut at {cut}"
            );
        }
    }
    Ok(())
}

/// The masker reads `budget` bytes for an answer cut at `limit`: enough to
/// see the longest writing whole when it starts just before the cut.
pub fn check_read_budget(
    budget: usize,
    limit: usize,
    writings: &[Writing],
) -> Result<(), Violation> {
    if let Some(longest) = writings.iter().max_by_key(|writing| writing.text.len()) {
        ensure!(
            budget >= limit + longest.text.len(),
            "TC-MASK-005: a read budget of {budget} bytes cannot see {longest} whole past the cut at {limit}"
        );
    }
    Ok(())
}

/// [`check_masked`], panicking with the violation.
#[track_caller]
pub fn assert_masked(masked: &[u8], writings: &[Writing]) {
    holds(check_masked(masked, writings));
}

/// [`check_nothing_partial`], panicking with the violation.
#[track_caller]
pub fn assert_nothing_partial(masked: &[u8], original: &[u8], cut: usize, writings: &[Writing]) {
    holds(check_nothing_partial(masked, original, cut, writings));
}

/// [`check_read_budget`], panicking with the violation.
#[track_caller]
pub fn assert_read_budget(budget: usize, limit: usize, writings: &[Writing]) {
    holds(check_read_budget(budget, limit, writings));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writings;

    #[test]
    fn find_finds_the_first_occurrence() {
        assert_eq!(find(b"abcabc", b"ca"), Some(2));
        assert_eq!(find(b"abc", b"x"), None);
        assert_eq!(find(b"abc", b""), Some(0));
        assert_eq!(find(b"", b"a"), None);
    }

    #[test]
    fn the_text_between_masks_is_kept() {
        assert_eq!(
            kept_pieces(b"a[credential]b[credential]"),
            [&b"a"[..], b"b", b""]
        );
        assert_eq!(kept_pieces(b""), [&b""[..]]);
    }

    #[test]
    fn any_writing_left_whole_is_a_violation() {
        let all = writings("sk/é", false);
        assert_eq!(check_masked(b"x [credential] y", &all), Ok(()));
        for shown in [
            "x sk/é y",
            "sk%2f%c3%a9",
            "sk%2F%C3%A9",
            "sk/%C3%A9",
            "sk\\/\u{e9}",
            "\\u0073\\u006b\\u002f\\u00e9",
            "s\\u006b%2F%c3%a9",
        ] {
            let violation = check_masked(shown.as_bytes(), &all).unwrap_err();
            assert!(violation.0.contains("survived masking"), "{violation}");
        }
        // A mask that cuts a writing in two leaves no writing whole.
        assert_eq!(check_masked(b"sk/[credential]\xc3\xa9", &all), Ok(()));
    }

    #[test]
    fn the_start_of_a_writing_at_the_cut_is_a_violation() {
        let all = writings("SECRET", false);
        let original = b"abcdSECRETxyz";
        assert_eq!(
            check_nothing_partial(b"abcd[credential]", original, 6, &all),
            Ok(())
        );
        assert_eq!(check_nothing_partial(b"abcd", original, 4, &all), Ok(()));
        let violation = check_nothing_partial(b"abcdSE", original, 6, &all).unwrap_err();
        assert!(violation
            .0
            .starts_with("TC-MASK-005: 2 bytes of the credential as stored"));
        // `SE` that the original does not carry on as a writing is no part.
        assert_eq!(
            check_nothing_partial(b"abcdSE", b"abcdSEx", 6, &all),
            Ok(())
        );
    }

    #[test]
    fn the_budget_must_reach_past_the_cut() {
        let all = writings("ab", false);
        // The widest writing: two `\uXXXX`.
        assert_eq!(check_read_budget(100 + 12, 100, &all), Ok(()));
        assert!(check_read_budget(100 + 11, 100, &all).is_err());
    }
}
