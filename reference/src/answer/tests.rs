use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE, LOCATION};
use rstest::rstest;

use super::*;
use crate::convert::CredentialPlacement;

const SECRET: &str = "tok_9f8e7d6c5b4a";

fn masker() -> Masker {
    Masker::new(Some(SECRET), Some(&CredentialPlacement::Bearer))
}

fn delivered(status: u16, content_type: Option<&str>, body: &[u8], complete: bool) -> Delivered {
    let mut headers = HeaderMap::new();
    if let Some(content_type) = content_type {
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_str(content_type).expect("valid header"),
        );
    }
    Delivered {
        status: StatusCode::from_u16(status).expect("valid status"),
        headers,
        body: body.to_vec(),
        complete,
    }
}

/// What `deliver` hands over for a body of `body` bytes: at most the budget.
fn read(status: u16, content_type: Option<&str>, body: &[u8]) -> Delivered {
    let budget = read_budget(&masker());
    let complete = body.len() <= budget;
    delivered(
        status,
        content_type,
        &body[..body.len().min(budget)],
        complete,
    )
}

/// A successful answer that is a note of the catalogue.
fn noted(code: ErrorCode, text: &str) -> ToolAnswer {
    ToolAnswer {
        code: Some(code),
        ..ok(text)
    }
}

fn ok(text: &str) -> ToolAnswer {
    ToolAnswer {
        text: text.to_owned(),
        is_error: false,
        code: None,
    }
}

#[rstest]
#[case::plain("text/plain", "hello")]
#[case::html_with_charset("text/html; charset=utf-8", "<p>hi</p>")]
#[case::xml("application/xml", "<a/>")]
#[case::atom("application/atom+xml", "<feed/>")]
#[case::javascript("application/javascript", "let a = 1;")]
#[case::yaml("application/yaml", "a: 1")]
#[case::form("application/x-www-form-urlencoded", "a=1&b=2")]
#[case::problem_json_not_parsing("application/problem+json", "{not json")]
fn text_bodies_come_back_as_text(#[case] content_type: &str, #[case] body: &str) {
    assert_eq!(
        interpret(&read(200, Some(content_type), body.as_bytes()), &masker()),
        ok(body)
    );
}

