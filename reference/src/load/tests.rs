//! Loading whole documents: versions, formats, merging, Swagger 2.0, and errors
//! that say where.

use rstest::rstest;
use serde_json::json;

use super::*;

fn load(text: &str) -> Result<Document, LoadError> {
    load_str(text, "test.yaml")
}

fn error_text(text: &str) -> String {
    match load(text) {
        Ok(_) => "loaded".to_string(),
        Err(error) => error.to_string(),
    }
}

fn summary(document: &Document) -> Vec<String> {
    document
        .operations
        .iter()
        .map(|op| format!("{} {}", op.method.as_upper(), op.path))
        .collect()
}

#[rstest]
#[case::yaml_30("openapi: 3.0.3\npaths: {}\n", Dialect::OpenApi30, "3.0.3")]
#[case::yaml_31("openapi: 3.1.0\npaths: {}\n", Dialect::OpenApi31, "3.1.0")]
#[case::json_30(r#"{"openapi": "3.0.0", "paths": {}}"#, Dialect::OpenApi30, "3.0.0")]
#[case::json_31(r#"{"openapi": "3.1.1", "paths": {}}"#, Dialect::OpenApi31, "3.1.1")]
#[case::unquoted_number("openapi: 3.0\n", Dialect::OpenApi30, "3.0")]
#[case::swagger("swagger: '2.0'\npaths: {}\n", Dialect::OpenApi30, "2.0")]
fn versions_and_formats(#[case] text: &str, #[case] dialect: Dialect, #[case] version: &str) {
    let document = load(text).expect("loads");
    assert_eq!(
        (document.dialect, document.version.as_str()),
        (dialect, version)
    );
}

#[rstest]
#[case::openapi_32(
    "openapi: 3.2.0\n",
    "test.yaml: version 3.2.0 is not supported (OpenAPI 3.0.x, 3.1.x and Swagger 2.0 are)"
)]
#[case::swagger_12(
    "swagger: '1.2'\n",
    "test.yaml: version 1.2 is not supported (OpenAPI 3.0.x, 3.1.x and Swagger 2.0 are)"
)]
#[case::no_version(
    "info: {title: x}\n",
    "test.yaml: not an OpenAPI document: the top level has neither `openapi` nor `swagger`"
)]
#[case::not_a_mapping(
    "- a\n- b\n",
    "test.yaml: not an OpenAPI document: the top level has neither `openapi` nor `swagger`"
)]
#[case::paths_not_an_object(
    "openapi: 3.0.0\npaths: [1, 2]\n",
    "test.yaml: paths: expected an object"
)]
#[case::operation_not_an_object(
    "openapi: 3.0.0\npaths:\n  /pets:\n    get: 7\n",
    "test.yaml: paths./pets.get: expected an object"
)]
#[case::parameters_not_a_list(
    "openapi: 3.0.0\npaths:\n  /pets:\n    get:\n      parameters: {}\n",
    "test.yaml: paths./pets.get.parameters: expected a list of parameters"
)]
#[case::parameter_without_name(
    "openapi: 3.0.0\npaths:\n  /pets:\n    get:\n      parameters:\n        - in: query\n",
    "test.yaml: paths./pets.get.parameters[0]: a parameter needs a `name`"
)]
#[case::missing_pointer(
    "openapi: 3.0.0\npaths:\n  /pets:\n    get:\n      parameters:\n        - $ref: '#/components/parameters/Nope'\n",
    "test.yaml:6:18: #/paths/~1pets/get/parameters/0: $ref `#/components/parameters/Nope` cannot be resolved: test.yaml has nothing at #/components/parameters/Nope"
)]
#[case::ref_cycle(
    "openapi: 3.0.0\npaths:\n  /pets:\n    $ref: '#/paths/~1pets'\n",
    "test.yaml: paths./pets: $ref `#/paths/~1pets` leads back to itself"
)]
#[case::swagger_paths_not_an_object(
    "swagger: '2.0'\npaths: yes\n",
    "test.yaml: paths: expected an object"
)]
fn unusable_documents_say_where(#[case] text: &str, #[case] expected: &str) {
    assert_eq!(error_text(text), expected);
}

