//! Split documents (TC-LOAD-008, TC-LOAD-006): references to other files are
//! read from the document's own folder tree, and every reference the gateway
//! follows either resolves or stops the load with an error naming the file,
//! the line and the JSON pointer of the reference. Run on the kit's fixtures
//! (`fixtures/split`, `fixtures/split-broken`) and on folders made here for
//! what a repository cannot hold well (absolute paths, symbolic links).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use hosted_mcp_gateway::check::Validator;
use hosted_mcp_gateway::convert::{convert, Catalogue, Tool};
use hosted_mcp_gateway::load::load_path;
use rstest::rstest;
use serde_json::{json, Map, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

fn catalogue(path: &Path) -> Catalogue {
    let document = load_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    convert(&document).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The error loading and converting `path` stops with, as text.
fn refusal(path: &Path) -> String {
    match load_path(path).and_then(|document| convert(&document)) {
        Ok(catalogue) => panic!(
            "{} loaded, with the tools {:?}",
            path.display(),
            names(&catalogue)
        ),
        Err(error) => error.to_string(),
    }
}

fn names(catalogue: &Catalogue) -> Vec<&str> {
    catalogue.tools.iter().map(|t| t.name.as_str()).collect()
}

fn tool<'c>(catalogue: &'c Catalogue, name: &str) -> &'c Tool {
    catalogue
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// The schema a `$ref` in `schema` names in its `$defs`, or `schema` itself.
fn definition<'s>(tool: &'s Tool, schema: &'s Value) -> &'s Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(key) => &tool.input_schema["$defs"][key],
        None => schema,
    }
}

fn refused_at(tool: &Tool, arguments: Value) -> Vec<String> {
    match Validator::compile(&tool.input_schema).validate(&arguments) {
        Ok(()) => Vec::new(),
        Err(violations) => violations.into_iter().map(|v| v.pointer).collect(),
    }
}

#[test]
fn the_split_fixture_loads_with_every_referenced_part() {
    let catalogue = catalogue(&fixtures().join("split/openapi.yaml"));
    assert_eq!(
        names(&catalogue),
        ["listPets", "createPet", "showPetById", "updatePet"]
    );

    // Parameters from another file, one with a schema from a third.
    let list = tool(&catalogue, "listPets");
    let properties = &list.input_schema["properties"];
    assert_eq!(
        properties["limit"],
        json!({"type": "integer", "minimum": 1, "maximum": 100})
    );
    let tags = definition(list, &properties["tags"]);
    assert_eq!(tags["maxItems"], json!(5));
    assert_eq!(definition(list, &tags["items"])["maxLength"], json!(20));

    // A whole file as the body's schema, with nested references relative to it.
    let create = tool(&catalogue, "createPet");
    let new_pet = definition(create, &create.input_schema["properties"]["body"]);
    assert_eq!(new_pet["required"], json!(["name"]));
    assert_eq!(new_pet["properties"]["name"]["maxLength"], json!(40));
    let owner = definition(create, &new_pet["properties"]["owner"]);
    assert_eq!(owner["required"], json!(["email"]));
    // Pet -> Owner -> Pet: a recursive schema across two files.
    let pet = definition(create, &owner["properties"]["pets"]["items"]);
    assert_eq!(pet["required"], json!(["id", "name"]));
    assert_eq!(
        definition(create, &pet["properties"]["owner"]),
        owner,
        "the recursion leads back to the same definition"
    );

    // A parameter referred to from a path item in another file, back into
    // the root document.
    let update = tool(&catalogue, "updatePet");
    assert_eq!(
        update.input_schema["properties"]["petId"],
        json!({"type": "string", "maxLength": 36})
    );
    assert_eq!(update.input_schema["required"], json!(["petId", "body"]));
}

#[test]
fn the_split_fixture_checks_arguments_against_the_referenced_schemas() {
    let catalogue = catalogue(&fixtures().join("split/openapi.yaml"));
    let create = tool(&catalogue, "createPet");
    assert_eq!(refused_at(create, json!({"body": {}})), ["/body/name"]);
    assert_eq!(
        refused_at(
            create,
            json!({"body": {"name": "Rex", "owner": {"email": "a@b.example", "pets": [{"name": "Tom"}]}}})
        ),
        ["/body/owner/pets/0/id"]
    );
    assert_eq!(
        refused_at(
            create,
            json!({"body": {"name": "Rex", "tags": ["a", "b", "c", "d", "e", "f"]}})
        ),
        ["/body/tags"]
    );
    assert!(refused_at(create, json!({"body": {"name": "Rex", "tags": ["a", "b"]}})).is_empty());
}

