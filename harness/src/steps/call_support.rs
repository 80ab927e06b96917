//! Helpers for the steps of the call rules (checking, request, delivery,
//! answer, masking): placeholders written in feature files, the requests the
//! mock upstream received, and the text of the latest tool result.

use anyhow::{bail, Context as _};
use hosted_mcp_oracle::{self as oracle, Secret};
use mock_upstream::RecordedRequest;
use serde_json::Value;

use crate::json::tool_names;
use crate::{client::CallOutcome, client_auth, world::GatewayWorld};

/// Calls the tool the rules call `name`, which the gateway must list (under
/// that name or, outside the naming rules' scenarios, as the tool of the same
/// operation). Calling a tool that is not there would get an "unknown tool"
/// error, which must not pass for a refusal of the arguments.
pub async fn call_listed(
    world: &mut GatewayWorld,
    name: &str,
    arguments: Value,
) -> anyhow::Result<()> {
    listed(world, name).await?;
    world.call_tool(name, arguments).await?;
    Ok(())
}

/// The rules a missing tool breaks: every operation of a document that
/// loads is listed (the loading rules and the listing's order), under its
/// name (the naming rules).
const LISTING_RULES: [&str; 3] = ["TC-LOAD-", "TC-NAME-", "TC-PROTO-006"];

/// Fails unless the gateway lists the tool the rules call `name`. Where the
/// operation has no tool at all (a method the gateway does not take, say),
/// a scenario of another rule cannot see its own matter: not judged, naming
/// the listing rule, whose scenarios fail it.
pub async fn listed(world: &mut GatewayWorld, name: &str) -> anyhow::Result<()> {
    if world.tool(name).await?.is_some() {
        return Ok(());
    }
    let names = tool_names(&world.list_tools().await?);
    let why = format!(
        "the gateway lists no tool {name:?} (nor one for its operation): it lists {names:?}"
    );
    if LISTING_RULES.iter().any(|rule| world.judges_rules_of(rule)) {
        bail!(why);
    }
    Err(world.not_judged("TC-PROTO-006", why))
}

/// Replaces the placeholders a feature file may write in a stub or an
/// expected value:
///
/// - `{{base_url}}`: the mock upstream's base URL;
/// - `{{credential}}`: the stored credential, as is;
/// - the credential's writings in [`CREDENTIAL_WRITINGS`];
/// - `{{tool:NAME}}`: the gateway's own name for the tool the rules call NAME.
pub fn expand(world: &GatewayWorld, text: &str) -> String {
    let mut text = text.to_owned();
    let mut from = 0;
    while let Some(start) = text[from..].find("{{tool:").map(|at| from + at) {
        let Some(length) = text[start..].find("}}") else {
            break;
        };
        let name = text[start + "{{tool:".len()..start + length].to_owned();
        let actual = world.known_tool_name(&name).to_owned();
        text.replace_range(start..start + length + 2, &actual);
        from = start + actual.len();
    }
    let credential = world.credential();
    for (placeholder, secret, way) in CREDENTIAL_WRITINGS {
        if text.contains(placeholder) {
            text = text.replace(placeholder, &written(credential, secret, way));
        }
    }
    text.replace("{{base_url}}", &world.upstream().base_url())
        .replace("{{credential}}", credential)
}

