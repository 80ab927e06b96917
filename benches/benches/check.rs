//! Argument checking, the per-call hot path: our `check::Validator` against
//! jsonschema-rs, the fastest general JSON Schema validator in Rust, on tool
//! input schemas made by our own converter from real documents.
//!
//! Groups (each holds ours and the peer side by side):
//! - `check/valid`: arguments that pass (ours `validate`, jsonschema `is_valid`);
//! - `check/invalid`: arguments with several errors, every error collected
//!   (ours `validate`, jsonschema `iter_errors` collected), and jsonschema's
//!   `is_valid` as the floor of merely detecting them;
//! - `check/compile`: compiling one tool's schema;
//! - `check/compile_document`: compiling every tool of a document, as the
//!   gateway does once at load.

mod support;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::convert::{self, Tool};
use hosted_mcp_gateway::load;
use serde_json::{json, Map, Value};

/// One tool's schema with a passing and a failing set of arguments.
struct Case {
    label: &'static str,
    schema: Map<String, Value>,
    valid: Value,
    invalid: Value,
}

impl Case {
    fn schema_value(&self) -> Value {
        Value::Object(self.schema.clone())
    }
}

/// jsonschema configured to check what ours checks: draft 2020-12 (what the
/// converter emits) with formats asserted (ours checks four of them).
fn peer(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .expect("jsonschema compiles the converter's schema")
}

/// Every tool our converter makes from the document.
fn tools(path: &Path) -> Vec<Tool> {
    let document = load::load_str(&support::read(path), &path.display().to_string())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    convert::convert(&document)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .tools
}

fn tool(tools: &[Tool], name: &str) -> Map<String, Value> {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
        .input_schema
        .clone()
}

/// The fixture's `createPet`: a small body behind a `$ref`.
fn petstore() -> Case {
    let tools = tools(&support::fixture("petstore.yaml"));
    Case {
        label: "petstore-createPet",
        schema: tool(&tools, "createPet"),
        valid: json!({"body": {"name": "Rex", "tag": null, "born": "2020-02-29"}}),
        // Four errors: too short, wrong type, bad date, unknown argument.
        invalid: json!({
            "body": {"name": "", "tag": 5, "born": "29/02/2020"},
            "owner": "ada"
        }),
    }
}

/// Stripe's `PostIssuingCardholders`: a 30 KB schema, nested objects and
/// arrays, and 295-value enums that a category must be looked up in.
fn stripe() -> Option<Case> {
    let tools = tools(&support::corpus("stripe__spec3.yaml")?);
    let valid = json!({"body": {
        "name": "Jenny Rosen",
        "email": "jenny.rosen@example.com",
        "phone_number": "+18888675309",
        "type": "individual",
        "status": "active",
        "billing": {"address": {
            "line1": "1234 Main Street", "city": "San Francisco", "state": "CA",
            "postal_code": "94111", "country": "US"
        }},
        "individual": {
            "first_name": "Jenny", "last_name": "Rosen",
            "dob": {"day": 1, "month": 11, "year": 1981},
            "card_issuing": {"user_terms_acceptance": {
                "date": 1_700_000_000, "ip": "203.0.113.7", "user_agent": "Mozilla/5.0"
            }}
        },
        "metadata": {"order_id": "6735", "team": "ops"},
        "preferred_locales": ["en", "fr"],
        "spending_controls": {
            "allowed_categories": ["airlines_air_carriers", "bakeries", "taxicabs_limousines"],
            "spending_limits": [
                {"amount": 50_000, "interval": "monthly", "categories": ["airlines_air_carriers"]},
                {"amount": 2_000, "interval": "per_authorization"}
            ],
            "spending_limits_currency": "usd"
        }
    }});
    // Seven errors at four depths: wrong types, a missing member, an unknown
    // member and values outside enums (one of them the 295-value one).
    let invalid = json!({"body": {
        "name": 42,
        "nickname": "JR",
        "billing": {"address": {"line1": "1234 Main Street", "postal_code": "94111", "country": "US"}},
        "preferred_locales": ["en", "xx"],
        "spending_controls": {
            "allowed_categories": ["bakeries", "space_travel"],
            "spending_limits": [{"amount": "100", "interval": "hourly"}]
        }
    }});
    Some(Case {
        label: "stripe-PostIssuingCardholders",
        schema: tool(&tools, "PostIssuingCardholders"),
        valid,
        invalid,
    })
}

