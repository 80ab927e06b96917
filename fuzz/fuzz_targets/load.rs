//! The loader: arbitrary bytes as JSON and as YAML through `load_str`, and
//! whatever loads through `convert`, the checker's compiler, the
//! destination, the masker and the request builder. Never a panic.

#![no_main]

use hosted_mcp_gateway::answer::Masker;
use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::request::{self, Destination};
use hosted_mcp_gateway::{convert, load};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    exercise(&text);
    // The same text down the other road: text that starts with `{` is read
    // as JSON first, anything else as YAML; a YAML document start marker
    // sends JSON-looking text to the YAML parser.
    if text.trim_start().starts_with('{') {
        exercise(&format!("---\n{text}"));
    }
});

fn exercise(text: &str) {
    let document = match load::load_str(text, "fuzz") {
        Ok(document) => document,
        Err(error) => {
            let _ = error.to_string();
            return;
        }
    };
    let catalogue = match convert::convert(&document) {
        Ok(catalogue) => catalogue,
        Err(error) => {
            let _ = error.to_string();
            return;
        }
    };
    let placement = catalogue.default_credential.as_ref();
    let _ = Masker::new(Some("sk-live"), placement);
    let destination = Destination::new("https://api.example.com/v1", Some("sk-live"), placement);
    let empty = Map::new();
    for tool in &catalogue.tools {
        let validator = Validator::compile(&tool.input_schema);
        let _ = validator.validate(&json!({}));
        let _ = validator.validate(&json!({ "id": "1", "body": {} }));
        if let Ok(destination) = &destination {
            let _ = request::build(tool, &empty, destination);
        }
    }
}