/// Operations written as a `$ref` to a file of their own are read from that
/// file: named by their operationId, with their parameters (the path item's
/// too) and body, a deprecated one left out. Before, each became a tool named
/// from its method and path, with no arguments.
#[test]
fn operations_given_by_reference_are_read_from_their_files() {
    let catalogue = catalogue(&fixtures().join("split/by-operation.yaml"));
    assert_eq!(
        names(&catalogue),
        ["listPets", "createPet", "showPetById"],
        "deletePet is deprecated"
    );

    let list = tool(&catalogue, "listPets");
    assert_eq!(list.description.as_deref(), Some("List pets"));
    let properties = &list.input_schema["properties"];
    assert_eq!(properties["limit"]["maximum"], json!(100));
    assert_eq!(definition(list, &properties["tags"])["maxItems"], json!(5));

    // The body's schema is found beside the operation's file, not the document.
    let create = tool(&catalogue, "createPet");
    let new_pet = definition(create, &create.input_schema["properties"]["body"]);
    assert_eq!(new_pet["properties"]["name"]["maxLength"], json!(40));
    assert_eq!(refused_at(create, json!({"body": {}})), ["/body/name"]);

    let show = tool(&catalogue, "showPetById");
    assert_eq!(
        show.input_schema["properties"]["petId"],
        json!({"type": "string", "maxLength": 36})
    );
    assert_eq!(show.input_schema["required"], json!(["petId"]));
}

#[test]
fn the_multi_file_swagger_document_of_the_corpus_loads_with_full_schemas() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../shared/corpus/oai__v2.0-petstore-separate-multifile/examples/v2.0/yaml/petstore-separate/spec/swagger.yaml",
    );
    if !path.is_file() {
        eprintln!("corpus not found at {}: skipping", path.display());
        return;
    }
    let catalogue = catalogue(&path);
    let find = tool(&catalogue, "findPets");
    let properties = &find.input_schema["properties"];
    assert_eq!(properties["limit"]["type"], json!("integer"));
    assert_eq!(properties["tags"]["items"], json!({"type": "string"}));

    let add = tool(&catalogue, "addPet");
    let new_pet = definition(add, &add.input_schema["properties"]["body"]);
    let pet = definition(add, &new_pet["allOf"][0]);
    assert_eq!(pet["required"], json!(["id", "name"]));
    assert_eq!(new_pet["allOf"][1]["required"], json!(["name"]));
}

/// Each broken fixture: the file holding the reference and its line, the
/// reference's pointer, and what else the message must name.
#[rstest]
#[case::missing_file(
    "missing-file",
    "missing-file/openapi.yaml:8:",
    "#/paths/~1pets/get/parameters/0",
    &["`parameters.yaml#/Limit`", "missing-file/parameters.yaml", "does not exist"]
)]
#[case::missing_pointer(
    "missing-pointer",
    "missing-pointer/openapi.yaml:9:",
    "#/paths/~1pets/get/parameters/1",
    &["`parameters.yaml#/Offset`", "missing-pointer/parameters.yaml", "/Offset"]
)]
#[case::nested_missing(
    "nested-missing",
    "nested-missing/paths/pets.yaml:7:",
    "#/post/requestBody/content/application~1json/schema",
    &["`../schemas/Gone.yaml`", "nested-missing/schemas/Gone.yaml", "does not exist"]
)]
#[case::bad_yaml(
    "bad-yaml",
    "bad-yaml/openapi.yaml:10:",
    "#/paths/~1pets/post/requestBody/content/application~1json/schema",
    &["`schemas/Pet.yaml`", "bad-yaml/schemas/Pet.yaml:4:", "not valid YAML"]
)]
#[case::outside(
    "outside",
    "outside/openapi.yaml:8:",
    "#/paths/~1pets/get/parameters/0",
    &["`../secret.yaml#/Limit`", "outside the document's folder", "not read"]
)]
#[case::url(
    "url",
    "url/openapi.yaml:8:",
    "#/paths/~1pets/get/parameters/0",
    &["`https://example.com/parameters.yaml#/Limit`", "never fetched"]
)]
#[case::operation_missing(
    "operation-missing",
    "operation-missing/openapi.yaml:6:",
    "#/paths/~1pets/get",
    &["`resources/pets/pets_list.yml`", "operation-missing/resources/pets/pets_list.yml", "does not exist"]
)]
fn a_reference_that_cannot_be_resolved_stops_the_load_naming_where(
    #[case] folder: &str,
    #[case] file_and_line: &str,
    #[case] pointer: &str,
    #[case] also: &[&str],
) {
    let message = refusal(
        &fixtures()
            .join("split-broken")
            .join(folder)
            .join("openapi.yaml"),
    );
    assert!(
        message.contains(file_and_line),
        "no {file_and_line:?} in {message}"
    );
    assert!(
        message.contains(&format!(" {pointer}: ")),
        "no {pointer:?} in {message}"
    );
    for word in also {
        assert!(message.contains(word), "no {word:?} in {message}");
    }
}

/// A fresh folder of its own under the system's temporary folder, removed
/// when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "split-test-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("a scratch folder");
        Scratch(path)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a folder");
        }
        std::fs::write(&path, text).expect("a file");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const PARAMETERS: &str = "Limit: {name: limit, in: query, schema: {type: integer, maximum: 7}}\n";

fn document_referring_to(reference: &str) -> String {
    format!(
        "openapi: 3.0.3\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      parameters:\n        - $ref: '{reference}'\n"
    )
}