/// The placeholders for the credential's writings, each one secret written
/// one way, both as the oracle (`hosted_mcp_oracle`) names them: the echoes
/// the masking scenarios send are then the writings the property tests and
/// the fuzz targets try. A secret of basic authentication is taken as the
/// gateway would send the credential that way (LAUNCH.md): its base64 is
/// of `user:password`, and a credential without `:` is the user name.
pub const CREDENTIAL_WRITINGS: [(&str, Secret, &str); 8] = [
    ("{{credential_base64}}", Secret::Base64, "as stored"),
    // The password alone, or the user name when the password is empty.
    ("{{credential_password}}", Secret::Alone, "as stored"),
    (
        "{{credential_json_slash}}",
        Secret::Credential,
        "JSON-escaped with `/` as `\\/`",
    ),
    (
        "{{credential_json_unicode}}",
        Secret::Credential,
        "JSON-escaped, every character `\\uxxxx` (lower-case hex)",
    ),
    (
        "{{credential_json}}",
        Secret::Credential,
        "JSON-escaped as an encoder does (`\\\"`, `\\\\`, controls)",
    ),
    (
        "{{credential_percent_lower}}",
        Secret::Credential,
        "percent-encoded but unreserved characters, lower-case hex",
    ),
    // As Python's `urllib.parse.quote` writes it.
    (
        "{{credential_percent_path}}",
        Secret::Credential,
        "percent-encoded but unreserved characters and `/`",
    ),
    (
        "{{credential_percent}}",
        Secret::Credential,
        "percent-encoded but unreserved characters, upper-case hex",
    ),
];

/// `secret` of `credential` written the oracle's `way`. The oracle lists a
/// secret once: one missing is the same text as the credential.
fn written(credential: &str, secret: Secret, way: &str) -> String {
    let text = oracle::secrets(credential, true)
        .into_iter()
        .find(|(kind, _)| *kind == secret)
        .map_or_else(|| credential.to_owned(), |(_, text)| text);
    let rule = oracle::WAYS
        .iter()
        .find(|(name, _)| *name == way)
        .map(|&(_, rule)| rule)
        .unwrap_or_else(|| panic!("the oracle names no way {way:?}"));
    oracle::write(&text, rule)
}

/// A text too long to spell out, written `"x" repeated 1048568 times
/// followed by "END"` in a step (`{repeated}` in a step's expression). The
/// end may hold placeholders; see [`Repeated::text`].
#[derive(Debug, Clone, PartialEq, Eq, cucumber::Parameter)]
#[param(
    name = "repeated",
    regex = r#""[^"]*" repeated \d+ times followed by "[^"]*""#
)]
pub struct Repeated {
    unit: String,
    count: usize,
    end: String,
}

impl std::str::FromStr for Repeated {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> anyhow::Result<Self> {
        let parse = || {
            let rest = text.strip_prefix('"')?;
            let (unit, rest) = rest.split_once("\" repeated ")?;
            let (count, rest) = rest.split_once(" times followed by \"")?;
            let end = rest.strip_suffix('"')?;
            Some(Repeated {
                unit: unit.to_owned(),
                count: count.parse().ok()?,
                end: end.to_owned(),
            })
        };
        parse()
            .with_context(|| format!("not `\"unit\" repeated N times followed by \"end\"`: {text}"))
    }
}

impl Repeated {
    /// The unit `count` times, then the end with its placeholders replaced.
    pub fn text(&self, world: &GatewayWorld) -> String {
        let mut text = self.unit.repeat(self.count);
        text.push_str(&expand(world, &self.end));
        text
    }
}

/// Every request the upstream received, failing if there is not exactly one.
/// Only the rules about how many requests a call sends (TC-REQ-001, the
/// delivery rules) count them; other steps look at [`the_request`].
pub fn only_request(world: &GatewayWorld) -> anyhow::Result<RecordedRequest> {
    let mut requests = world.upstream().requests();
    if requests.len() != 1 {
        bail!(
            "expected exactly one request upstream, there were {}:\n{}",
            requests.len(),
            describe_all(&requests)
        );
    }
    Ok(requests.remove(0))
}

/// The request the latest call sent: the last one the upstream received.
/// How many there were is a matter for the rules that count them, so a
/// gateway that sends a second request fails those rules, not every rule
/// that looks at what a request carries.
pub fn the_request(world: &GatewayWorld) -> anyhow::Result<RecordedRequest> {
    world
        .upstream()
        .requests()
        .pop()
        .context("the upstream received no request")
}

/// A step of another rule's scenario found the client credential upstream,
/// in `where_found`, and nothing else wrong: that is the client
/// credential's own rule's matter ([`client_auth::RULE`]), whose scenarios
/// judge it, so this one is not judged. The error the step returns.
pub fn client_credential_not_judged(world: &mut GatewayWorld, where_found: &str) -> anyhow::Error {
    world.not_judged(
        client_auth::RULE,
        format!(
            "the client credential ({}) reached the upstream, in {where_found}; nothing else \
             this step looks for is wrong",
            client_auth::SHOWN_AS
        ),
    )
}

