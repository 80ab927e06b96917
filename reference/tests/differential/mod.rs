//! The checker against an independent validator (`jsonschema`), on the input
//! schema of every tool of every document in the shared corpus and in
//! `fixtures/`, over generated instances: valid ones, and ones changed in one
//! place (a wrong type, a missing or extra member, a value past or at a bound,
//! a bad format, an enum miss, ...).
//!
//! `jsonschema` judges each instance by the schema reduced to the checked
//! keywords and depths (`differential/oracle.rs`); the checker must accept
//! what that accepts and refuse what that refuses. Any disagreement fails,
//! naming the document, tool, seed, instance, the place changed and both
//! verdicts.
//!
//! Instances are seeded from the document and tool names, so runs repeat.
//! `DIFFERENTIAL_SEED` (a number) draws other instances and
//! `DIFFERENTIAL_INSTANCES` sets how many per tool (200 by default), for
//! longer runs by hand. The corpus lives beside the project
//! (`../shared/corpus`); without it only the fixtures are compared.

mod generate;
mod oracle;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::support::files_under;
use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::convert::{convert, Tool};
use hosted_mcp_gateway::load::{load_path, LoadError};
use serde_json::Value;

/// Instances per tool unless `DIFFERENTIAL_INSTANCES` says otherwise.
const INSTANCES: usize = 200;

/// The seed unless `DIFFERENTIAL_SEED` says otherwise.
const SEED: u64 = 0x7c4e_c4ec_0d1f_f001;

/// Disagreements shown in full; the rest are counted.
const SHOWN: usize = 12;

fn corpus_documents() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let Ok(manifest) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        eprintln!("corpus not found at {}: fixtures only", dir.display());
        return Vec::new();
    };
    manifest
        .lines()
        .skip(1)
        .filter_map(|line| line.split('\t').next())
        .filter(|file| !file.trim().is_empty())
        .map(|file| dir.join(file))
        .collect()
}

/// The tools of each document that loads, labelled by the document's path.
fn tools(paths: &[PathBuf], fixtures: bool) -> Vec<(String, Vec<Tool>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut documents = Vec::new();
    for path in paths {
        let label = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let loaded = load_path(path).and_then(|document| convert(&document));
        match loaded {
            Ok(catalogue) => documents.push((label, catalogue.tools)),
            // A fixture that is not a document, or not meant to load, has
            // nothing to compare; a corpus document always does.
            Err(error) if fixtures => {
                let why = match error {
                    LoadError::NotOpenApi { .. } => "not a document".to_owned(),
                    other => other.to_string(),
                };
                eprintln!("skipped {label}: {why}");
            }
            Err(error) => panic!("{label}: {error}"),
        }
    }
    documents
}

fn setting(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(text) => {
            let parsed = match text.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => text.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{name}={text} is not a number"))
        }
        Err(_) => default,
    }
}

/// FNV-1a, to give each tool its own seed.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// jsonschema as the checker is specified: draft 2020-12, the four formats
/// asserted (the reduction leaves no other), nothing fetched.
fn oracle_validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .map_err(|error| error.to_string())
}

#[derive(Default)]
struct Tally {
    compared: usize,
    accepted: usize,
    /// Refused by the exact reduction, accepted by the lenient one: either
    /// verdict is right.
    either: usize,
    disagreements: Vec<String>,
}

