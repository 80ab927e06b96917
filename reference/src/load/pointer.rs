//! JSON Pointers (RFC 6901) and the local references that hold them:
//! decoding a `#/...` reference, escaping and unescaping a token, and the
//! value a pointer names. Depends on nothing else of the loader.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use serde_json::Value;

/// The JSON Pointer inside a local reference (`#/components/schemas/Pet` gives
/// `/components/schemas/Pet`), percent-decoded; `None` for a reference to
/// anything else (another file, a URL, an `$id`), which only the bundling of
/// files settles.
pub fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    // A fragment is URI-encoded first, a JSON Pointer second (RFC 6901, section 6).
    let decoded = percent_decode_str(fragment).decode_utf8().ok()?;
    Some(decoded.into_owned())
}

/// The value a decoded JSON Pointer names in `root`.
pub fn lookup<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(root);
    }
    let tokens = pointer.strip_prefix('/')?;
    tokens.split('/').try_fold(root, |value, token| {
        let token = unescape_token(token);
        match value {
            Value::Object(members) => members.get(token.as_str()),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
    })
}

/// `~1` is `/` and `~0` is `~`, decoded in that order (RFC 6901, section 4).
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// `~` is `~0` and `/` is `~1` in a JSON Pointer token (RFC 6901, section 3).
pub fn escape_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;
    use serde_json::json;

    use super::*;

    #[rstest]
    #[case("#/components/schemas/Pet", Some("/components/schemas/Pet"))]
    #[case("#/paths/~1pets~1%7Bid%7D", Some("/paths/~1pets~1{id}"))]
    #[case("#", Some(""))]
    #[case("Pet.yaml", None)]
    #[case("https://example.com/schemas.json#/Pet", None)]
    fn local_pointer_decodes_only_local_references(
        #[case] reference: &str,
        #[case] expected: Option<&str>,
    ) {
        assert_eq!(local_pointer(reference).as_deref(), expected);
    }

    #[test]
    fn lookup_unescapes_tokens_and_indexes_lists() {
        let root = json!({"paths": {"/a~b/{id}": {"get": {"tags": ["x", "y"]}}}});
        assert_eq!(
            lookup(&root, "/paths/~1a~0b~1{id}/get/tags/1"),
            Some(&json!("y"))
        );
        assert_eq!(lookup(&root, "/paths/missing"), None);
        assert_eq!(lookup(&root, "/paths/~1a~0b~1{id}/get/tags/x"), None);
        assert_eq!(lookup(&root, "no-leading-slash"), None);
    }

    #[test]
    fn escaping_a_token_is_undone_by_unescaping_it() {
        for token in ["plain", "a/b", "~1", "~0/~", "/paths/~1"] {
            assert_eq!(unescape_token(&escape_token(token)), token);
        }
        assert_eq!(escape_token("a~/b"), "a~0~1b");
    }
}