#[test]
fn bad_yaml_names_line_and_column() {
    let message = error_text("openapi: 3.0.0\npaths:\n  /pets: {get: [}\n");
    assert!(
        message.starts_with("test.yaml:3:"),
        "no line and column in {message:?}"
    );
    assert!(message.contains("not valid YAML"), "{message}");
}

#[test]
fn a_mis_indented_key_is_reported_on_its_line() {
    let message =
        error_text("openapi: 3.0.3\ninfo:\n  title: Broken\n  version: \"1\"\n paths: {}\n");
    assert!(message.starts_with("test.yaml:5:"), "{message}");
}

#[test]
fn a_json_syntax_error_is_reported_on_its_line() {
    let message = error_text(
        "{\"openapi\": \"3.0.3\",\n \"paths\": {\n   \"/pets\": {\"get\": {\"operationId\": \"x\",, \"responses\": {}}}}}\n",
    );
    assert_eq!(
        message,
        "test.yaml:3:41: not valid JSON: key must be a string"
    );
}

/// Columns count from 1, as lines do, also where serde_json says 0 (an
/// error at the very start of a line).
#[test]
fn a_json_error_at_the_start_of_a_line_is_in_column_1() {
    assert_eq!(
        error_text("{\"openapi\": \"3.0.0\",\n \"paths\": {}\n"),
        "test.yaml:3:1: not valid JSON: EOF while parsing an object"
    );
}

/// The gateway reads its document from a file: a URL is told so, rather
/// than reported as a file that is not there.
#[rstest]
#[case("https://example.com/openapi.yaml")]
#[case("http://localhost:8080/openapi.json")]
fn a_url_given_as_the_document_is_refused_as_a_url(#[case] url: &str) {
    let error = load_path(Path::new(url))
        .err()
        .map(|error| error.to_string());
    assert_eq!(
        error,
        Some(format!("{url}: a URL: the gateway reads the document from a file and never fetches one; download it and give its path"))
    );
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let error = load_path(Path::new("/nonexistent/openapi.yaml"));
    assert!(matches!(
        &error,
        Err(LoadError::Read { origin, .. }) if origin == "/nonexistent/openapi.yaml"
    ));
}

/// Garbage in, an error or a document out: never a panic.
#[rstest]
#[case("")]
#[case("~")]
#[case("openapi: [3]\n")]
#[case("openapi: 3.1.0\npaths: {/a: null}\n")]
#[case("openapi: 3.1.0\npaths: {/a: {get: {parameters: [7, null]}}}\n")]
#[case("openapi: 3.1.0\npaths: {/a: {get: {requestBody: {content: 5}}}}\n")]
#[case("openapi: 3.1.0\npaths: {/a: {get: {requestBody: {$ref: 12}}}}\n")]
#[case("openapi: 3.1.0\ncomponents: {securitySchemes: {a: {$ref: '#/nope'}}}\n")]
#[case("openapi: 3.1.0\nsecurity: 5\ncomponents: {securitySchemes: 7}\n")]
#[case("swagger: '2.0'\npaths: {/a: {get: {parameters: [{$ref: '#/parameters/x'}]}}}\n")]
#[case("swagger: '2.0'\npaths: {/a: {parameters: 3, get: {}}}\n")]
#[case("swagger: '2.0'\npaths: {/a: {get: {parameters: [{in: formData}, {in: body}]}}}\n")]
#[case("{\"openapi\": \"3.0.0\", \"paths\": {\"/a\": {\"get\": {\"parameters\": [{\"$ref\": \"#/x/%ZZ\"}]}}}}")]
#[case(
    "openapi: 3.0.0\npaths: {/a: {get: {parameters: [{$ref: '#/paths/~1a/get/parameters/0'}]}}}\n"
)]
fn odd_documents_never_panic(#[case] text: &str) {
    let _ = load(text);
}

#[test]
fn operations_come_in_document_order_with_methods_in_fixed_order() {
    let document = load(
        "openapi: 3.0.0
paths:
  /b:
    trace: {}
    patch: {}
    head: {}
    options: {}
    delete: {}
    post: {}
    put: {}
    get: {}
    x-extra: {}
    summary: not an operation
  /a:
    post: {}
  x-paths-extension: {}
",
    )
    .expect("loads");
    assert_eq!(
        summary(&document),
        [
            "GET /b",
            "PUT /b",
            "POST /b",
            "DELETE /b",
            "OPTIONS /b",
            "HEAD /b",
            "PATCH /b",
            "TRACE /b",
            "POST /a"
        ]
    );
}