/// Compares the two validators on `count` instances for one tool.
fn compare(document: &str, tool: &Tool, base_seed: u64, count: usize, tally: &Mutex<Tally>) {
    let ours = Validator::compile(&tool.input_schema);
    let exact = oracle::reduce(&tool.input_schema, false);
    let lenient = oracle::reduce(&tool.input_schema, true);
    let built = oracle_validator(&exact.schema).and_then(|exact_validator| {
        let lenient_validator = (lenient.schema != exact.schema)
            .then(|| oracle_validator(&lenient.schema))
            .transpose()?;
        Ok((exact_validator, lenient_validator))
    });
    let (exact_validator, lenient_validator) = match built {
        Ok(validators) => validators,
        Err(error) => {
            let message = format!(
                "{document} tool {}: jsonschema refuses the reduced schema: {error}",
                tool.name
            );
            tally.lock().expect("tally").disagreements.push(message);
            return;
        }
    };
    let tool_seed = base_seed ^ fnv(&format!("{document}\0{}", tool.name));
    let mut local = Tally::default();
    for index in 0..count {
        let seed = generate::Rng::new(tool_seed.wrapping_add(index as u64)).next();
        // One valid instance in four; the others are changed in one place.
        let (instance, mutation) = generate::instance(&exact.schema, seed, index % 4 != 0);
        let verdict = ours.validate(&instance);
        let must_accept = exact_validator.is_valid(&instance);
        let must_refuse = !match &lenient_validator {
            Some(lenient_validator) => lenient_validator.is_valid(&instance),
            None => must_accept,
        };
        local.compared += 1;
        local.accepted += usize::from(verdict.is_ok());
        local.either += usize::from(!must_accept && !must_refuse);
        let wrong = (must_accept && verdict.is_err()) || (must_refuse && verdict.is_ok());
        if !wrong {
            continue;
        }
        let checker = match &verdict {
            Ok(()) => "accepts".to_owned(),
            Err(violations) => {
                let listed: Vec<String> = violations.iter().map(ToString::to_string).collect();
                format!("refuses: {}", listed.join("; "))
            }
        };
        let judge = if must_accept {
            "accepts".to_owned()
        } else {
            let errors: Vec<String> = exact_validator
                .iter_errors(&instance)
                .map(|error| {
                    let schema = format!("#{}", error.schema_path());
                    format!(
                        "{} at {} ({error})",
                        error.instance_path(),
                        exact.describe(&schema)
                    )
                })
                .collect();
            format!("refuses: {}", errors.join("; "))
        };
        let changed = mutation.map_or_else(
            || "nothing (meant valid)".to_owned(),
            |mutation| {
                format!(
                    "{} at {:?}, schema {}",
                    mutation.change,
                    mutation.at,
                    exact.describe(&mutation.schema)
                )
            },
        );
        local.disagreements.push(format!(
            "{document} tool {}, instance seed {seed:#x}:\n  instance: {instance}\n  changed: {changed}\n  checker: {checker}\n  jsonschema: {judge}",
            tool.name
        ));
    }
    let mut tally = tally.lock().expect("tally");
    tally.compared += local.compared;
    tally.accepted += local.accepted;
    tally.either += local.either;
    tally.disagreements.append(&mut local.disagreements);
}

#[test]
fn checker_agrees_with_jsonschema_on_every_tool() {
    let started = Instant::now();
    // Documents, and the files split documents refer to, which do not load
    // on their own.
    let fixtures = files_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"),
        &["yaml", "yml", "json"],
    );
    let mut documents = tools(&fixtures, true);
    assert!(!documents.is_empty(), "no fixture document loads");
    documents.extend(tools(&corpus_documents(), false));
    let loaded = started.elapsed();

    let base_seed = setting("DIFFERENTIAL_SEED", SEED);
    let count = setting("DIFFERENTIAL_INSTANCES", INSTANCES as u64) as usize;
    let jobs: Vec<(&str, &Tool)> = documents
        .iter()
        .flat_map(|(document, tools)| tools.iter().map(move |tool| (document.as_str(), tool)))
        .collect();
    let next = AtomicUsize::new(0);
    let tally = Mutex::new(Tally::default());
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some((document, tool)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    compare(document, tool, base_seed, count, &tally);
                }
            });
        }
    });

    let tally = tally.into_inner().expect("tally");
    eprintln!(
        "{} instances compared over {} tools of {} documents ({} accepted, {} refused, {} where either verdict is right), seed {base_seed:#x}, in {:.1?} ({:.1?} loading)",
        tally.compared,
        jobs.len(),
        documents.len(),
        tally.accepted,
        tally.compared - tally.accepted,
        tally.either,
        started.elapsed(),
        loaded,
    );
    let mut failures = tally.disagreements;
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} disagreements; the first {}:\n\n{}",
        failures.len(),
        failures.len().min(SHOWN),
        failures[..failures.len().min(SHOWN)].join("\n\n")
    );
}
