//! Steps for TC-MASK-*: the stored credential never comes back to the agent;
//! where the upstream echoes it, the agent reads `[credential]`.

use cucumber::{given, then};
use percent_encoding::percent_decode_str;

use super::call_support::{clip, clip_from, expand, result};
use super::failure::{fail, StepResult};
use crate::world::GatewayWorld;

#[given(expr = "the stored credential is {string}")]
async fn stored_credential(world: &mut GatewayWorld, credential: String) -> StepResult {
    world.set_credential(&credential)?;
    Ok(())
}

/// For a credential holding characters a feature file cannot show, such as
/// a tab: written as a JSON string, escapes and all.
#[given(regex = r#"^the stored credential is the JSON string (".*")$"#)]
async fn stored_credential_as_json(world: &mut GatewayWorld, written: String) -> StepResult {
    let credential: String = serde_json::from_str(&written)
        .map_err(|error| anyhow::anyhow!("{written} is not a JSON string: {error}"))?;
    world.set_credential(&credential)?;
    Ok(())
}

/// Neither the credential nor a percent-encoding of it (any hex case, any
/// characters left plain) appears: a gateway that names a URL in its own
/// error writes the credential as it encoded it in the query.
#[then("the result does not show the credential")]
async fn credential_not_shown(world: &mut GatewayWorld) -> StepResult {
    let (_, text) = result(world)?;
    let credential = world.credential();
    if let Some(at) = text.find(credential) {
        fail!(
            "the result shows the credential at byte {at}:\n{}",
            clip_from(text, at, 200)
        );
    }
    let decoded = percent_decoded(text);
    if let Some(at) = decoded.find(credential) {
        fail!(
            "the result shows the credential percent-encoded; decoded, it reads:\n{}",
            clip_from(&decoded, at, 200)
        );
    }
    Ok(())
}

/// The rule that a text body comes back as it is.
const TEXT_SHOWN: &str = "TC-ANS-001";

/// `text` with every `%XX` turned back into its byte (read as UTF-8, lossily).
fn percent_decoded(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// Masking judged apart from whether the text is shown at all (the answer
/// rules' matter): where the result shows the part of an echo that holds no
/// credential, the credential in it reads `[credential]`. A result that
/// does not show the echo at all leaves nothing to judge: not judged, as
/// TC-ANS-001 judges whether a text body is shown.
#[then(expr = "where the result shows {string}, it reads {string}")]
async fn where_shown_reads(world: &mut GatewayWorld, part: String, expected: String) -> StepResult {
    let (_, text) = result(world)?;
    let (part, expected) = (expand(world, &part), expand(world, &expected));
    if !text.contains(&part) {
        let text = clip(text);
        return Err(world
            .not_judged(
                TEXT_SHOWN,
                format!("the result does not show the echo {part:?} at all:\n{text}"),
            )
            .into());
    }
    if !text.contains(&expected) {
        fail!(
            "the result shows {part:?}, but not as {expected:?}:\n{}",
            clip(text)
        );
    }
    Ok(())
}

/// Masking replaces the credential and nothing else: a gateway that finds
/// the credential where there is none (a form of it that is empty matches
/// everywhere) shows `[credential]` more often than the upstream echoed it,
/// and the text around the echo is lost with it. A result that shows no
/// text at all is the answer rules' matter, and passes here.
#[then(regex = r"^the result shows \[credential\] at most (once|\d+ times)$")]
async fn masked_at_most(world: &mut GatewayWorld, most: String) -> StepResult {
    let most: usize = match most.as_str() {
        "once" => 1,
        times => times
            .trim_end_matches(" times")
            .parse()
            .map_err(anyhow::Error::from)?,
    };
    let (_, text) = result(world)?;
    let shown = text.matches("[credential]").count();
    if shown > most {
        fail!(
            "the result shows [credential] {shown} times, where the upstream echoed the credential at most {most}:\n{}",
            clip(text)
        );
    }
    Ok(())
}

/// No run of `length` characters taken from the credential appears, as
/// written or behind JSON `\u` escapes: not even a piece of it is left.
#[then(expr = "the result shows no piece of the credential {int} characters long")]
async fn no_piece_shown(world: &mut GatewayWorld, length: usize) -> StepResult {
    let (_, text) = result(world)?;
    let unescaped = unicode_unescaped(text);
    let credential: Vec<char> = world.credential().chars().collect();
    for piece in credential.windows(length.max(1)) {
        let piece: String = piece.iter().collect();
        if let Some(at) = text.find(&piece) {
            fail!(
                "the result shows {piece:?}, a piece of the credential, at byte {at}:\n{}",
                clip_from(text, at, 200)
            );
        }
        if let Some(at) = unescaped.find(&piece) {
            fail!(
                "the result shows {piece:?}, a piece of the credential, JSON-escaped; unescaped, it reads:\n{}",
                clip_from(&unescaped, at, 200)
            );
        }
    }
    Ok(())
}

/// `text` with every `\uXXXX` escape turned back into its character (a
/// surrogate pair into one, a lone surrogate into U+FFFD); the rest is kept.
/// An escape behind several backslashes counts too: a gateway that hands
/// the body back as a JSON string doubles each one, and the credential is
/// no less there.
fn unicode_unescaped(text: &str) -> String {
    let mut unescaped = String::with_capacity(text.len());
    let mut units: Vec<u16> = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let backslashes = rest.len() - rest.trim_start_matches('\\').len();
        let unit = (backslashes > 0)
            .then(|| rest[backslashes..].strip_prefix('u'))
            .flatten()
            .and_then(|digits| digits.get(..4))
            .filter(|digits| digits.bytes().all(|digit| digit.is_ascii_hexdigit()))
            .and_then(|digits| u16::from_str_radix(digits, 16).ok());
        if let Some(unit) = unit {
            units.push(unit);
            rest = &rest[backslashes + 5..];
            continue;
        }
        unescaped.push_str(&String::from_utf16_lossy(&units));
        units.clear();
        let next = rest.chars().next().map_or(1, char::len_utf8);
        unescaped.push_str(&rest[..next]);
        rest = &rest[next..];
    }
    unescaped.push_str(&String::from_utf16_lossy(&units));
    unescaped
}

#[cfg(test)]
mod tests {
    use super::{percent_decoded, unicode_unescaped};

    #[test]
    fn unicode_escapes_are_read_back_pairs_and_all() {
        assert_eq!(
            unicode_unescaped(r"a\u0073\u006B-\ud83d\ude00 \u12 \uzzzz\n"),
            "ask-😀 \\u12 \\uzzzz\\n"
        );
        assert_eq!(unicode_unescaped(r"\ud83d!"), "\u{fffd}!");
        assert_eq!(unicode_unescaped(r#""\\u0073\\u006b \\x""#), r#""sk \\x""#);
    }

    #[test]
    fn decodes_every_escape_and_keeps_the_rest() {
        assert_eq!(percent_decoded("a%2Fb%2fc/%C3%A9%"), "a/b/c/é%");
        assert_eq!(percent_decoded("%zz %+1 %4"), "%zz %+1 %4");
    }
}