/// Both validators must agree on the inputs, or the comparison means nothing.
fn agree(case: &Case) {
    let ours = Validator::compile(&case.schema);
    let theirs = peer(&case.schema_value());
    assert!(
        ours.validate(&case.valid).is_ok(),
        "{}: ours rejects the valid arguments",
        case.label
    );
    assert!(
        theirs.is_valid(&case.valid),
        "{}: jsonschema rejects the valid arguments",
        case.label
    );
    let our_errors = ours
        .validate(&case.invalid)
        .err()
        .map_or(0, |errors| errors.len());
    let their_errors = theirs.iter_errors(&case.invalid).count();
    assert!(
        our_errors > 1 && their_errors > 1,
        "{}: invalid arguments must have several errors",
        case.label
    );
    eprintln!("{}: invalid arguments give {our_errors} violations (ours), {their_errors} errors (jsonschema)", case.label);
}

fn cases() -> Vec<Case> {
    std::iter::once(petstore()).chain(stripe()).collect()
}

fn validation(c: &mut Criterion) {
    let cases = cases();
    cases.iter().for_each(agree);

    let mut group = c.benchmark_group("check/valid");
    for case in &cases {
        let ours = Validator::compile(&case.schema);
        let theirs = peer(&case.schema_value());
        group.bench_with_input(
            BenchmarkId::new("ours", case.label),
            &case.valid,
            |b, args| b.iter(|| ours.validate(black_box(args)).is_ok()),
        );
        group.bench_with_input(
            BenchmarkId::new("jsonschema", case.label),
            &case.valid,
            |b, args| b.iter(|| theirs.is_valid(black_box(args))),
        );
    }
    group.finish();

    let mut group = c.benchmark_group("check/invalid");
    for case in &cases {
        let ours = Validator::compile(&case.schema);
        let theirs = peer(&case.schema_value());
        group.bench_with_input(
            BenchmarkId::new("ours", case.label),
            &case.invalid,
            |b, args| b.iter(|| ours.validate(black_box(args))),
        );
        // We report every error, so the peer's fair figure collects them all.
        group.bench_with_input(
            BenchmarkId::new("jsonschema-iter_errors", case.label),
            &case.invalid,
            |b, args| b.iter(|| theirs.iter_errors(black_box(args)).collect::<Vec<_>>()),
        );
        group.bench_with_input(
            BenchmarkId::new("jsonschema-is_valid", case.label),
            &case.invalid,
            |b, args| b.iter(|| theirs.is_valid(black_box(args))),
        );
    }
    group.finish();
}

fn compilation(c: &mut Criterion) {
    let cases = cases();
    let mut group = c.benchmark_group("check/compile");
    for case in &cases {
        let value = case.schema_value();
        group.bench_with_input(
            BenchmarkId::new("ours", case.label),
            &case.schema,
            |b, schema| b.iter(|| Validator::compile(black_box(schema))),
        );
        group.bench_with_input(
            BenchmarkId::new("jsonschema", case.label),
            &value,
            |b, schema| b.iter(|| peer(black_box(schema))),
        );
    }
    group.finish();

    // The gateway compiles every tool of the document at load.
    let Some(path) = support::corpus("stripe__spec3.yaml") else {
        return;
    };
    let schemas: Vec<Map<String, Value>> = tools(&path)
        .into_iter()
        .map(|tool| tool.input_schema)
        .collect();
    let values: Vec<Value> = schemas.iter().cloned().map(Value::Object).collect();
    let label = format!("stripe-{}-tools", schemas.len());
    let mut group = c.benchmark_group("check/compile_document");
    // Tens of milliseconds an iteration: a few flat samples.
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(4));
    group.bench_with_input(BenchmarkId::new("ours", &label), &schemas, |b, schemas| {
        b.iter(|| schemas.iter().map(Validator::compile).collect::<Vec<_>>())
    });
    group.bench_with_input(
        BenchmarkId::new("jsonschema", &label),
        &values,
        |b, values| b.iter(|| values.iter().map(peer).collect::<Vec<_>>()),
    );
    group.finish();
}

fn config() -> Criterion {
    // Short runs: the machine is small and shared; the ratios, not the last
    // percent, are what the figures are for.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = validation, compilation
}
criterion_main!(benches);