#[test]
fn path_level_parameters_apply_and_are_replaced_by_name_and_location() {
    let document = load(
        "openapi: 3.0.0
components:
  parameters:
    Limit: {name: limit, in: query, description: shared limit}
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, description: path-level}
      - $ref: '#/components/parameters/Limit'
      - {name: trace, in: header}
    get:
      parameters:
        - {name: limit, in: query, description: own limit}
        - {name: trace, in: query}
    delete: {}
",
    )
    .expect("loads");
    let params = |i: usize| -> Vec<(String, &str, Option<String>)> {
        document.operations[i]
            .parameters
            .iter()
            .map(|p| (p.name.clone(), p.location.as_str(), p.description.clone()))
            .collect()
    };
    let described = |name: &str, location, text: Option<&str>| {
        (name.to_string(), location, text.map(str::to_string))
    };
    assert_eq!(
        params(0),
        [
            described("id", "path", Some("path-level")),
            described("limit", "query", Some("own limit")),
            described("trace", "header", None),
            described("trace", "query", None),
        ]
    );
    assert_eq!(
        params(1),
        [
            described("id", "path", Some("path-level")),
            described("limit", "query", Some("shared limit")),
            described("trace", "header", None),
        ]
    );
}

#[test]
fn refs_resolve_with_escapes_and_percent_decoding() {
    let document = load(
        "openapi: 3.1.0
components:
  parameters:
    'a/b c': {name: ab, in: query}
  requestBodies:
    Pet: {required: true, content: {application/json: {schema: {type: object}}}}
paths:
  /one:
    get:
      parameters:
        - $ref: '#/components/parameters/a~1b%20c'
      requestBody:
        $ref: '#/components/requestBodies/Pet'
  /two:
    $ref: '#/paths/~1one'
",
    )
    .expect("loads");
    assert_eq!(summary(&document), ["GET /one", "GET /two"]);
    let op = &document.operations[0];
    assert_eq!(op.parameters[0].name, "ab");
    assert_eq!(
        op.parameters[0].at.to_string(),
        "components.parameters.a/b c"
    );
    let body = op.request_body.as_ref().expect("a body");
    assert!(body.required);
    assert_eq!(body.content[0].name, "application/json");
    assert_eq!(body.content[0].schema, Some(json!({"type": "object"})));
}

/// An operation written as a `$ref` is the operation it names, with its
/// name, parameters and `deprecated` flag; the path item's parameters apply.
#[rstest]
#[case::openapi_3("openapi: 3.0.3")]
#[case::swagger_2("swagger: '2.0'")]
fn an_operation_given_by_reference_is_the_operation_it_names(#[case] version: &str) {
    let document = load(&format!(
        "{version}
x-operations:
  list:
    operationId: listPets
    parameters:
      - {{name: limit, in: query, type: integer, schema: {{type: integer}}}}
  remove: {{operationId: removePet, deprecated: true}}
paths:
  /pets/{{id}}:
    parameters:
      - {{name: id, in: path, required: true, type: string, schema: {{type: string}}}}
    get:
      $ref: '#/x-operations/list'
    delete:
      $ref: '#/x-operations/remove'
"
    ))
    .expect("loads");
    let [list, remove] = &document.operations[..] else {
        panic!("two operations: {:?}", summary(&document));
    };
    assert_eq!(list.operation_id.as_deref(), Some("listPets"));
    let parameters: Vec<_> = list.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(parameters, ["id", "limit"]);
    assert_eq!(remove.operation_id.as_deref(), Some("removePet"));
    assert!(remove.deprecated);
}

/// TC-LOAD-006: an operation's reference that cannot be resolved stops the
/// load at its line; no operation is made of the method and path alone.
#[test]
fn an_operation_reference_that_cannot_be_resolved_is_an_error_naming_its_line() {
    let error =
        load("openapi: 3.0.3\npaths:\n  /pets:\n    get:\n      $ref: 'resources/list.yml'\n")
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
    assert!(error.starts_with("test.yaml:5:"), "{error}");
    assert!(
        error.contains(" #/paths/~1pets/get: $ref `resources/list.yml` cannot be resolved"),
        "{error}"
    );
}

