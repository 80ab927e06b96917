//! Pretty-printing a JSON answer without changing a number (TC-ANS-002).
//!
//! Parsing into `serde_json::Value` and printing it again would turn
//! `12345678901234567890123` into `1.2345678901234568e22` and
//! `0.10000000000000000555` into `0.1`: an answer must come back digit for
//! digit. So the text is re-indented token by token: numbers and literals are
//! copied as written, strings are decoded and encoded again (so an unusual
//! escape of the credential becomes its plain form, which the masker knows),
//! and only whitespace changes.

use serde::de::IgnoredAny;

/// Two spaces per level, as `serde_json::to_string_pretty` writes.
const INDENT: &str = "  ";

/// `text` pretty-printed, or `None` when it is not one JSON value.
pub fn pretty(text: &str) -> Option<String> {
    // Checked first, so the walk below only ever sees valid JSON.
    serde_json::from_str::<IgnoredAny>(text).ok()?;
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                let next = skip_whitespace(bytes, at + 1);
                if bytes.get(next) == Some(&close) {
                    // `{}` and `[]` stay on one line.
                    out.push(char::from(open));
                    out.push(char::from(close));
                    at = next + 1;
                } else {
                    out.push(char::from(open));
                    depth += 1;
                    new_line(&mut out, depth);
                    at += 1;
                }
            }
            close @ (b'}' | b']') => {
                depth = depth.saturating_sub(1);
                new_line(&mut out, depth);
                out.push(char::from(close));
                at += 1;
            }
            b',' => {
                out.push(',');
                new_line(&mut out, depth);
                at += 1;
            }
            b':' => {
                out.push_str(": ");
                at += 1;
            }
            b'"' => {
                let end = string_end(bytes, at);
                let string = &text[at..end];
                if string.contains('\\') {
                    let decoded: String = serde_json::from_str(string).ok()?;
                    out.push_str(&serde_json::to_string(&decoded).ok()?);
                } else {
                    // Valid JSON with no escape is what encoding it again
                    // would write, byte for byte: copied, not decoded.
                    out.push_str(string);
                }
                at = end;
            }
            _ => {
                // A number, `true`, `false` or `null`: as written.
                let end = bytes[at..]
                    .iter()
                    .position(|b| b" \t\n\r,]}".contains(b))
                    .map_or(bytes.len(), |length| at + length);
                out.push_str(&text[at..end]);
                at = end;
            }
        }
    }
    Some(out)
}

fn new_line(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str(INDENT);
    }
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b" \t\n\r".contains(b)) {
        at += 1;
    }
    at
}

/// The index just past the string that opens at `start` (a `"`).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lays_out_like_serde_json_for_ordinary_values() {
        let text = r#" {"id":7,"name":"Rex","tags":["good","dog"],"owner":{"name":"Ada"},"none":{},"empty":[ ],"ok":true,"gone":null} "#;
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            pretty(text).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }

    #[test]
    fn keeps_every_number_as_written() {
        let text = r#"[12345678901234567890123,0.10000000000000000555,-1.5e-300,1E+2,-0,2.50]"#;
        assert_eq!(
            pretty(text).unwrap(),
            "[\n  12345678901234567890123,\n  0.10000000000000000555,\n  -1.5e-300,\n  1E+2,\n  -0,\n  2.50\n]"
        );
    }

    #[test]
    fn strings_come_back_decoded_and_encoded_again() {
        // An escaped credential becomes its plain form, which the masker finds.
        assert_eq!(
            pretty(r#"{"k":"s\u006b-1\/2 \"q\" \u00e9"}"#).unwrap(),
            "{\n  \"k\": \"sk-1/2 \\\"q\\\" é\"\n}"
        );
        assert_eq!(pretty(r#""a,]}b""#).unwrap(), r#""a,]}b""#);
    }

    #[test]
    fn strings_without_escapes_are_what_encoding_them_again_writes() {
        for string in [
            "",
            "plain",
            "é 中 😀",
            "\u{7f}</script>/",
            "sk_live_1",
            " \u{2028} ",
        ] {
            let encoded = serde_json::to_string(string).unwrap();
            assert!(!encoded.contains('\\'), "{encoded}");
            assert_eq!(pretty(&encoded).unwrap(), encoded);
        }
    }

    #[test]
    fn refuses_what_is_not_one_json_value() {
        for text in ["", "{", "[1,]", "{\"id\": 7, oops", "1 2", "nul"] {
            assert_eq!(pretty(text), None, "{text:?}");
        }
        assert_eq!(pretty(" 42 ").unwrap(), "42");
    }
}
