//! Loading and converting a whole document, done once at start-up: ours
//! (`load::load_str` then `convert::convert`) against two baselines run on
//! the same text in the same group:
//! - parsing it into a plain value and nothing else (`serde_json::Value` with
//!   serde_json for JSON text; for YAML, `yaml_serde::Value`, and
//!   `serde_json::Value` through yaml_serde, which is what our loader builds):
//!   the floor any converter that reads the text pays;
//! - deserializing the OpenAPI 3.0 text into `openapiv3::OpenAPI`, with no
//!   `$ref` resolved and no tool made, where openapiv3 accepts the document.
//!
//! Group `convert/document`, one parameter per document:
//! - `ours-load+convert`: text to tool catalogue;
//! - `ours-load`: text to our resolved model, the part comparable to parsing;
//! - `json-value-parse` / `yaml-value-parse` / `yaml-json-value-parse`: text
//!   to a value;
//! - `openapiv3-parse`: text to `openapiv3::OpenAPI`.

mod support;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use hosted_mcp_gateway::{convert, load};

struct Doc {
    label: &'static str,
    text: String,
    json: bool,
    /// Whether openapiv3 accepts it (it refuses some real documents).
    openapiv3: bool,
}

/// A small 3.0 document, and where the corpus is present the largest JSON
/// one (Twilio's 1.9 MB) and the largest YAML one (Stripe's 4.2 MB).
fn documents() -> Vec<Doc> {
    let mut sources: Vec<(&'static str, PathBuf)> =
        vec![("petstore-fixture", support::fixture("petstore.yaml"))];
    sources.extend(
        support::corpus("twilio__twilio_api_v2010.json").map(|path| ("twilio-api-v2010", path)),
    );
    sources.extend(support::corpus("stripe__spec3.yaml").map(|path| ("stripe-spec3", path)));
    sources
        .into_iter()
        .map(|(label, path)| {
            let text = support::read(&path);
            let json = text.trim_start().starts_with('{');
            // Every side must accept the document, or one would time an error.
            let ours = ours(&text).expect("ours loads and converts the document");
            if json {
                json_value(&text).expect("serde_json parses it");
            } else {
                yaml_value(&text).expect("yaml_serde parses it");
                yaml_json_value(&text).expect("yaml_serde parses it into JSON");
            }
            let openapiv3 = match peer(&text) {
                Ok(_) => true,
                Err(e) => {
                    eprintln!("{label}: openapiv3 refuses it ({e}): not timed");
                    false
                }
            };
            eprintln!("{label}: {} bytes, {ours} tools", text.len());
            Doc {
                label,
                text,
                json,
                openapiv3,
            }
        })
        .collect()
}

fn json_value(text: &str) -> serde_json::Result<serde_json::Value> {
    serde_json::from_str(text)
}

fn yaml_value(text: &str) -> Result<yaml_serde::Value, yaml_serde::Error> {
    yaml_serde::from_str(text)
}

fn yaml_json_value(text: &str) -> Result<serde_json::Value, yaml_serde::Error> {
    yaml_serde::from_str(text)
}

/// Text to tools; the count keeps the work observable.
fn ours(text: &str) -> Result<usize, load::LoadError> {
    let document = load::load_str(text, "bench")?;
    Ok(convert::convert(&document)?.tools.len())
}

fn peer(text: &str) -> Result<openapiv3::OpenAPI, yaml_serde::Error> {
    yaml_serde::from_str(text)
}

fn document(c: &mut Criterion) {
    let mut group = c.benchmark_group("convert/document");
    for doc in documents() {
        if doc.text.len() > 1_000_000 {
            // Hundreds of milliseconds an iteration: a few flat samples.
            group
                .sampling_mode(SamplingMode::Flat)
                .sample_size(10)
                .measurement_time(Duration::from_secs(4));
        }
        group.bench_with_input(
            BenchmarkId::new("ours-load+convert", doc.label),
            &doc.text,
            |b, text| b.iter(|| ours(black_box(text))),
        );
        group.bench_with_input(
            BenchmarkId::new("ours-load", doc.label),
            &doc.text,
            |b, text| b.iter(|| load::load_str(black_box(text), "bench")),
        );
        if doc.json {
            group.bench_with_input(
                BenchmarkId::new("json-value-parse", doc.label),
                &doc.text,
                |b, text| b.iter(|| json_value(black_box(text))),
            );
        } else {
            group.bench_with_input(
                BenchmarkId::new("yaml-value-parse", doc.label),
                &doc.text,
                |b, text| b.iter(|| yaml_value(black_box(text))),
            );
            group.bench_with_input(
                BenchmarkId::new("yaml-json-value-parse", doc.label),
                &doc.text,
                |b, text| b.iter(|| yaml_json_value(black_box(text))),
            );
        }
        if doc.openapiv3 {
            group.bench_with_input(
                BenchmarkId::new("openapiv3-parse", doc.label),
                &doc.text,
                |b, text| b.iter(|| peer(black_box(text))),
            );
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = document
}
criterion_main!(benches);
