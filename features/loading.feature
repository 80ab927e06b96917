Feature: Loading the document
  OpenAPI 3.0 and 3.1 load from JSON and from YAML. Local references are
  resolved wherever they appear, recursive ones too; anything outside the
  document is never fetched. Parameters of a path item reach each of its
  operations unless the operation redeclares them. A document the gateway
  cannot use stops it with an error that points at the problem.

  @TC-LOAD-001
  Scenario: OpenAPI 3.0 in YAML
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    Then the tools are, in order:
      | listPets |
    And the tool "listPets" has the arguments:
      | argument | required |
      | limit    | no       |

  @TC-LOAD-001
  Scenario: OpenAPI 3.0 in JSON
    Given the OpenAPI document:
      """
      {
        "openapi": "3.0.0",
        "info": {"title": "Pets", "version": "1"},
        "paths": {
          "/pets/{petId}": {
            "get": {
              "operationId": "getPet",
              "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "string"}}],
              "responses": {"200": {"description": "ok"}}
            }
          }
        }
      }
      """
    Then the tools are, in order:
      | getPet |
    And the tool "getPet" has the arguments:
      | argument | required |
      | petId    | yes      |

  @TC-LOAD-002
  Scenario: OpenAPI 3.1 in YAML
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: tag, in: query, schema: {type: [string, "null"]}}
              - {name: limit, in: query, schema: {type: integer, exclusiveMinimum: 0}}
            responses: {"200": {description: ok}}
      """
    Then the tools are, in order:
      | listPets |
    And in the input schema of "listPets", the type at "/properties/tag/type" is "string" or null
    And in the input schema of "listPets", "/properties/limit/exclusiveMinimum" is 0

  @TC-LOAD-002
  Scenario: OpenAPI 3.1 in JSON
    Given the OpenAPI document:
      """
      {
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1"},
        "paths": {
          "/pets": {
            "post": {
              "operationId": "addPet",
              "requestBody": {
                "required": true,
                "content": {"application/json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}
              },
              "responses": {"201": {"description": "created"}}
            }
          }
        }
      }
      """
    Then the tools are, in order:
      | addPet |
    And the tool "addPet" has the arguments:
      | argument | required |
      | body     | yes      |

  @TC-LOAD-003
  Scenario: Local references to parameters, request bodies and schemas are resolved
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            parameters:
              - $ref: "#/components/parameters/DryRun"
            requestBody:
              $ref: "#/components/requestBodies/NewPet"
            responses: {"201": {description: created}}
      components:
        parameters:
          DryRun: {name: dryRun, in: query, required: true, schema: {type: boolean}}
        requestBodies:
          NewPet:
            required: true
            content:
              application/json:
                schema: {$ref: "#/components/schemas/Pet"}
        schemas:
          Pet:
            type: object
            properties:
              name: {type: string}
              category: {$ref: "#/components/schemas/Category"}
          Category:
            type: object
            properties:
              label: {type: string, maxLength: 20}
      """
    Then the tool "addPet" has the arguments:
      | argument | required |
      | dryRun   | yes      |
      | body     | yes      |
    And in the input schema of "addPet", "/properties/dryRun/type" is "boolean"
    And in the input schema of "addPet", "/properties/body/properties/category/properties/label/maxLength" is 20
    And the input schema of "addPet" is self-contained

  @TC-LOAD-003
  Scenario: A recursive schema is resolved without looping
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Trees, version: "1"}
      paths:
        /trees:
          post:
            operationId: plantTree
            requestBody:
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Node"}
            responses: {"201": {description: created}}
      components:
        schemas:
          Node:
            type: object
            properties:
              label: {type: string}
              children:
                type: array
                items: {$ref: "#/components/schemas/Node"}
      """
    Then the tools are, in order:
      | plantTree |
    And in the input schema of "plantTree", "/properties/body/properties/children/items/properties/children/items/properties/label/type" is "string"
    And the input schema of "plantTree" is self-contained

  @TC-LOAD-004
  Scenario: External references are never fetched
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: limit, in: query, schema: {$ref: "{{base_url}}/schemas/common.yaml#/Limit"}}
            responses: {"200": {description: ok}}
          post:
            operationId: addPet
            requestBody:
              content:
                application/json:
                  schema: {$ref: "{{base_url}}/schemas/pet.json#/Pet"}
            responses: {"201": {description: created}}
        /owners:
          $ref: "{{base_url}}/paths/owners.yaml"
      """
    When the gateway loads the document, whether it accepts it or not
    Then the upstream has received no request

  @TC-LOAD-005
  Scenario: Path-item parameters apply to every operation; an operation's own one replaces it
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Shops, version: "1"}
      paths:
        /shops/{shopId}/items:
          parameters:
            - {name: shopId, in: path, required: true, schema: {type: string}}
            - {name: limit, in: query, schema: {type: integer}}
          get:
            operationId: listItems
            parameters:
              - {name: limit, in: query, required: true, schema: {type: integer, maximum: 50}}
            responses: {"200": {description: ok}}
          delete:
            operationId: clearItems
            responses: {"204": {description: gone}}
      """
    Then the tool "listItems" has the arguments:
      | argument | required |
      | shopId   | yes      |
      | limit    | yes      |
    And in the input schema of "listItems", "/properties/limit/maximum" is 50
    And the tool "clearItems" has the arguments:
      | argument | required |
      | shopId   | yes      |
      | limit    | no       |

  @TC-LOAD-006
  Scenario: YAML that does not parse: the error names the line
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info:
        title: Broken
        version: "1"
       paths: {}
      """
    Then the gateway refuses to start, and its error names line 5

  @TC-LOAD-006
  Scenario: JSON that does not parse: the error names the line
    Given the OpenAPI document:
      """
      {"openapi": "3.0.3", "info": {"title": "Broken", "version": "1"},
       "paths": {
         "/pets": {"get": {"operationId": "listPets",, "responses": {}}}}}
      """
    Then the gateway refuses to start, and its error names line 3

  @TC-LOAD-006
  Scenario Outline: A reference to nothing: the error names the reference (<where>)
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Broken, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            parameters:
              - $ref: "<parameter>"
            requestBody:
              content:
                application/json:
                  schema: {$ref: "<schema>"}
            responses: {"201": {description: created}}
      components:
        parameters:
          DryRun: {name: dryRun, in: query, schema: {type: boolean}}
        schemas:
          Pet: {type: object}
      """
    Then the gateway refuses to start, and its error names "<missing>"

    Examples:
      | where      | parameter                        | schema                      | missing                          |
      | parameter  | #/components/parameters/Missing  | #/components/schemas/Pet    | #/components/parameters/Missing  |
      | schema     | #/components/parameters/DryRun   | #/components/schemas/Ghost  | #/components/schemas/Ghost       |

  @TC-LOAD-006
  Scenario: A document that is not OpenAPI at all
    Given the OpenAPI document:
      """
      title: My shopping list
      items: [milk, bread]
      """
    Then the gateway refuses to start, and its error names "openapi"

  @TC-LOAD-007 @recommended
  Scenario: Swagger 2.0 is converted
    Given the OpenAPI document:
      """
      swagger: "2.0"
      info: {title: Pets, version: "1"}
      basePath: /v1
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: limit, in: query, type: integer, maximum: 100}
            responses: {"200": {description: ok}}
          post:
            operationId: addPet
            parameters:
              - {name: pet, in: body, required: true, schema: {$ref: "#/definitions/Pet"}}
            responses: {"201": {description: created}}
      definitions:
        Pet:
          type: object
          required: [name]
          properties:
            name: {type: string}
      """
    Then the tools are, in order:
      | listPets |
      | addPet   |
    And the tool "listPets" has the arguments:
      | argument | required |
      | limit    | no       |
    And in the input schema of "listPets", "/properties/limit/maximum" is 100
    And the tool "addPet" has the arguments:
      | argument | required |
      | body     | yes      |
    And in the input schema of "addPet", "/properties/body/properties/name/type" is "string"
