//! Whole documents to tools: arguments, schemas, plans, order and credentials.

use serde_json::{json, Value};

use super::*;
use crate::load::load_str;

fn catalogue(text: &str) -> Catalogue {
    let document = load_str(text, "test.yaml").expect("the document loads");
    convert(&document).expect("the document converts")
}

fn only_tool(text: &str) -> Tool {
    let mut tools = catalogue(text).tools;
    assert_eq!(tools.len(), 1, "expected exactly one tool");
    tools.remove(0)
}

fn schema(tool: &Tool) -> Value {
    Value::Object(tool.input_schema.clone())
}

fn property_names(tool: &Tool) -> Vec<String> {
    tool.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn a_full_tool() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /pets/{petId}:
    get:
      operationId: showPet
      summary: Info for a pet
      description: Everything we know.
      parameters:
        - {name: petId, in: path, description: The pet, schema: {type: string}}
        - {name: verbose, in: query, required: true, schema: {type: boolean}}
",
    );
    assert_eq!(tool.name, "showPet");
    assert_eq!(tool.title.as_deref(), Some("Info for a pet"));
    assert_eq!(
        tool.description.as_deref(),
        Some("Info for a pet\n\nEverything we know.")
    );
    assert_eq!(
        tool.hints,
        Hints {
            read_only: true,
            destructive: false,
            idempotent: true
        }
    );
    assert_eq!(
        schema(&tool),
        json!({
            "type": "object",
            "properties": {
                "petId": {"type": "string", "description": "The pet"},
                "verbose": {"type": "boolean"}
            },
            "required": ["petId", "verbose"],
            "additionalProperties": false
        })
    );
    assert_eq!(tool.plan.method, "GET");
    assert_eq!(tool.plan.path, "/pets/{petId}");
    assert_eq!(
        tool.plan.parameters,
        [
            ParameterPlan {
                argument: "petId".into(),
                name: "petId".into(),
                location: Location::Path,
                style: None,
                explode: false,
                required: true
            },
            ParameterPlan {
                argument: "verbose".into(),
                name: "verbose".into(),
                location: Location::Query,
                style: None,
                explode: true,
                required: true
            },
        ]
    );
    assert_eq!(tool.plan.body, None);
}

#[test]
fn clashing_names_all_take_their_location() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /items/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: id, in: query, schema: {type: string}}
        - {name: id, in: header, schema: {type: string}}
        - {name: other, in: query, schema: {type: string}}
",
    );
    assert_eq!(
        property_names(&tool),
        ["path_id", "query_id", "header_id", "other"]
    );
    let wire: Vec<_> = tool
        .plan
        .parameters
        .iter()
        .map(|p| (p.argument.as_str(), p.name.as_str(), p.location))
        .collect();
    assert_eq!(
        wire,
        [
            ("path_id", "id", Location::Path),
            ("query_id", "id", Location::Query),
            ("header_id", "id", Location::Header),
            ("other", "other", Location::Query),
        ]
    );
    assert_eq!(tool.input_schema.get("required"), Some(&json!(["path_id"])));
}

/// A prefixed name that still meets another argument's name is numbered, as
/// tool names are: the first such meeting gets `_2`, the next `_3`.
#[test]
fn prefixed_names_that_still_meet_are_numbered() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /items/{id}:
    get:
      parameters:
        - {name: path_id, in: query, schema: {type: string}}
        - {name: path_id_2, in: query, schema: {type: string}}
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: id, in: query, schema: {type: string}}
",
    );
    assert_eq!(
        property_names(&tool),
        ["path_id", "path_id_2", "path_id_3", "query_id"]
    );
}

#[test]
fn a_body_parameter_gives_way_to_the_request_body() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /notes:
    post:
      parameters:
        - {name: body, in: query, schema: {type: string}}
      requestBody:
        required: true
        description: The note
        content:
          text/plain: {schema: {type: string}}
          application/vnd.note+json: {schema: {type: object}}