#[rstest]
#[case::file_without_a_folder(
    "parameters.yaml#/limit",
    Unresolvable::NoFolder,
    "test.yaml:6:18: #/paths/~1pets/get/parameters/0: $ref `parameters.yaml#/limit` cannot be resolved: it names another file, and a document not read from a file has no folder to find it in"
)]
#[case::url(
    "https://example.com/parameters.yaml#/limit",
    Unresolvable::Url,
    "test.yaml:6:18: #/paths/~1pets/get/parameters/0: $ref `https://example.com/parameters.yaml#/limit` cannot be resolved: it is a URL, and URLs are never fetched"
)]
#[case::bad_fragment(
    "#/components/%FF",
    Unresolvable::FragmentEncoding,
    "test.yaml:6:18: #/paths/~1pets/get/parameters/0: $ref `#/components/%FF` cannot be resolved: its fragment is not valid percent-encoded UTF-8"
)]
#[case::no_anchor(
    "#limit",
    Unresolvable::NoAnchor { file: "test.yaml".into(), anchor: "limit".into() },
    "test.yaml:6:18: #/paths/~1pets/get/parameters/0: $ref `#limit` cannot be resolved: test.yaml has no schema with `$anchor: limit`"
)]
fn a_reference_that_cannot_be_resolved_is_an_error_naming_its_line(
    #[case] reference: &str,
    #[case] problem: Unresolvable,
    #[case] message: &str,
) {
    let error = load(&format!(
        "openapi: 3.0.0
paths:
  /pets:
    get:
      parameters:
        - $ref: '{reference}'
        - {{name: q, in: query}}
"
    ))
    .err();
    match &error {
        Some(LoadError::Unresolved(hole)) => assert_eq!(hole.problem, problem),
        other => panic!("expected an unresolved reference, got {other:?}"),
    }
    assert_eq!(
        error.map(|error| error.to_string()).as_deref(),
        Some(message)
    );
}

#[test]
fn parameters_in_unknown_places_are_skipped_with_a_warning() {
    let document =
        load("openapi: 3.0.0\npaths: {/a: {get: {parameters: [{name: b, in: body}]}}}\n")
            .expect("loads");
    assert!(document.operations[0].parameters.is_empty());
    assert_eq!(
        document.warnings,
        ["test.yaml: paths./a.get.parameters[0]: parameter `b` skipped: `in: body` is not path, query, header or cookie"]
    );
}

#[test]
fn content_parameters_use_the_first_media_type_schema() {
    let document = load(
        "openapi: 3.0.0
paths:
  /a:
    get:
      parameters:
        - name: filter
          in: query
          content:
            application/json: {schema: {type: object}}
            text/plain: {schema: {type: string}}
",
    )
    .expect("loads");
    assert_eq!(
        document.operations[0].parameters[0].schema,
        Some(json!({"type": "object"}))
    );
}

#[test]
fn security_requirements_and_schemes_keep_their_order() {
    let document = load(
        "openapi: 3.0.0
security:
  - {oauth: [read], key: []}
  - {basic: []}
components:
  securitySchemes:
    basic: {type: http, scheme: basic}
    key: {type: apiKey, in: header, name: X-Key}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://auth.example.com/token', scopes: {}}}}
    tls: {type: mutualTLS}
",
    )
    .expect("loads");
    assert_eq!(document.security, ["oauth", "key", "basic"]);
    assert_eq!(
        document.security_schemes,
        [
            (
                "basic".to_string(),
                SecurityScheme::Http {
                    scheme: "basic".into()
                }
            ),
            (
                "key".to_string(),
                SecurityScheme::ApiKey {
                    name: "X-Key".into(),
                    location: "header".into()
                }
            ),
            (
                "oauth".to_string(),
                SecurityScheme::OAuth2 {
                    client_credentials_token_url: Some("https://auth.example.com/token".into())
                }
            ),
            (
                "tls".to_string(),
                SecurityScheme::Other {
                    kind: "mutualTLS".into()
                }
            ),
        ]
    );
}

const SWAGGER: &str = r##"
swagger: "2.0"
basePath: /v1
consumes: [application/json]
securityDefinitions:
  basic: {type: basic}
  key: {type: apiKey, in: query, name: api_key}
security:
  - key: []
parameters:
  Limit: {name: limit, in: query, type: integer, maximum: 50, exclusiveMaximum: true}
