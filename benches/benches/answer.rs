//! The answer path for a 1 MB body that echoes the credential: our masking
//! and `answer::interpret` against a naive baseline that calls
//! `String::replace` once per form of the credential.
//!
//! Both are public: `answer::Masker` and `answer::interpret` over a
//! `deliver::Delivered` built in memory, so no network is involved.
//!
//! Groups (ours and the baseline side by side, throughput in bytes):
//! - `answer/mask`: masking the body's text alone, with the credential echoed
//!   and with no credential in it;
//! - `answer/interpret`: the whole 200 answer, as `text/plain` (decode, mask)
//!   and as `application/json` (parse, pretty-print, mask).

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use hosted_mcp_gateway::answer::{self, Masker, MASK};
use hosted_mcp_gateway::convert::CredentialPlacement;
use hosted_mcp_gateway::deliver::Delivered;
use hosted_mcp_gateway::errors::BODY_LIMIT;
use hosted_mcp_gateway::request::encode_component;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use reqwest::StatusCode;

/// A bearer token with characters that percent-encoding changes, so the
/// masker has more than one form to look for.
const SECRET: &str = "tok/4eC39HqLyjWDarjtT1zdp7dc+Q==";

/// The credential's forms as the baseline computes them, longest first.
fn forms() -> Vec<String> {
    let json = serde_json::to_string(SECRET).expect("a string serializes");
    let mut forms = vec![
        SECRET.to_owned(),
        encode_component(SECRET),
        json[1..json.len() - 1].to_owned(),
    ];
    forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    forms.dedup();
    forms
}

fn naive_mask(text: &str, forms: &[String]) -> String {
    let mut masked = text.to_owned();
    for form in forms {
        masked = masked.replace(form.as_str(), MASK);
    }
    masked
}

/// A JSON array of request-log records just under 1 MB. With `echoed`, every
/// 500th record carries the credential raw in one field and percent-encoded
/// in a URL (13 records, 26 echoes).
fn body(echoed: bool) -> String {
    let secret = encode_component(SECRET);
    let mut records = Vec::new();
    let mut size = 2;
    for index in 0.. {
        let (token, key) = if echoed && index % 500 == 0 {
            (SECRET, secret.as_str())
        } else {
            ("none", "none")
        };
        let record = format!(
            r#"{{"id":{index},"method":"GET","url":"https://api.example.com/v1/items/{index}?key={key}&page=2","status":200,"token":"{token}","note":"request served from the edge cache in 12 ms"}}"#
        );
        if size + record.len() + 1 > BODY_LIMIT {
            break;
        }
        size += record.len() + 1;
        records.push(record);
    }
    format!("[{}]", records.join(","))
}

fn delivered(body: &str, content_type: &'static str) -> Delivered {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    Delivered {
        status: StatusCode::OK,
        headers,
        body: body.as_bytes().to_vec(),
        complete: true,
    }
}

/// The baseline for `interpret`: the same steps, each done the obvious way.
fn naive_interpret(delivered: &Delivered, forms: &[String]) -> String {
    let text = String::from_utf8_lossy(&delivered.body);
    let is_json = delivered
        .headers
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
    if is_json {
        let value: serde_json::Value = serde_json::from_str(&text).expect("the body is JSON");
        let pretty = serde_json::to_string_pretty(&value).expect("a value serializes");
        naive_mask(&pretty, forms)
    } else {
        naive_mask(&text, forms)
    }
}

fn mask(c: &mut Criterion) {
    let masker = Masker::new(Some(SECRET), Some(&CredentialPlacement::Bearer));
    let forms = forms();
    let mut group = c.benchmark_group("answer/mask");
    // Each iteration handles a megabyte: flat samples keep the run short.
    group.sampling_mode(SamplingMode::Flat);
    for (label, text) in [("1MB-echoed", body(true)), ("1MB-clean", body(false))] {
        // Same output, or the comparison would mean nothing.
        assert_eq!(masker.mask(&text), naive_mask(&text, &forms), "{label}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("ours", label), &text, |b, text| {
            b.iter(|| masker.mask(black_box(text)))
        });
        group.bench_with_input(
            BenchmarkId::new("naive-replace", label),
            &text,
            |b, text| b.iter(|| naive_mask(black_box(text), &forms)),
        );
    }
    group.finish();
}

fn interpret(c: &mut Criterion) {
    let masker = Masker::new(Some(SECRET), Some(&CredentialPlacement::Bearer));
    let forms = forms();
    let text = body(true);
    let mut group = c.benchmark_group("answer/interpret");
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(text.len() as u64));
    for (label, content_type) in [
        ("text-1MB-echoed", "text/plain"),
        ("json-1MB-echoed", "application/json"),
    ] {
        let delivered = delivered(&text, content_type);
        let ours = answer::interpret(&delivered, &masker);
        assert!(!ours.is_error && !ours.text.contains(SECRET), "{label}");
        assert_eq!(ours.text, naive_interpret(&delivered, &forms), "{label}");
        group.bench_with_input(
            BenchmarkId::new("ours", label),
            &delivered,
            |b, delivered| b.iter(|| answer::interpret(black_box(delivered), &masker)),
        );
        group.bench_with_input(
            BenchmarkId::new("naive-replace", label),
            &delivered,
            |b, delivered| b.iter(|| naive_interpret(black_box(delivered), &forms)),
        );
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = mask, interpret
}
criterion_main!(benches);