/// Fails unless not a single byte reached the upstream.
pub fn nothing_reached(world: &GatewayWorld) -> anyhow::Result<()> {
    let requests = world.upstream().requests();
    if !requests.is_empty() {
        bail!(
            "expected nothing upstream, it received {} request(s):\n{}",
            requests.len(),
            describe_all(&requests)
        );
    }
    let wire = world.upstream().wire_bytes();
    if let Some(bytes) = wire.iter().find(|bytes| !bytes.is_empty()) {
        bail!(
            "expected nothing upstream, it received these bytes:\n{}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(2048)])
        );
    }
    Ok(())
}

fn describe_all(requests: &[RecordedRequest]) -> String {
    requests
        .iter()
        .map(RecordedRequest::to_string)
        .collect::<Vec<_>>()
        .join("---\n")
}

/// Paths compare as RFC 3986 (6.2.2) calls URIs equivalent: the hex digits
/// of `%XX` escapes may be in either case (`%2F` and `%2f` are the same
/// byte), and an unreserved character may come escaped (`%2E` is `.`).
/// Anything else must be exactly as expected.
pub fn same_raw_path(actual: &str, expected: &str) -> bool {
    normalise_escapes(actual) == normalise_escapes(expected)
}

fn normalise_escapes(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escaped = (bytes[at] == b'%')
            .then(|| bytes.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        match escaped {
            Some(byte) if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) => {
                out.push(byte);
                at += 3;
            }
            Some(_) => {
                out.push(b'%');
                out.extend(bytes[at + 1..at + 3].iter().map(u8::to_ascii_uppercase));
                at += 3;
            }
            None => {
                out.push(bytes[at]);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The latest call's outcome: whether it is an error, and its text. A
/// JSON-RPC error counts as an error whose text is its message: whether a
/// failed call is a tool result (TC-PROTO-005) is judged by that rule's own
/// scenarios, not by every rule that looks at what an error says.
pub fn result(world: &GatewayWorld) -> anyhow::Result<(bool, &str)> {
    match world.last_call()? {
        CallOutcome::Result { is_error, text } => Ok((*is_error, text)),
        CallOutcome::RpcError { message, .. } => Ok((true, message)),
    }
}

/// The text of the latest call, which must have failed (a tool error, or a
/// JSON-RPC error; see [`result`]).
pub fn error_text(world: &GatewayWorld) -> anyhow::Result<&str> {
    match result(world)? {
        (true, text) => Ok(text),
        (false, text) => bail!("expected the call to fail, it succeeded:\n{}", clip(text)),
    }
}

/// The text of the latest tool result, which must be a success.
pub fn success_text(world: &GatewayWorld) -> anyhow::Result<&str> {
    match world.last_call()? {
        CallOutcome::Result {
            is_error: false,
            text,
        } => Ok(text),
        CallOutcome::Result {
            is_error: true,
            text,
        } => bail!(
            "expected a successful result, got a tool error:\n{}",
            clip(text)
        ),
        other => bail!("expected a successful result, got {other}"),
    }
}

/// Whether `text` names the JSON Pointer `pointer` itself, not a longer one
/// that starts with it (`/body/tag` is not found in `/body/tags`).
pub fn names_pointer(text: &str, pointer: &str) -> bool {
    text.match_indices(pointer).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + pointer.len()..].chars().next();
        let part_of_pointer = |c: char| c.is_alphanumeric() || "/_-.~".contains(c);
        !before.is_some_and(part_of_pointer) && !after.is_some_and(part_of_pointer)
    })
}

