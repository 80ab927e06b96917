//! Loading and converting a whole document, done once at start-up: ours
//! (`load::load_str` then `convert::convert`) against deserializing the same
//! OpenAPI 3.0 text into `openapiv3::OpenAPI`. The peer only parses, with no
//! `$ref` resolved and no tool made, so it is a lower bound on what any
//! converter built on it pays before its own work starts.
//!
//! Group `convert/document`, one parameter per document:
//! - `ours-load+convert`: text to tool catalogue;
//! - `ours-load`: text to our resolved model, the part comparable to parsing;
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
}

/// A small 3.0 document, and Stripe's 4 MB one where the corpus is present.
fn documents() -> Vec<Doc> {
    let mut sources: Vec<(&'static str, PathBuf)> =
        vec![("petstore-fixture", support::fixture("petstore.yaml"))];
    sources.extend(support::corpus("stripe__spec3.yaml").map(|path| ("stripe-spec3", path)));
    sources
        .into_iter()
        .map(|(label, path)| {
            let doc = Doc {
                label,
                text: support::read(&path),
            };
            // Both sides must accept the document, or one would time an error.
            let ours = ours(&doc.text).expect("ours loads and converts the document");
            peer(&doc.text).unwrap_or_else(|e| panic!("{label}: openapiv3 rejects it: {e}"));
            eprintln!("{label}: {} bytes, {ours} tools", doc.text.len());
            doc
        })
        .collect()
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
        group.bench_with_input(
            BenchmarkId::new("openapiv3-parse", doc.label),
            &doc.text,
            |b, text| b.iter(|| peer(black_box(text))),
        );
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