#[test]
fn an_absolute_path_is_followed_inside_the_folder_and_refused_outside_it() {
    let scratch = Scratch::new("absolute");
    let inside = scratch.write("api/parameters.yaml", PARAMETERS);
    let outside = scratch.write("elsewhere/parameters.yaml", PARAMETERS);

    let root = scratch.write(
        "api/openapi.yaml",
        &document_referring_to(&format!("{}#/Limit", inside.display())),
    );
    let loaded = catalogue(&root);
    assert_eq!(
        loaded.tools[0].input_schema["properties"]["limit"]["maximum"],
        json!(7)
    );

    let root = scratch.write(
        "api/openapi.yaml",
        &document_referring_to(&format!("{}#/Limit", outside.display())),
    );
    let message = refusal(&root);
    assert!(message.contains("openapi.yaml:7:"), "{message}");
    assert!(
        message.contains("outside the document's folder"),
        "{message}"
    );
}

#[test]
fn dot_dot_that_stays_inside_the_folder_is_followed() {
    let scratch = Scratch::new("dotdot");
    scratch.write("api/parameters.yaml", PARAMETERS);
    scratch.write("api/paths/.keep", "");
    let root = scratch.write(
        "api/openapi.yaml",
        &document_referring_to("paths/../parameters.yaml#/Limit"),
    );
    assert_eq!(
        catalogue(&root).tools[0].input_schema["properties"]["limit"]["maximum"],
        json!(7)
    );
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_leading_outside_the_folder_is_refused() {
    let scratch = Scratch::new("symlink");
    let outside = scratch.write("elsewhere/parameters.yaml", PARAMETERS);
    scratch.write("api/.keep", "");
    std::os::unix::fs::symlink(&outside, scratch.0.join("api/parameters.yaml")).expect("a link");
    std::os::unix::fs::symlink(scratch.0.join("elsewhere"), scratch.0.join("api/shared"))
        .expect("a link");

    for reference in ["parameters.yaml#/Limit", "shared/parameters.yaml#/Limit"] {
        let root = scratch.write("api/openapi.yaml", &document_referring_to(reference));
        let message = refusal(&root);
        assert!(
            message.contains("outside the document's folder"),
            "{reference}: {message}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_that_stays_inside_the_folder_is_followed() {
    let scratch = Scratch::new("symlink-inside");
    let target = scratch.write("api/shared/parameters.yaml", PARAMETERS);
    std::os::unix::fs::symlink(&target, scratch.0.join("api/parameters.yaml")).expect("a link");
    let root = scratch.write(
        "api/openapi.yaml",
        &document_referring_to("parameters.yaml#/Limit"),
    );
    assert_eq!(
        catalogue(&root).tools[0].input_schema["properties"]["limit"]["maximum"],
        json!(7)
    );
}

#[test]
fn a_json_file_and_a_whole_file_reference_resolve() {
    let scratch = Scratch::new("json");
    scratch.write(
        "limit.json",
        r##"{"name": "limit", "in": "query", "schema": {"$ref": "#/$defs/Small"}, "$defs": {"Small": {"type": "integer", "maximum": 3}}}"##,
    );
    let root = scratch.write("openapi.yaml", &document_referring_to("limit.json"));
    let schema = &catalogue(&root).tools[0].input_schema;
    assert_eq!(
        schema["properties"]["limit"],
        json!({"$ref": "#/$defs/Small"})
    );
    assert_eq!(
        schema["$defs"]["Small"],
        json!({"type": "integer", "maximum": 3})
    );
}

#[test]
fn files_that_refer_to_each_other_load_once_each() {
    let scratch = Scratch::new("cycle");
    scratch.write(
        "a.yaml",
        "type: object\nproperties:\n  b: {$ref: 'b.yaml'}\n  self: {$ref: 'a.yaml'}\n",
    );
    scratch.write(
        "b.yaml",
        "type: object\nrequired: [x]\nproperties:\n  x: {type: string}\n  a: {$ref: './a.yaml'}\n",
    );
    let root = scratch.write(
        "openapi.yaml",
        "openapi: 3.1.0\npaths:\n  /a:\n    post:\n      operationId: postA\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: 'a.yaml'}\n",
    );
    let catalogue = catalogue(&root);
    let post = tool(&catalogue, "postA");
    let defs: &Map<String, Value> = post.input_schema["$defs"].as_object().expect("$defs");
    assert_eq!(defs.len(), 2, "one definition per file: {defs:?}");
    assert_eq!(
        refused_at(post, json!({"body": {"b": {"x": "1", "a": {"b": {}}}}})),
        ["/body/b/a/b/x"]
    );
}

#[test]
fn a_reference_to_a_missing_file_names_it_and_no_tool_is_built() {
    let scratch = Scratch::new("missing");
    let root = scratch.write(
        "openapi.yaml",
        "openapi: 3.0.3\npaths:\n  /a:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema:\n              $ref: schemas/Nope.yaml\n",
    );
    let message = refusal(&root);
    assert!(message.contains("openapi.yaml:9:21: "), "{message}");
    assert!(message.contains("`schemas/Nope.yaml`"), "{message}");
}
