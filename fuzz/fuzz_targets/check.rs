//! The checker: a schema as the converter produces it, and arguments
//! against it. Half the inputs build an OpenAPI document of generated
//! schemas and take the converted tool's input schema; the other half
//! compile a generated schema map directly. Never a panic.

#![no_main]

use arbitrary::Unstructured;
use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::{convert, load};
use hosted_mcp_gateway_fuzz as gen;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});

fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let schemas: Vec<Map<String, Value>> = if u.arbitrary::<bool>()? {
        let document = gen::document(u)?;
        let text = serde_json::to_string(&document).expect("a value serializes");
        let Ok(document) = load::load_str(&text, "fuzz") else {
            return Ok(());
        };
        let Ok(catalogue) = convert::convert(&document) else {
            return Ok(());
        };
        catalogue
            .tools
            .into_iter()
            .map(|tool| tool.input_schema)
            .collect()
    } else {
        match gen::schema(u, 4)? {
            Value::Object(map) => vec![map],
            _ => return Ok(()),
        }
    };
    let show = std::env::var_os("FUZZ_SHOW").is_some();
    for schema in &schemas {
        if show {
            eprintln!("schema: {}", Value::Object(schema.clone()));
        }
        let validator = Validator::compile(schema);
        let names: Vec<String> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
        let mut keys: Vec<&str> = names.iter().map(String::as_str).collect();
        keys.extend_from_slice(gen::NAMES);
        let calls = u.int_in_range(1..=4)?;
        for _ in 0..calls {
            let arguments = if u.ratio(1, 8)? {
                gen::value(u, 4, &keys)?
            } else {
                Value::Object(gen::object(u, 4, &keys)?)
            };
            if show {
                eprintln!("arguments: {arguments}");
            }
            if let Err(violations) = validator.validate(&arguments) {
                assert!(!violations.is_empty());
                for violation in &violations {
                    let pointer = &violation.pointer;
                    assert!(pointer.is_empty() || pointer.starts_with('/'), "{pointer}");
                    let _ = violation.to_string();
                }
            }
        }
    }
    Ok(())
}