#[rstest]
#[case::json("application/json")]
#[case::json_charset("application/json; charset=utf-8")]
#[case::suffix("application/vnd.api+json")]
fn json_comes_back_pretty_printed(#[case] content_type: &str) {
    let answer = interpret(
        &read(200, Some(content_type), br#"{"a":[1,2],"b":"x"}"#),
        &masker(),
    );
    assert_eq!(
        answer,
        ok("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": \"x\"\n}")
    );
}

#[test]
fn json_keeps_its_member_order() {
    let answer = interpret(
        &read(200, Some("application/json"), br#"{"z":1,"a":2}"#),
        &masker(),
    );
    assert_eq!(answer.text, "{\n  \"z\": 1,\n  \"a\": 2\n}");
}

#[test]
fn no_content_type_and_utf8_is_text() {
    assert_eq!(
        interpret(&read(200, None, "grüße".as_bytes()), &masker()),
        ok("grüße")
    );
}

#[test]
fn no_content_type_and_not_utf8_is_described() {
    let answer = interpret(&read(200, None, &[0xff, 0xfe, 0x00]), &masker());
    assert_eq!(
        answer,
        noted(ErrorCode::BodyNotText, "[BODY_NOT_TEXT] upstream answered 200 OK with 3 bytes of no content type, which is not text and is not shown")
    );
}

#[test]
fn binary_is_described_by_size_and_type() {
    let body = vec![0x89u8; 2048];
    let answer = interpret(&read(200, Some("image/png"), &body), &masker());
    assert_eq!(
        answer,
        noted(ErrorCode::BodyNotText, "[BODY_NOT_TEXT] upstream answered 200 OK with 2048 bytes of type image/png, which is not text and is not shown")
    );
}

#[test]
fn cut_binary_is_more_than_the_limit() {
    let body = vec![0u8; BODY_LIMIT * 2];
    let answer = interpret(
        &read(200, Some("application/octet-stream"), &body),
        &masker(),
    );
    assert!(answer
        .text
        .contains("more than 1048576 bytes of type application/octet-stream"));
    assert!(!answer.is_error);
}

#[test]
fn empty_success_says_so() {
    assert_eq!(
        interpret(&read(204, None, b""), &masker()),
        noted(
            ErrorCode::BodyEmpty,
            "[BODY_EMPTY] upstream answered 204 No Content with an empty body"
        )
    );
}

fn truncation_note() -> String {
    format!("\n\n{}", AgentMessage::BodyTruncated.render())
}

#[test]
fn exactly_one_megabyte_comes_back_whole() {
    let body = "a".repeat(BODY_LIMIT);
    let answer = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(answer.text.len(), BODY_LIMIT);
    assert!(!answer.text.contains("BODY_TRUNCATED"));
}

#[test]
fn one_byte_more_is_cut_with_a_note() {
    let body = "a".repeat(BODY_LIMIT + 1);
    let answer = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(
        answer.text,
        format!("{}{}", "a".repeat(BODY_LIMIT), truncation_note())
    );
    assert!(!answer.is_error);
}

/// The cut text is the masked bytes grown once, by the note's exact length:
/// an append to a buffer of exactly 1 MB would double it, which the memory
/// bound on 100 cut answers in flight does not allow for.
#[test]
fn a_cut_text_takes_no_more_memory_than_its_length() {
    let body = "a".repeat(BODY_LIMIT + 1);
    let answer = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(answer.text.capacity(), answer.text.len());
}

#[rstest]
#[case::two_bytes("é", 1)]
#[case::three_bytes("€", 1)]
#[case::three_bytes_two_in("€", 2)]
#[case::four_bytes("😀", 1)]
#[case::four_bytes_three_in("😀", 3)]
fn the_cut_never_splits_a_character(#[case] character: &str, #[case] bytes_before_limit: usize) {
    // The character starts `bytes_before_limit` bytes before the limit.
    let filler = "a".repeat(BODY_LIMIT - bytes_before_limit);
    let body = format!("{filler}{character}{}", "b".repeat(100));
    let answer = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(answer.text, format!("{filler}{}", truncation_note()));
}

#[test]
fn a_character_ending_at_the_limit_is_kept() {
    let filler = "a".repeat(BODY_LIMIT - 2);
    let body = format!("{filler}é{}", "b".repeat(10));
    let answer = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(answer.text, format!("{filler}é{}", truncation_note()));
}

#[test]
fn cut_json_is_shown_raw() {
    let body = format!("{{\"a\":\"{}\"}}", "x".repeat(BODY_LIMIT));
    let answer = interpret(
        &read(200, Some("application/json"), body.as_bytes()),
        &masker(),
    );
    assert!(answer.text.starts_with("{\"a\":\"xxx"));
    assert!(answer.text.ends_with(&truncation_note()));
}

#[test]
fn an_endless_body_cut_at_the_budget_still_answers() {
    let budget = read_budget(&masker());
    let answer = interpret(&delivered(200, None, &vec![b'z'; budget], false), &masker());
    assert_eq!(answer.text.len(), BODY_LIMIT + truncation_note().len());
}

#[rstest]
#[case::moved(301)]
#[case::found(302)]
#[case::see_other(303)]
#[case::temporary(307)]
#[case::permanent(308)]
fn redirects_are_errors_naming_the_location(#[case] status: u16) {
    let mut answer = delivered(status, None, b"", true);
    answer.headers.insert(
        LOCATION,
        HeaderValue::from_static("https://elsewhere.example/x"),
    );
    let answer = interpret(&answer, &masker());
    assert!(answer.is_error);
    assert!(
        answer.text.starts_with("[UPSTREAM_REDIRECT]"),
        "{}",
        answer.text
    );
    assert!(answer.text.contains("https://elsewhere.example/x"));
}

#[test]
fn a_redirect_location_is_masked() {
    let mut answer = delivered(302, None, b"", true);
    let location = format!("https://login.example/?token={SECRET}");
    answer
        .headers
        .insert(LOCATION, HeaderValue::from_str(&location).expect("valid"));
    let answer = interpret(&answer, &masker());
    assert!(answer
        .text
        .contains("https://login.example/?token=[credential]"));
    assert!(!answer.text.contains(SECRET));
}

#[rstest]
#[case::not_modified(304)]
#[case::multiple_choices(300)]
#[case::not_found(404)]
#[case::server_error(503)]
fn other_statuses_are_errors_with_the_body_start(#[case] status: u16) {
    let answer = interpret(
        &delivered(status, Some("text/plain"), b"went wrong", true),
        &masker(),
    );
    assert!(answer.is_error);
    assert!(answer
        .text
        .starts_with(&format!("[UPSTREAM_STATUS] upstream answered {status}")));
    assert!(answer.text.ends_with(": went wrong"), "{}", answer.text);
}

#[test]
fn error_bodies_show_at_most_1024_bytes() {
    let body = format!("{}{}", "e".repeat(1023), "€ and more");
    let answer = interpret(&read(500, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(
        answer.text,
        format!(
            "[UPSTREAM_STATUS] upstream answered 500 Internal Server Error: {}",
            "e".repeat(1023)
        )
    );
}

#[test]
fn error_bodies_that_are_not_utf8_are_shown_lossily() {
    let answer = interpret(&delivered(500, None, &[b'a', 0xff, b'b'], true), &masker());
    assert!(answer.text.ends_with(": a\u{fffd}b"), "{}", answer.text);
}

#[test]
fn the_credential_is_masked_in_success_and_error_bodies() {
    let body = format!("your token is {SECRET}!");
    let success = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(success, ok("your token is [credential]!"));
    let failure = interpret(&read(401, Some("text/plain"), body.as_bytes()), &masker());
    assert!(failure.text.ends_with("your token is [credential]!"));
}

#[test]
fn the_credential_is_masked_in_pretty_json_even_with_odd_escapes() {
    // `\u0074` is `t`: only the parsed text shows the credential plainly.
    let body = format!(r#"{{"echo":"\u0074{}"}}"#, &SECRET[1..]);
    let answer = interpret(
        &read(200, Some("application/json"), body.as_bytes()),
        &masker(),
    );
    assert_eq!(answer.text, "{\n  \"echo\": \"[credential]\"\n}");
}

#[test]
fn the_credential_at_the_cut_is_masked_whole() {
    // The credential starts five bytes before the limit and ends after it.
    let filler = "a".repeat(BODY_LIMIT - 5);
    let body = format!("{filler}{SECRET}{}", "b".repeat(100));
    let answer = interpret(&read(200, Some("text/plain"), body.as_bytes()), &masker());
    assert_eq!(
        answer.text,
        format!("{filler}[credential]{}", truncation_note())
    );
    assert!(!answer.text.contains(&SECRET[..5]));
}

#[test]
fn the_credential_at_the_end_of_the_error_body_start_is_masked_whole() {
    let body = format!("{}{SECRET}", "e".repeat(1020));
    let answer = interpret(&read(500, None, body.as_bytes()), &masker());
    assert!(answer
        .text
        .ends_with(&format!("{}[credential]", "e".repeat(1020))));
}

#[test]
fn a_non_text_content_type_is_masked() {
    let content_type = format!("application/x-{SECRET}");
    let answer = interpret(&read(200, Some(&content_type), &[0, 1]), &masker());
    assert!(answer.text.contains("application/x-[credential]"));
}

/// The read budget is the 1 MB limit plus the longest form of the
/// credential, so a form cut by the limit is still seen whole and masked,
/// and not a byte more is held (TC-ANS-009, TC-MASK-006).
#[test]
fn the_read_budget_is_the_limit_and_one_credential_form() {
    let masker = masker();
    assert_eq!(read_budget(&masker), BODY_LIMIT + masker.longest_form());
    assert_eq!(read_budget(&Masker::new(None, None)), BODY_LIMIT + 1);
}

/// Bytes that are no UTF-8 sequence are cut at the limit, even at the
/// body's very start, where the look-back has nowhere to go.
#[test]
fn stray_continuation_bytes_are_cut_at_the_limit() {
    assert_eq!(char_boundary_at_or_before(&[0x80, 0x80, 0x80], 1), 1);
    assert_eq!(char_boundary_at_or_before("é€".as_bytes(), 1), 0);
    assert_eq!(char_boundary_at_or_before("é€".as_bytes(), 3), 2);
}