",
    );
    assert_eq!(property_names(&tool), ["query_body", "body"]);
    assert_eq!(
        tool.input_schema
            .get("properties")
            .and_then(|p| p.get("body")),
        Some(&json!({"type": "object", "description": "The note"}))
    );
    assert_eq!(tool.input_schema.get("required"), Some(&json!(["body"])));
    assert_eq!(tool.plan.parameters[0].name, "body");
    assert_eq!(
        tool.plan.body,
        Some(BodyPlan {
            content_type: "application/vnd.note+json".into(),
            required: true
        })
    );
}

#[test]
fn without_a_request_body_a_body_parameter_keeps_its_name() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /notes:
    get:
      parameters:
        - {name: body, in: query, schema: {type: string}}
",
    );
    assert_eq!(property_names(&tool), ["body"]);
    assert_eq!(tool.plan.body, None);
}

#[test]
fn the_body_is_optional_unless_required_and_not_json_falls_back_to_the_first_type() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /upload:
    put:
      requestBody:
        content:
          application/octet-stream: {}
          text/plain: {schema: {type: string}}
",
    );
    assert_eq!(tool.input_schema.get("required"), Some(&json!([])));
    assert_eq!(
        tool.input_schema.get("properties"),
        Some(&json!({"body": {}}))
    );
    assert_eq!(
        tool.plan.body,
        Some(BodyPlan {
            content_type: "application/octet-stream".into(),
            required: false
        })
    );
}

#[test]
fn cookies_and_denied_headers_are_not_arguments() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /a:
    get:
      parameters:
        - {name: session, in: cookie, required: true, schema: {type: string}}
        - {name: authorization, in: header, required: true, schema: {type: string}}
        - {name: X-AGENTIFY-Operation, in: header, schema: {type: string}}
        - {name: Mcp-Session-Id, in: header, schema: {type: string}}
        - {name: Payment-Proof, in: header, schema: {type: string}}
        - {name: Content-Type, in: header, schema: {type: string}}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
        - {name: id, in: header, schema: {type: string}}
        - {name: id, in: cookie, schema: {type: string}}
",
    );
    // The cookie `id` is not an argument, so the header `id` clashes with nothing.
    assert_eq!(property_names(&tool), ["Idempotency-Key", "id"]);
    assert_eq!(tool.plan.parameters.len(), 2);
    assert_eq!(tool.input_schema.get("required"), Some(&json!([])));
}

#[test]
fn path_level_parameters_reach_the_tool_and_are_overridden() {
    let tool = only_tool(
        "openapi: 3.0.0
paths:
  /orgs/{org}/repos:
    parameters:
      - {name: org, in: path, schema: {type: string}}
      - {name: page, in: query, schema: {type: integer}}
    get:
      parameters:
        - {name: page, in: query, required: true, schema: {type: integer, minimum: 1}}
",
    );
    assert_eq!(
        schema(&tool)["properties"],
        json!({"org": {"type": "string"}, "page": {"type": "integer", "minimum": 1}})
    );
    // `org` is a path parameter: required even though the document does not say so.
    assert_eq!(
        tool.input_schema.get("required"),
        Some(&json!(["org", "page"]))
    );
}

#[test]
fn referenced_schemas_travel_in_defs_and_recursion_works() {
    let tool = only_tool(
        "openapi: 3.1.0
components:
  schemas:
    Node:
      type: object
      properties:
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        label: {$ref: '#/components/schemas/Label'}
    Label: {type: string, maxLength: 10}
    Unused: {type: integer}
paths:
  /trees:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}
",
    );
    assert_eq!(
        schema(&tool),
        json!({
            "type": "object",
            "properties": {"body": {"$ref": "#/$defs/Node"}},
            "required": ["body"],
            "additionalProperties": false,
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        "label": {"$ref": "#/$defs/Label"}
                    }
                },
                "Label": {"type": "string", "maxLength": 10}
            }
        })
    );
}

