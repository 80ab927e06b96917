//! Every real document in the shared corpus loads and converts into tools that MCP
//! clients accept: valid unique names, self-contained object input schemas, and one
//! tool per operation that is not deprecated.
//!
//! The corpus lives beside the project (`../shared/corpus`); without it, for
//! instance in a fresh clone, the test says so and passes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hosted_mcp_gateway::convert::{convert, Catalogue, Tool};
use hosted_mcp_gateway::load::load_path;
use serde_json::{Map, Value};

/// Schema keywords whose values are data, where a `"$ref"` key is not a reference.
const DATA_KEYWORDS: [&str; 5] = ["enum", "const", "default", "examples", "example"];

/// Schema keywords whose values map names to schemas.
const NAMED_SCHEMA_KEYWORDS: [&str; 4] = [
    "properties",
    "patternProperties",
    "$defs",
    "dependentSchemas",
];

/// One MANIFEST.tsv row: the file and how many tools it should give.
struct Expectation {
    file: String,
    tools: usize,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

fn read_manifest(dir: &Path) -> Vec<Expectation> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv is readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .expect("MANIFEST.tsv has a header")
        .split('\t')
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("MANIFEST.tsv has no `{name}` column"))
    };
    let (file, operations, deprecated) = (
        column("file"),
        column("operations"),
        column("deprecated_operations"),
    );
    lines
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            let number = |i: usize| -> usize {
                cells[i]
                    .parse()
                    .unwrap_or_else(|_| panic!("bad number in MANIFEST.tsv: {line}"))
            };
            Expectation {
                file: cells[file].to_string(),
                tools: number(operations) - number(deprecated),
            }
        })
        .collect()
}

#[test]
fn every_corpus_document_converts_into_valid_tools() {
    let dir = corpus_dir();
    if !dir.join("MANIFEST.tsv").is_file() {
        eprintln!("corpus not found at {}: skipping", dir.display());
        return;
    }
    let expectations = read_manifest(&dir);
    assert!(!expectations.is_empty(), "MANIFEST.tsv lists no documents");

    let mut problems = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    for expected in &expectations {
        let started = Instant::now();
        let catalogue = load_path(&dir.join(&expected.file))
            .map_err(|e| e.to_string())
            .and_then(|document| convert(&document).map_err(|e| e.to_string()));
        let took = started.elapsed();
        if took > slowest.0 {
            slowest = (took, expected.file.clone());
        }
        match catalogue {
            Ok(catalogue) => {
                let schema_bytes: usize = catalogue
                    .tools
                    .iter()
                    .map(|tool| Value::Object(tool.input_schema.clone()).to_string().len())
                    .sum();
                eprintln!(
                    "{:>4} tools  {:>9} schema bytes  {:>7.0?}  {}",
                    catalogue.tools.len(),
                    schema_bytes,
                    took,
                    expected.file
                );
                problems.extend(
                    catalogue_problems(&catalogue, expected.tools)
                        .into_iter()
                        .map(|problem| format!("{}: {problem}", expected.file)),
                );
            }
            Err(error) => problems.push(format!("{}: does not load: {error}", expected.file)),
        }
    }
    eprintln!("slowest: {} in {:.0?}", slowest.1, slowest.0);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn catalogue_problems(catalogue: &Catalogue, expected_tools: usize) -> Vec<String> {
    let mut problems = Vec::new();
    if catalogue.tools.len() != expected_tools {
        problems.push(format!(
            "{} tools, expected {expected_tools}",
            catalogue.tools.len()
        ));
    }
    let mut names = HashSet::new();
    for tool in &catalogue.tools {
        if !is_valid_tool_name(&tool.name) {
            problems.push(format!("invalid tool name {:?}", tool.name));
        }
        if !names.insert(tool.name.as_str()) {
            problems.push(format!("tool name {:?} used twice", tool.name));
        }
        problems.extend(
            input_schema_problems(tool)
                .into_iter()
                .map(|problem| format!("{}: {problem}", tool.name)),
        );
    }
    problems
}

/// `^[A-Za-z0-9_.-]{1,128}$`, without a regex crate.
fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

fn input_schema_problems(tool: &Tool) -> Vec<String> {
    let schema = &tool.input_schema;
    let mut problems = Vec::new();
    if schema.get("type") != Some(&Value::from("object")) {
        problems.push("input schema is not `type: object`".to_string());
    }
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
        problems.push("input schema lacks `additionalProperties: false`".to_string());
    }
    let defs = match schema.get("$defs") {
        Some(Value::Object(defs)) => defs.clone(),
        _ => Map::new(),
    };
    let mut refs = Vec::new();
    collect_refs(&Value::Object(schema.clone()), &mut refs);
    for reference in refs {
        let resolves = reference
            .strip_prefix("#/$defs/")
            .is_some_and(|key| defs.contains_key(key));
        if !resolves {
            problems.push(format!("$ref {reference:?} does not point into its $defs"));
        }
    }
    problems
}

/// Every string `$ref` in a schema, skipping data keywords (but not properties
/// that happen to be named like one).
fn collect_refs(value: &Value, refs: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                match (key.as_str(), member) {
                    ("$ref", Value::String(reference)) => refs.push(reference.clone()),
                    (keyword, Value::Object(named)) if NAMED_SCHEMA_KEYWORDS.contains(&keyword) => {
                        named.values().for_each(|schema| collect_refs(schema, refs));
                    }
                    (keyword, _) if DATA_KEYWORDS.contains(&keyword) => {}
                    (_, other) => collect_refs(other, refs),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, refs)),
        _ => {}
    }
}