/// Whether `text` names the place `pointer` written with dots between its
/// names, as many validators do (`data.name`, `visits[1].year` or
/// `visits.1.year` for `/data/name`, `/visits/1/year`). A pointer of one
/// token has no such form that could be told from a word of the text.
pub fn names_dotted(text: &str, pointer: &str) -> Option<String> {
    let tokens: Vec<String> = pointer
        .strip_prefix('/')?
        .split('/')
        .map(crate::json::unescape_token)
        .collect();
    if tokens.len() < 2 {
        return None;
    }
    let dotted = tokens.join(".");
    let bracketed = tokens.iter().fold(String::new(), |mut out, token| {
        if token.bytes().all(|b| b.is_ascii_digit()) && !out.is_empty() {
            out.push_str(&format!("[{token}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(token);
        }
        out
    });
    [dotted, bracketed].into_iter().find(|form| {
        text.match_indices(form.as_str()).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let mut after = text[at + form.len()..].chars();
            let next = after.next();
            let word = |c: char| c.is_alphanumeric() || "_-[".contains(c);
            // A full stop ends a sentence; a dot before a name goes deeper.
            let deeper = next == Some('.') && after.next().is_some_and(char::is_alphanumeric);
            !before.is_some_and(|c| word(c) || c == '.') && !next.is_some_and(word) && !deeper
        })
    })
}

/// Whether `text` says one of `words`, compared without regard to case.
pub fn says_one_of(text: &str, words: &[&str]) -> bool {
    let text = text.to_lowercase();
    words.iter().any(|word| text.contains(&word.to_lowercase()))
}

/// A long text for failure messages: its first 300 and last 900 characters
/// (where notes usually are), and its length.
pub fn clip(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= 1200 {
        return text.to_owned();
    }
    let head: String = text.chars().take(300).collect();
    let tail: String = text.chars().skip(chars - 900).collect();
    format!("{head}\n[… {} bytes in all …]\n{tail}", text.len())
}

/// The text from about `before` bytes ahead of byte `at` (a match's place)
/// on, clipped; starts on a character boundary, so a multi-byte character
/// near the place cannot split.
pub fn clip_from(text: &str, at: usize, before: usize) -> String {
    let mut start = at.saturating_sub(before).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    clip(&text[start..])
}