#[test]
fn defs_keys_are_safe_and_distinct() {
    let tool = only_tool(
        "openapi: 3.1.0
components:
  schemas:
    'a b': {type: string}
    a_b: {type: integer}
paths:
  /x:
    get:
      parameters:
        - {name: p, in: query, schema: {$ref: '#/components/schemas/a%20b'}}
        - {name: q, in: query, schema: {$ref: '#/components/schemas/a_b'}}
        - {name: r, in: query, schema: {$ref: '#/paths/~1x/get/parameters/0/schema'}}
",
    );
    assert_eq!(
        schema(&tool)["properties"],
        json!({
            "p": {"$ref": "#/$defs/a_b"},
            "q": {"$ref": "#/$defs/a_b_2"},
            "r": {"$ref": "#/$defs/paths._x.get.parameters.0.schema"}
        })
    );
    assert_eq!(
        schema(&tool)["$defs"],
        json!({
            "a_b": {"type": "string"},
            "a_b_2": {"type": "integer"},
            "paths._x.get.parameters.0.schema": {"$ref": "#/$defs/a_b"}
        })
    );
}

#[test]
fn openapi_30_forms_are_translated() {
    let tool = only_tool(
        "openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - name: n
          in: query
          schema:
            type: integer
            nullable: true
            minimum: 0
            exclusiveMinimum: true
            maximum: 10
            exclusiveMaximum: false
            example: 5
            x-internal: yes
        - name: colour
          in: query
          schema: {type: string, enum: [red, green], nullable: true, xml: {name: c}}
        - name: plain
          in: query
          schema: {nullable: false, type: string, externalDocs: {url: 'https://x'}}
",
    );
    assert_eq!(
        schema(&tool)["properties"],
        json!({
            "n": {
                "type": ["integer", "null"],
                "exclusiveMinimum": 0,
                "maximum": 10,
                "examples": [5]
            },
            "colour": {"type": ["string", "null"], "enum": ["red", "green", null]},
            "plain": {"type": "string"}
        })
    );
}

#[test]
fn openapi_31_schemas_keep_their_own_meaning() {
    let tool = only_tool(
        "openapi: 3.1.0
paths:
  /a:
    get:
      parameters:
        - name: n
          in: query
          schema: {type: [integer, 'null'], exclusiveMinimum: 0, nullable: true, $id: 'urn:x'}
",
    );
    // `$id` would move the base of the rewritten references, so it goes;
    // `nullable` is honoured (TC-SCHEMA-008) and goes too.
    assert_eq!(
        schema(&tool)["properties"]["n"],
        json!({"type": ["integer", "null"], "exclusiveMinimum": 0})
    );
}

#[test]
fn a_schema_ref_to_a_url_is_an_error_not_an_open_schema() {
    let document = load_str(
        "openapi: 3.1.0
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                remote: {$ref: 'https://example.com/pet.json'}
",
        "test.yaml",
    )
    .expect("loads: the reference is met when the schema is translated");
    let error = convert(&document).err().map(|error| error.to_string());
    assert_eq!(
        error.as_deref(),
        Some("test.yaml:11:33: #/paths/~1a/post/requestBody/content/application~1json/schema/properties/remote: $ref `https://example.com/pet.json` cannot be resolved: it is a URL, and URLs are never fetched")
    );
}

#[test]
fn a_schema_ref_to_a_missing_pointer_is_an_error_naming_where() {
    let document = load_str(
        "openapi: 3.0.0
paths:
  /a:
    get:
      parameters:
        - {name: p, in: query, schema: {$ref: '#/components/schemas/Nope'}}
",
        "test.yaml",
    )
    .expect("loads: schemas are only followed when converted");
    let error = convert(&document).err().map(|e| e.to_string());
    assert_eq!(
        error.as_deref(),
        Some("test.yaml:6:48: #/paths/~1a/get/parameters/0/schema: $ref `#/components/schemas/Nope` cannot be resolved: test.yaml has nothing at #/components/schemas/Nope")
    );
}

#[test]
fn a_ref_that_only_leads_to_itself_constrains_nothing() {
    let tool = only_tool(
        "openapi: 3.1.0
components:
  schemas:
    A: {$ref: '#/components/schemas/B'}
    B: {$ref: '#/components/schemas/A'}
paths:
  /a:
    get:
      parameters:
        - {name: p, in: query, schema: {$ref: '#/components/schemas/A'}}
",
    );
    // B is only reached through A, which is cut off before it.
    assert_eq!(schema(&tool)["$defs"], json!({"A": {}}));
}

