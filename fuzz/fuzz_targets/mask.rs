//! The masker. The gateway masks a body once it is collected (the network's
//! chunks never reach the masker), so the fuzzer cuts instead: any body,
//! with the credential's writings (the oracle's, and one mixed by the
//! fuzzer) at any place, masked whole (`mask`), up to any cut
//! (`mask_until`), and interpreted as an answer (`interpret`) with the
//! writings placed across the 1 MB cut and the 1 KB cut of error bodies.
//!
//! No writing the masker claims to mask survives whole, no start of one is
//! left at a cut, and the read budget sees the widest whole past the cut.

#![no_main]

use arbitrary::Unstructured;
use hosted_mcp_gateway::answer::{self, Masker};
use hosted_mcp_gateway::convert::CredentialPlacement;
use hosted_mcp_gateway::deliver::Delivered;
use hosted_mcp_gateway::errors::{AgentMessage, BODY_LIMIT, ERROR_BODY_LIMIT};
use hosted_mcp_gateway_fuzz::{self as gen, oracle};
use libfuzzer_sys::fuzz_target;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE, LOCATION};
use reqwest::StatusCode;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let whole_answers = u.arbitrary::<bool>()?;
    let placement = match u.int_in_range(0..=4)? {
        0 => None,
        1 => Some(CredentialPlacement::Basic),
        2 => Some(CredentialPlacement::Bearer),
        3 => Some(CredentialPlacement::Header("X-Key".to_owned())),
        _ => Some(CredentialPlacement::Query("key".to_owned())),
    };
    let basic = placement == Some(CredentialPlacement::Basic);
    // U+FFFD is what any stray byte turns into on the way to text; a
    // credential holding it would be "found" where the upstream sent no
    // credential at all.
    let mut credential = gen::text(u)?.replace('\u{FFFD}', "?");
    if whole_answers {
        // Messages of the catalogue around the body hold ordinary words and
        // numbers; a credential that starts with a snowman is none of them.
        // A basic credential's password is a secret of its own (" 1" would
        // be found in "with 1179 bytes"), so it starts with one too.
        credential.insert(0, '\u{2603}');
        if basic {
            if let Some(colon) = credential.find(':') {
                credential.insert(colon + 1, '\u{2603}');
            }
        }
    }
    if credential.is_empty() {
        return Ok(());
    }
    let masker = Masker::new(Some(&credential), placement.as_ref());
    let writings = gen::writings(u, &credential, basic);
    let budget = answer::read_budget(&masker);
    oracle::assert_read_budget(budget, BODY_LIMIT, &writings);

    let mut body = gen::body_with_writings(u, &writings)?;
    if !whole_answers {
        let text = String::from_utf8_lossy(&body);
        oracle::assert_masked(masker.mask(&text).as_bytes(), &writings);
        let cut = u.int_in_range(0..=body.len())?;
        let kept = masker.mask_until(&body, cut);
        oracle::assert_masked(&kept, &writings);
        oracle::assert_nothing_partial(&kept, &body, cut, &writings);
        return Ok(());
    }

    // Put the pieces across one of the cuts.
    // The 1 MB cut costs a few milliseconds an input under the sanitizer,
    // so it gets one input in eight; the 1 KB cut is the same code.
    let limit = *u.choose(&[
        0,
        0,
        0,
        ERROR_BODY_LIMIT,
        ERROR_BODY_LIMIT,
        ERROR_BODY_LIMIT,
        ERROR_BODY_LIMIT,
        BODY_LIMIT,
    ])?;
    if limit > 0 {
        let before = u.int_in_range(0..=body.len().min(limit))?;
        let filler = *u.choose(&[b'a', b' ', 0xE2, 0x80, 0xFF])?;
        let mut padded = vec![filler; limit - before];
        padded.append(&mut body);
        let after = u.int_in_range(0..=8)?;
        padded.extend(std::iter::repeat_n(filler, after));
        body = padded;
    }
    // What the upstream sent; the gateway reads up to its budget.
    let sent = body.clone();
    let complete = body.len() <= budget;
    body.truncate(budget);

    let status = StatusCode::from_u16(*u.choose(&[200, 201, 203, 302, 307, 404, 500, 599])?)
        .expect("a valid status");
    let mut headers = HeaderMap::new();
    let content_type = *u.choose(&[
        "",
        "application/json",
        "application/problem+json; charset=utf-8",
        "text/plain",
        "image/png",
        "echo",
    ])?;
    match content_type {
        "" => {}
        // A content type that echoes the credential, where a header can.
        "echo" => {
            let echoed = &u.choose(&writings)?.text;
            if let Ok(value) = HeaderValue::from_str(&format!("text/{echoed}")) {
                headers.insert(CONTENT_TYPE, value);
            }
        }
        other => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(other));
        }
    }
    if u.arbitrary()? {
        let location = String::from_utf8_lossy(&body[..body.len().min(2048)]).into_owned();
        if let Ok(value) = HeaderValue::from_bytes(location.as_bytes()) {
            headers.insert(LOCATION, value);
        }
    }
    let delivered = Delivered {
        status,
        headers,
        body,
        complete,
    };
    let shown = answer::interpret(&delivered, &masker);
    let text = shown.text.as_bytes();
    oracle::assert_masked(text, &writings);

    let body = &delivered.body;
    let truncated = format!("\n\n{}", AgentMessage::BodyTruncated.render());
    if status.is_success() {
        if let Some(kept) = shown.text.strip_suffix(&truncated) {
            let cut = oracle::char_boundary_at_or_before(body, BODY_LIMIT);
            oracle::assert_nothing_partial(kept.as_bytes(), &sent, cut, &writings);
        }
    } else if !matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308) {
        let cut = oracle::char_boundary_at_or_before(body, ERROR_BODY_LIMIT);
        if cut > 0 {
            oracle::assert_nothing_partial(text, &sent, cut, &writings);
        }
    }
    Ok(())
}