/// Builds arguments that hold `value` at `pointer` (`/body/a/b`), with
/// objects on the way; a token of digits is an index into an array, whose
/// items before it are null (`/body/0/a` gives `{"body": [{"a": value}]}`).
pub fn arguments_with(
    pointer: &str,
    value: serde_json::Value,
) -> anyhow::Result<serde_json::Value> {
    let tokens = pointer
        .strip_prefix('/')
        .with_context(|| format!("{pointer:?} is not a JSON Pointer"))?
        .split('/')
        .map(crate::json::unescape_token);
    let tokens: Vec<String> = tokens.collect();
    // The arguments object itself is an object: its first token is a name.
    let first = tokens.first().cloned().unwrap_or_default();
    let inner = tokens[1..]
        .iter()
        .rev()
        .fold(value, |inner, token| match token.parse::<usize>() {
            Ok(index) if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) => {
                let mut items = vec![serde_json::Value::Null; index];
                items.push(inner);
                serde_json::Value::Array(items)
            }
            _ => serde_json::Value::Object([(token.clone(), inner)].into_iter().collect()),
        });
    Ok(serde_json::Value::Object(
        [(first, inner)].into_iter().collect(),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_repeated_texts() {
        let repeated: Repeated = r#""ab" repeated 3 times followed by "!""#.parse().unwrap();
        assert_eq!(
            (
                repeated.unit.as_str(),
                repeated.count,
                repeated.end.as_str()
            ),
            ("ab", 3, "!")
        );
        assert!(r#""ab" repeated many times followed by "!""#.parse::<Repeated>().is_err());
    }

    /// The writings the masking scenarios echo, for their credentials.
    #[test]
    fn each_writing_placeholder_is_the_oracle_s_writing() {
        let writing = |placeholder: &str, credential: &str| {
            let (_, secret, way) = CREDENTIAL_WRITINGS
                .into_iter()
                .find(|(name, _, _)| *name == placeholder)
                .expect("a placeholder");
            written(credential, secret, way)
        };
        let key = "sk/live+Q7\"z=9k";
        let cases = [
            ("{{credential_percent}}", "sk%2Flive%2BQ7%22z%3D9k"),
            ("{{credential_percent_lower}}", "sk%2flive%2bQ7%22z%3d9k"),
            ("{{credential_percent_path}}", "sk/live%2BQ7%22z%3D9k"),
            ("{{credential_json}}", "sk/live+Q7\\\"z=9k"),
            ("{{credential_json_slash}}", "sk\\/live+Q7\\\"z=9k"),
            (
                "{{credential_json_unicode}}",
                "\\u0073\\u006b\\u002f\\u006c\\u0069\\u0076\\u0065\\u002b\\u0051\\u0037\\u0022\\u007a\\u003d\\u0039\\u006b",
            ),
        ];
        for (placeholder, expected) in cases {
            assert_eq!(writing(placeholder, key), expected, "{placeholder}");
        }
        let basic = "ada:pa/ss+w=rd@1";
        assert_eq!(
            writing("{{credential_base64}}", basic),
            "YWRhOnBhL3NzK3c9cmRAMQ=="
        );
        assert_eq!(writing("{{credential_password}}", basic), "pa/ss+w=rd@1");
        // Without `:`, the credential is the user name and secret alone.
        assert_eq!(writing("{{credential_base64}}", "sk"), "c2s6");
        assert_eq!(writing("{{credential_password}}", "sk"), "sk");
    }

    #[test]
    fn clips_from_a_place_on_a_character_boundary() {
        let text = format!("{}é日🐶 shown", "x".repeat(10));
        let at = text.find(" shown").unwrap();
        for before in 0..=at + 2 {
            let clipped = clip_from(&text, at, before);
            assert!(clipped.ends_with(" shown"), "{before}: {clipped}");
        }
        assert_eq!(clip_from(&text, at, 1), "🐶 shown");
    }

    #[test]
    fn raw_paths_compare_as_equivalent_uris() {
        assert!(same_raw_path("/a%2fb/%c3%a9", "/a%2Fb/%C3%A9"));
        assert!(same_raw_path("/files/%2E%2E%2e", "/files/..."));
        assert!(same_raw_path("/%7e%41", "/~A"));
        assert!(!same_raw_path("/a%2Fb", "/a/b"));
        assert!(!same_raw_path("/a%25b", "/a%b"));
        assert!(!same_raw_path("/Ab", "/ab"));
        assert!(!same_raw_path("/%E9", "/%C3%A9"));
    }

    #[test]
    fn pointers_are_found_whole() {
        let text = "- /body/tags/2: wrong type\n- `/body/tag` is missing";
        assert!(names_pointer(text, "/body/tags/2"));
        assert!(names_pointer(text, "/body/tag"));
        assert!(!names_pointer(text, "/body/tags"));
        assert!(!names_pointer(text, "/tags/2"));
    }

    #[test]
    fn a_place_is_found_written_with_dots() {
        let text = "invalid at data.name: required; at visits[1].year. params.labels.size";
        assert_eq!(
            names_dotted(text, "/data/name").as_deref(),
            Some("data.name")
        );
        assert_eq!(
            names_dotted(text, "/visits/1/year").as_deref(),
            Some("visits[1].year")
        );
        assert_eq!(
            names_dotted(text, "/params/labels/size").as_deref(),
            Some("params.labels.size")
        );
        assert_eq!(names_dotted(text, "/params/labels"), None, "a longer place");
        assert_eq!(names_dotted(text, "/name"), None, "one token is a word");
        assert_eq!(names_dotted(text, "/ata/name"), None);
    }

    #[test]
    fn arguments_nest_along_a_pointer() {
        assert_eq!(
            arguments_with("/body/a~1b/c", json!(1)).unwrap(),
            json!({"body": {"a/b": {"c": 1}}})
        );
        assert_eq!(
            arguments_with("/body/0/next/1", json!(1)).unwrap(),
            json!({"body": [{"next": [null, 1]}]})
        );
        assert_eq!(arguments_with("/7", json!(1)).unwrap(), json!({"7": 1}));
    }
}