definitions:
  Pet:
    type: object
    properties:
      tags: {type: array, items: {$ref: "#/definitions/Tag"}}
  Tag: {type: string}
paths:
  /pets/{id}:
    parameters:
      - {name: id, in: path, required: true, type: string}
    get:
      parameters:
        - $ref: "#/parameters/Limit"
        - {name: tags, in: query, type: array, items: {type: string}}
        - {name: colours, in: query, type: array, items: {type: string}, collectionFormat: multi}
    put:
      consumes: [application/xml, application/merge-patch+json]
      parameters:
        - {name: pet, in: body, required: true, description: the pet, schema: {$ref: "#/definitions/Pet"}}
    post:
      parameters:
        - {name: name, in: formData, type: string, required: true, description: its name}
        - {name: photo, in: formData, type: file}
"##;

#[test]
fn swagger_parameters_become_openapi_3_parameters() {
    let document = load(SWAGGER).expect("loads");
    assert_eq!(
        summary(&document),
        ["GET /pets/{id}", "PUT /pets/{id}", "POST /pets/{id}"]
    );
    let get = &document.operations[0];
    let shapes: Vec<_> = get
        .parameters
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.location,
                p.schema.clone(),
                p.style.clone(),
                p.explode,
            )
        })
        .collect();
    assert_eq!(
        shapes,
        [
            (
                "id",
                ParameterLocation::Path,
                Some(json!({"type": "string"})),
                None,
                None
            ),
            (
                "limit",
                ParameterLocation::Query,
                Some(json!({"type": "integer", "maximum": 50, "exclusiveMaximum": true})),
                None,
                None
            ),
            (
                "tags",
                ParameterLocation::Query,
                Some(json!({"type": "array", "items": {"type": "string"}})),
                Some("form".into()),
                Some(false)
            ),
            (
                "colours",
                ParameterLocation::Query,
                Some(json!({"type": "array", "items": {"type": "string"}})),
                Some("form".into()),
                Some(true)
            ),
        ]
    );
    assert!(get.request_body.is_none());
}

#[test]
fn swagger_body_and_form_parameters_become_request_bodies() {
    let document = load(SWAGGER).expect("loads");
    let put = document.operations[1]
        .request_body
        .as_ref()
        .expect("a body");
    assert!(put.required);
    assert_eq!(put.description.as_deref(), Some("the pet"));
    let media: Vec<_> = put
        .content
        .iter()
        .map(|m| (m.name.as_str(), m.schema.clone()))
        .collect();
    let pet_ref = Some(json!({"$ref": "#/components/schemas/Pet"}));
    assert_eq!(
        media,
        [
            ("application/xml", pet_ref.clone()),
            ("application/merge-patch+json", pet_ref)
        ]
    );
    assert_eq!(document.operations[1].parameters.len(), 1);

    let post = document.operations[2]
        .request_body
        .as_ref()
        .expect("a form");
    assert!(post.required);
    assert_eq!(post.content.len(), 1);
    assert_eq!(post.content[0].name, "multipart/form-data");
    assert_eq!(
        post.content[0].schema,
        Some(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "its name"},
                "photo": {"type": "string", "format": "binary"}
            },
            "required": ["name"]
        }))
    );
}

#[test]
fn swagger_definitions_and_security_move_to_components() {
    let document = load(SWAGGER).expect("loads");
    assert_eq!(
        document.at_pointer("/components/schemas/Pet/properties/tags/items"),
        Some(&json!({"$ref": "#/components/schemas/Tag"}))
    );
    assert_eq!(document.security, ["key"]);
    assert_eq!(
        document.security_schemes,
        [
            (
                "basic".to_string(),
                SecurityScheme::Http {
                    scheme: "basic".into()
                }
            ),
            (
                "key".to_string(),
                SecurityScheme::ApiKey {
                    name: "api_key".into(),
                    location: "query".into()
                }
            ),
        ]
    );
}

#[test]
fn swagger_form_without_files_is_url_encoded() {
    let document = load(
        "swagger: '2.0'
paths:
  /login:
    post:
      parameters:
        - {name: user, in: formData, type: string}
",
    )
    .expect("loads");
    let body = document.operations[0]
        .request_body
        .as_ref()
        .expect("a form");
    assert!(!body.required);
    assert_eq!(body.content[0].name, "application/x-www-form-urlencoded");
}