#[test]
fn deprecated_operations_are_left_out_and_order_is_kept() {
    let names: Vec<String> = catalogue(
        "openapi: 3.0.0
paths:
  /b:
    delete: {operationId: removeB}
    get: {operationId: old, deprecated: true}
    post: {operationId: addB, deprecated: false}
  /a:
    get: {}
",
    )
    .tools
    .into_iter()
    .map(|tool| tool.name)
    .collect();
    assert_eq!(names, ["addB", "removeB", "get__a"]);
}

#[test]
fn swagger_documents_convert_end_to_end() {
    let tool = only_tool(
        "swagger: '2.0'
definitions:
  Pet: {type: object, properties: {name: {type: string}}}
paths:
  /pets:
    post:
      operationId: addPet
      parameters:
        - {name: pet, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}
",
    );
    assert_eq!(
        schema(&tool),
        json!({
            "type": "object",
            "properties": {"body": {"$ref": "#/$defs/Pet"}},
            "required": ["body"],
            "additionalProperties": false,
            "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}
        })
    );
    assert_eq!(
        tool.plan.body,
        Some(BodyPlan {
            content_type: "application/json".into(),
            required: true
        })
    );
}

fn credential(security: &str) -> Option<CredentialPlacement> {
    catalogue(&format!("openapi: 3.0.0\npaths: {{}}\n{security}")).default_credential
}

#[test]
fn the_default_credential_follows_the_first_usable_requirement() {
    let schemes = "components:
  securitySchemes:
    cookie: {type: apiKey, in: cookie, name: sid}
    basic: {type: http, scheme: Basic}
    key: {type: apiKey, in: header, name: X-Key}
    query: {type: apiKey, in: query, name: api_key}
    oauth: {type: oauth2, flows: {}}
    oidc: {type: openIdConnect, openIdConnectUrl: 'https://x'}
    digest: {type: http, scheme: digest}
";
    let with = |security: &str| credential(&format!("security: {security}\n{schemes}"));
    assert_eq!(
        with("[{cookie: []}, {key: []}]"),
        Some(CredentialPlacement::Header("X-Key".into()))
    );
    assert_eq!(
        with("[{query: []}]"),
        Some(CredentialPlacement::Query("api_key".into()))
    );
    assert_eq!(
        with("[{digest: [], oauth: []}]"),
        Some(CredentialPlacement::Bearer)
    );
    assert_eq!(with("[{oidc: []}]"), Some(CredentialPlacement::Bearer));
    assert_eq!(with("[{}]"), Some(CredentialPlacement::Basic));
    assert_eq!(with("[{undeclared: []}]"), Some(CredentialPlacement::Basic));
    assert_eq!(
        credential("components: {securitySchemes: {b: {type: http, scheme: bearer}}}"),
        Some(CredentialPlacement::Bearer)
    );
    assert_eq!(
        credential("components: {securitySchemes: {c: {type: apiKey, in: cookie, name: s}}}"),
        None
    );
    assert_eq!(credential(""), None);
}

#[test]
fn tuple_items_become_prefix_items_and_additional_items_the_rest() {
    let tool = only_tool(
        "openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - name: pair
          in: query
          schema: {type: array, items: [{type: integer}, {type: string}], additionalItems: false}
        - name: open
          in: query
          schema: {type: array, items: [{type: integer}]}
        - name: plain
          in: query
          schema: {type: array, items: {type: integer}, additionalItems: false}
",
    );
    assert_eq!(
        schema(&tool)["properties"],
        json!({
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false},
            "open": {"type": "array", "prefixItems": [{"type": "integer"}]},
            "plain": {"type": "array", "items": {"type": "integer"}, "additionalItems": false}
        })
    );
    // What the published schema allows, the checker allows (TC-CHECK-016).
    let validator = crate::check::Validator::compile(&tool.input_schema);
    assert_eq!(
        validator.validate(&json!({"pair": [1, "a"], "open": [1, 2, 3], "plain": [1, 2]})),
        Ok(())
    );
    assert!(validator.validate(&json!({"pair": [1, "a", 2]})).is_err());
}

/// The pet shared by the `nullable` tests below.
const NULLABLE_PETS: &str = "
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
        owner: {$ref: '#/components/schemas/Owner'}
    Owner: {type: object, properties: {email: {type: string, format: email}}}
    Mixed: {oneOf: [{type: string}, {type: integer}]}
paths:
  /pets:
    post:
      operationId: addPet
      parameters:
        - {name: beside, in: query, schema: {$ref: '#/components/schemas/Pet', nullable: true}}
        - name: wrapped
          in: query
          schema: {nullable: true, description: The pet, allOf: [{$ref: '#/components/schemas/Pet'}]}
        - name: both
          in: query
          schema:
            nullable: true
            allOf: [{$ref: '#/components/schemas/Pet'}, {type: object, required: [owner]}]
        - {name: plain, in: query, schema: {$ref: '#/components/schemas/Pet'}}
        - {name: either, in: query, schema: {$ref: '#/components/schemas/Mixed', nullable: true}}
        - {name: fixed, in: query, schema: {const: 3, nullable: true}}
";

#[rstest::rstest]
#[case::openapi_30("openapi: 3.0.3")]
#[case::openapi_31("openapi: 3.1.0")]
fn nullable_beside_a_ref_or_an_all_of_admits_null(#[case] version: &str) {
    let tool = only_tool(&format!("{version}{NULLABLE_PETS}"));
    let pet_nullable = json!({
        "type": ["object", "null"],
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "owner": {"$ref": "#/$defs/Owner"}}
    });
    assert_eq!(
        schema(&tool)["properties"],
        json!({
            "beside": {"$ref": "#/$defs/Pet_nullable"},
            // The only schema of the `allOf` takes its place.
            "wrapped": {"description": "The pet", "$ref": "#/$defs/Pet_nullable"},
            "both": {"allOf": [
                {"$ref": "#/$defs/Pet_nullable"},
                {"type": ["object", "null"], "required": ["owner"]}
            ]},
            "plain": {"$ref": "#/$defs/Pet"},
            "either": {"$ref": "#/$defs/Mixed_nullable"},
            "fixed": {"anyOf": [{"const": 3}, {"type": "null"}]}
        })
    );
    let defs = &schema(&tool)["$defs"];
    assert_eq!(defs["Pet_nullable"], pet_nullable);
    assert_eq!(defs["Pet"]["type"], json!("object"));
    // A `oneOf` cannot take null in place.
    assert_eq!(
        defs["Mixed_nullable"],
        json!({"anyOf": [{"oneOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "null"}]})
    );
    assert_eq!(
        defs.as_object()
            .map(|d| d.keys().cloned().collect::<Vec<_>>()),
        Some(vec![
            "Pet_nullable".into(),
            "Pet".into(),
            "Mixed_nullable".into(),
            "Owner".into()
        ])
    );
}

/// End to end: what the published schema admits, the checker admits, and a
/// value of the wrong type is still refused.
#[test]
fn null_beside_a_ref_passes_the_check_and_a_wrong_type_does_not() {
    let tool = only_tool(&format!("openapi: 3.0.3{NULLABLE_PETS}"));
    let validator = crate::check::Validator::compile(&tool.input_schema);
    for accepted in [
        json!({"beside": null, "wrapped": null, "both": null, "either": null, "fixed": null}),
        json!({"beside": {"name": "Rex"}, "wrapped": {"name": "Rex"}, "fixed": 3}),
    ] {
        assert_eq!(validator.validate(&accepted), Ok(()), "{accepted}");
    }
    for refused in [
        json!({"beside": "Rex"}),
        json!({"wrapped": 7}),
        json!({"beside": {}}),
        json!({"wrapped": {"name": "Rex", "owner": {"email": "nope"}}}),
        json!({"plain": null}),
    ] {
        assert!(validator.validate(&refused).is_err(), "{refused}");
    }
}

#[test]
fn nullable_false_and_nullable_without_a_type_change_nothing() {
    let tool = only_tool(
        "openapi: 3.1.0
paths:
  /a:
    get:
      parameters:
        - {name: off, in: query, schema: {type: string, nullable: false}}
        - {name: loose, in: query, schema: {nullable: true, minLength: 2}}
",
    );
    assert_eq!(
        schema(&tool)["properties"],
        json!({"off": {"type": "string"}, "loose": {"minLength": 2}})
    );
}

/// A pet whose `id` the server assigns, shared by a parameter and a request body.
const READ_ONLY_PETS: &str = "openapi: 3.0.3
components:
  schemas:
    Pet:
      type: object
      required: [id, name, password]
      properties:
        id: {type: integer, readOnly: true}
        name: {type: string}
        password: {type: string, writeOnly: true}
        created: {$ref: '#/components/schemas/Stamp'}
        owner: {$ref: '#/components/schemas/Owner'}
        tags: {type: array, items: {$ref: '#/components/schemas/Tag'}}
    Stamp: {type: string, format: date-time, readOnly: true}
    Owner: {type: object, properties: {email: {type: string}}}
    Tag:
      type: object
      required: [id, label]
      properties:
        id: {readOnly: true, allOf: [{type: integer}]}
        label: {type: string}
    NewPet:
      allOf: [{$ref: '#/components/schemas/Pet'}]
      required: [id, name, kind]
      properties:
        kind: {type: string}
paths:
  /pets:
    put:
      operationId: replacePet
      parameters:
        - {name: like, in: query, schema: {$ref: '#/components/schemas/Pet'}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
    post:
      operationId: addPet
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [serial, pet]
              properties:
                serial: {type: string, readOnly: true}
                pet: {$ref: '#/components/schemas/NewPet'}
                owner: {$ref: '#/components/schemas/Owner'}
";

#[test]
fn read_only_properties_leave_the_request_body_only() {
    let tools = catalogue(READ_ONLY_PETS).tools;
    let replace = schema(&tools[0]);
    // The parameter keeps the schema as written.
    assert_eq!(
        replace["properties"]["like"],
        json!({"$ref": "#/$defs/Pet"})
    );
    assert_eq!(
        replace["$defs"]["Pet"]["required"],
        json!(["id", "name", "password"])
    );
    assert_eq!(
        replace["$defs"]["Pet"]["properties"]["id"]["readOnly"],
        json!(true)
    );
    // The body's copy has neither `id` nor `created` (read-only through its
    // `$ref`); `password` is write-only and stays.
    assert_eq!(
        replace["properties"]["body"],
        json!({"$ref": "#/$defs/Pet_request"})
    );
    assert_eq!(
        replace["$defs"]["Pet_request"],
        json!({
            "type": "object",
            "required": ["name", "password"],
            "properties": {
                "name": {"type": "string"},
                "password": {"type": "string", "writeOnly": true},
                "owner": {"$ref": "#/$defs/Owner"},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag_request"}}
            }
        })
    );
    assert_eq!(
        replace["$defs"]["Tag_request"],
        json!({"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}})
    );
    // A schema with nothing read-only has one form only.
    assert!(replace["$defs"].get("Owner_request").is_none());
    assert_eq!(
        replace["$defs"]
            .as_object()
            .map(|d| d.keys().cloned().collect::<Vec<_>>()),
        Some(vec![
            "Pet".into(),
            "Pet_request".into(),
            "Stamp".into(),
            "Owner".into(),
            "Tag".into(),
            "Tag_request".into()
        ])
    );
}

#[test]
fn read_only_properties_inherited_through_all_of_leave_required_too() {
    let tools = catalogue(READ_ONLY_PETS).tools;
    let add = schema(&tools[1]);
    assert_eq!(
        add["properties"]["body"],
        json!({
            "type": "object",
            "required": ["pet"],
            "properties": {
                "pet": {"$ref": "#/$defs/NewPet_request"},
                "owner": {"$ref": "#/$defs/Owner"}
            }
        })
    );
    assert_eq!(
        add["$defs"]["NewPet_request"],
        json!({
            "allOf": [{"$ref": "#/$defs/Pet_request"}],
            "required": ["name", "kind"],
            "properties": {"kind": {"type": "string"}}
        })
    );
    assert!(add["$defs"].get("Pet").is_none());
    // The checker asks the agent for nothing the server assigns.
    let validator = crate::check::Validator::compile(&tools[1].input_schema);
    assert_eq!(
        validator
            .validate(&json!({"body": {"pet": {"name": "Rex", "password": "p", "kind": "cat"}}})),
        Ok(())
    );
    let validator = crate::check::Validator::compile(&tools[0].input_schema);
    assert_eq!(
        validator
            .validate(&json!({"body": {"name": "Rex", "password": "p", "tags": [{"label": "a"}]}})),
        Ok(())
    );
}

#[test]
fn recursive_and_nullable_schemas_get_their_request_body_form() {
    let tool = only_tool(
        "openapi: 3.0.3
components:
  schemas:
    Node:
      type: object
      required: [id]
      properties:
        id: {type: string, readOnly: true}
        parent: {$ref: '#/components/schemas/Node', nullable: true}
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
paths:
  /nodes:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node', nullable: true}
",
    );
    assert_eq!(
        schema(&tool)["properties"]["body"],
        json!({"$ref": "#/$defs/Node_request_nullable"})
    );
    let node = json!({
        "type": "object",
        "required": [],
        "properties": {
            "parent": {"$ref": "#/$defs/Node_request_nullable"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node_request"}}
        }
    });
    let mut nullable = node.clone();
    nullable["type"] = json!(["object", "null"]);
    assert_eq!(
        schema(&tool)["$defs"],
        json!({"Node_request_nullable": nullable, "Node_request": node})
    );
}

const TAGGED: &str = r#"
openapi: 3.1.0
paths:
  /charges:
    get: {operationId: listCharges, tags: [charges]}
    post: {operationId: createCharge, tags: [charges, writes]}
  /audit:
    get: {operationId: audit, tags: [internal]}
  /a:
    get: {operationId: same}
    post: {operationId: same}
"#;

fn chosen(selection: Selection, max_name_length: usize) -> Catalogue {
    let document = load_str(TAGGED, "tagged.yaml").expect("loads");
    let options = Options {
        selection,
        max_name_length,
    };
    convert_with(&document, &options).expect("converts")
}

fn names(catalogue: &Catalogue) -> Vec<&str> {
    catalogue
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect()
}

fn globs(patterns: &[&str]) -> Vec<glob::Pattern> {
    patterns
        .iter()
        .map(|p| glob::Pattern::new(p).expect("a glob"))
        .collect()
}

#[test]
fn without_options_every_operation_is_a_tool() {
    let all = chosen(Selection::default(), MAX_NAME_LEN);
    assert_eq!(
        names(&all),
        ["listCharges", "createCharge", "audit", "same", "same_2"]
    );
    assert_eq!(all.left_out_by_selection, 0);
    assert!(all.unmatched_selectors.is_empty());
}

#[test]
fn tags_and_globs_choose_the_tools_and_names_do_not_move() {
    let selection = Selection {
        include_tags: vec!["charges".into()],
        exclude_tags: vec!["writes".into()],
        include_tools: globs(&["same*"]),
        exclude_tools: globs(&["same"]),
    };
    let some = chosen(selection, MAX_NAME_LEN);
    // `same_2` keeps the name it has when `same` is served.
    assert_eq!(names(&some), ["listCharges", "same_2"]);
    assert_eq!(some.left_out_by_selection, 3);
    assert!(some.unmatched_selectors.is_empty());
}

#[test]
fn a_selector_that_names_nothing_is_reported() {
    let selection = Selection {
        include_tags: vec!["charge".into()],
        exclude_tools: globs(&["Get*"]),
        ..Selection::default()
    };
    let none = chosen(selection, MAX_NAME_LEN);
    assert!(none.tools.is_empty());
    assert_eq!(
        none.unmatched_selectors,
        ["--include-tags charge", "--exclude-tools Get*"]
    );
}

#[test]
fn a_name_limit_shortens_long_names_only() {
    let short = chosen(Selection::default(), 16);
    assert_eq!(names(&short)[0], "listCharges");
    assert_eq!(names(&short)[1], "createCharge");
    let long = load_str(
        "openapi: 3.1.0\npaths:\n  /x:\n    get: {operationId: listCustomerPaymentMethodBalanceTransactions}\n",
        "long.yaml",
    )
    .expect("loads");
    let options = Options {
        max_name_length: 32,
        ..Options::default()
    };
    let tool = &convert_with(&long, &options).expect("converts").tools[0];
    assert_eq!(tool.name.len(), 32);
    assert!(tool.name.starts_with("listCustomerPaymentMeth_"));
}
