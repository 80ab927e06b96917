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
    When the gateway starts
    Then the gateway lists the tools:
      | listPets |
    And the tool "listPets" takes the arguments:
      | limit |

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
    When the gateway starts
    Then the gateway lists the tools:
      | getPet |
    And the tool "getPet" takes the arguments:
      | petId |

  @TC-LOAD-001
  Scenario: A whole document of the kit's fixtures loads: a small pet store
    Given the OpenAPI document is the kit's fixture "petstore.yaml"
    When the gateway starts
    Then the gateway lists the tools:
      | listPets             |
      | createPet            |
      | showPetById          |
      | delete__pets__petId_ |

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
    When the gateway starts
    Then the gateway lists the tools:
      | listPets |
    And in the input schema of "listPets", the type at "/properties/tag/type" is "string" or null

  @TC-LOAD-002
  Scenario: OpenAPI 3.1 in JSON
    Given the OpenAPI document:
      """
      {
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1"},
        "paths": {
          "/pets/{petId}": {
            "get": {
              "operationId": "getPet",
              "parameters": [
                {"name": "petId", "in": "path", "required": true, "schema": {"type": "integer", "exclusiveMinimum": 0}},
                {"name": "fields", "in": "query", "schema": {"type": ["array", "null"], "items": {"type": "string"}}}
              ],
              "responses": {"200": {"description": "ok"}}
            }
          }
        }
      }
      """
    When the gateway starts
    Then the gateway lists the tools:
      | getPet |
    And the tool "getPet" takes the arguments:
      | petId  |
      | fields |
    And in the input schema of "getPet", the type at "/properties/fields/type" is "array" or null

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
    When the gateway starts
    Then in the input schema of "addPet", "/properties/dryRun/type" is "boolean"
    And somewhere in the input schema of "addPet", the property "category" has "/properties/label/maxLength" equal to 20

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
    When the gateway starts
    Then the gateway lists the tools:
      | plantTree |
    And somewhere in the input schema of "plantTree", the property "children" has "/items/properties/children/items/properties/label/type" equal to "string"

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
    Then nothing reached the upstream

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
            - {name: limit, in: query, schema: {type: string}}
          get:
            operationId: listItems
            parameters:
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
          delete:
            operationId: clearItems
            responses: {"204": {description: gone}}
      """
    When the gateway starts
    Then the tool "listItems" takes the arguments:
      | shopId |
      | limit  |
    And in the input schema of "listItems", "/properties/limit/type" is "integer"
    And the tool "clearItems" takes the arguments:
      | shopId |
      | limit  |
    And in the input schema of "clearItems", "/properties/limit/type" is "string"

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
  Scenario Outline: A reference that cannot be resolved stops the gateway, never leaves a hole (<what>)
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - $ref: "<parameter>"
            responses: {"200": {description: ok}}
      """
    And beside the document, the file "parameters.yaml":
      """
      Limit: {name: limit, in: query, schema: {type: integer, maximum: 50}}
      """
    Then the gateway refuses to start, and its error names "<named>"

    Examples:
      | what                      | parameter                                | named                          |
      | a URL                     | {{base_url}}/parameters.yaml#/Limit      | /parameters.yaml#/Limit        |
      | a file that is not there  | common/parameters.yaml#/Limit            | common/parameters.yaml         |
      | nothing at the pointer    | parameters.yaml#/Offset                  | parameters.yaml#/Offset        |

  @TC-LOAD-006
  Scenario: A reference to a file outside the document's folder tree stops the gateway
    The file is there and valid, but outside the folder tree it may not be
    read (TC-LOAD-008), so the reference cannot be resolved.
    Given the OpenAPI document is in the folder "api"
    And the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - $ref: "../secret.yaml#/Limit"
            responses: {"200": {description: ok}}
      """
    And beside the document, the file "../secret.yaml":
      """
      Limit: {name: limit, in: query, schema: {type: integer}}
      """
    Then the gateway refuses to start, and its error names "secret.yaml"

  @TC-LOAD-006
  Scenario: An operation given by reference to a file that is not there stops the gateway
    Some split documents write a whole operation as a `$ref` to its own file.
    Left as written, it would become a tool named from its method and path,
    without the operation's name, arguments or deprecated flag.
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            $ref: "resources/pets/pets_list.yml"
      """
    Then the gateway refuses to start, and its error names "resources/pets/pets_list.yml"
    And the gateway refuses to start, and its error names line 6

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
    When the gateway starts
    Then the gateway lists the tools:
      | listPets |
      | addPet   |
    And the tool "listPets" takes the arguments:
      | limit |
    And in the input schema of "listPets", "/properties/limit/type" is "integer"
    And somewhere in the input schema of "addPet", the property "name" has "/type" equal to "string"

  @TC-LOAD-002
  Scenario: A wide schema loads: nesting is bounded, size is not
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Wide, version: "1"}
      paths:
        /forms:
          post:
            operationId: submitForm
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      p0: {type: object, properties: {v: {type: string}}}
                      p1: {type: object, properties: {v: {type: string}}}
                      p2: {type: object, properties: {v: {type: string}}}
                      p3: {type: object, properties: {v: {type: string}}}
                      p4: {type: object, properties: {v: {type: string}}}
                      p5: {type: object, properties: {v: {type: string}}}
                      p6: {type: object, properties: {v: {type: string}}}
                      p7: {type: object, properties: {v: {type: string}}}
                      p8: {type: object, properties: {v: {type: string}}}
                      p9: {type: object, properties: {v: {type: string}}}
                      p10: {type: object, properties: {v: {type: string}}}
                      p11: {type: object, properties: {v: {type: string}}}
                      p12: {type: object, properties: {v: {type: string}}}
                      p13: {type: object, properties: {v: {type: string}}}
                      p14: {type: object, properties: {v: {type: string}}}
                      p15: {type: object, properties: {v: {type: string}}}
                      p16: {type: object, properties: {v: {type: string}}}
                      p17: {type: object, properties: {v: {type: string}}}
                      p18: {type: object, properties: {v: {type: string}}}
                      p19: {type: object, properties: {v: {type: string}}}
                      p20: {type: object, properties: {v: {type: string}}}
                      p21: {type: object, properties: {v: {type: string}}}
                      p22: {type: object, properties: {v: {type: string}}}
                      p23: {type: object, properties: {v: {type: string}}}
                      p24: {type: object, properties: {v: {type: string}}}
                      p25: {type: object, properties: {v: {type: string}}}
                      p26: {type: object, properties: {v: {type: string}}}
                      p27: {type: object, properties: {v: {type: string}}}
                      p28: {type: object, properties: {v: {type: string}}}
                      p29: {type: object, properties: {v: {type: string}}}
                      p30: {type: object, properties: {v: {type: string}}}
                      p31: {type: object, properties: {v: {type: string}}}
                      p32: {type: object, properties: {v: {type: string}}}
                      p33: {type: object, properties: {v: {type: string}}}
                      p34: {type: object, properties: {v: {type: string}}}
                      p35: {type: object, properties: {v: {type: string}}}
                      p36: {type: object, properties: {v: {type: string}}}
                      p37: {type: object, properties: {v: {type: string}}}
                      p38: {type: object, properties: {v: {type: string}}}
                      p39: {type: object, properties: {v: {type: string}}}
                      p40: {type: object, properties: {v: {type: string}}}
                      p41: {type: object, properties: {v: {type: string}}}
                      p42: {type: object, properties: {v: {type: string}}}
                      p43: {type: object, properties: {v: {type: string}}}
                      p44: {type: object, properties: {v: {type: string}}}
                      p45: {type: object, properties: {v: {type: string}}}
                      p46: {type: object, properties: {v: {type: string}}}
                      p47: {type: object, properties: {v: {type: string}}}
                      p48: {type: object, properties: {v: {type: string}}}
                      p49: {type: object, properties: {v: {type: string}}}
                      p50: {type: object, properties: {v: {type: string}}}
                      p51: {type: object, properties: {v: {type: string}}}
                      p52: {type: object, properties: {v: {type: string}}}
                      p53: {type: object, properties: {v: {type: string}}}
                      p54: {type: object, properties: {v: {type: string}}}
                      p55: {type: object, properties: {v: {type: string}}}
                      p56: {type: object, properties: {v: {type: string}}}
                      p57: {type: object, properties: {v: {type: string}}}
                      p58: {type: object, properties: {v: {type: string}}}
                      p59: {type: object, properties: {v: {type: string}}}
                      p60: {type: object, properties: {v: {type: string}}}
                      p61: {type: object, properties: {v: {type: string}}}
                      p62: {type: object, properties: {v: {type: string}}}
                      p63: {type: object, properties: {v: {type: string}}}
                      p64: {type: object, properties: {v: {type: string}}}
                      p65: {type: object, properties: {v: {type: string}}}
                      p66: {type: object, properties: {v: {type: string}}}
                      p67: {type: object, properties: {v: {type: string}}}
                      p68: {type: object, properties: {v: {type: string}}}
                      p69: {type: object, properties: {v: {type: string}}}
                      p70: {type: object, properties: {v: {type: string}}}
                      p71: {type: object, properties: {v: {type: string}}}
                      p72: {type: object, properties: {v: {type: string}}}
                      p73: {type: object, properties: {v: {type: string}}}
                      p74: {type: object, properties: {v: {type: string}}}
                      p75: {type: object, properties: {v: {type: string}}}
                      p76: {type: object, properties: {v: {type: string}}}
                      p77: {type: object, properties: {v: {type: string}}}
                      p78: {type: object, properties: {v: {type: string}}}
                      p79: {type: object, properties: {v: {type: string}}}
                      p80: {type: object, properties: {v: {type: string}}}
                      p81: {type: object, properties: {v: {type: string}}}
                      p82: {type: object, properties: {v: {type: string}}}
                      p83: {type: object, properties: {v: {type: string}}}
                      p84: {type: object, properties: {v: {type: string}}}
                      p85: {type: object, properties: {v: {type: string}}}
                      p86: {type: object, properties: {v: {type: string}}}
                      p87: {type: object, properties: {v: {type: string}}}
                      p88: {type: object, properties: {v: {type: string}}}
                      p89: {type: object, properties: {v: {type: string}}}
                      p90: {type: object, properties: {v: {type: string}}}
                      p91: {type: object, properties: {v: {type: string}}}
                      p92: {type: object, properties: {v: {type: string}}}
                      p93: {type: object, properties: {v: {type: string}}}
                      p94: {type: object, properties: {v: {type: string}}}
                      p95: {type: object, properties: {v: {type: string}}}
                      p96: {type: object, properties: {v: {type: string}}}
                      p97: {type: object, properties: {v: {type: string}}}
                      p98: {type: object, properties: {v: {type: string}}}
                      p99: {type: object, properties: {v: {type: string}}}
                      p100: {type: object, properties: {v: {type: string}}}
                      p101: {type: object, properties: {v: {type: string}}}
                      p102: {type: object, properties: {v: {type: string}}}
                      p103: {type: object, properties: {v: {type: string}}}
                      p104: {type: object, properties: {v: {type: string}}}
                      p105: {type: object, properties: {v: {type: string}}}
                      p106: {type: object, properties: {v: {type: string}}}
                      p107: {type: object, properties: {v: {type: string}}}
                      p108: {type: object, properties: {v: {type: string}}}
                      p109: {type: object, properties: {v: {type: string}}}
                      p110: {type: object, properties: {v: {type: string}}}
                      p111: {type: object, properties: {v: {type: string}}}
                      p112: {type: object, properties: {v: {type: string}}}
                      p113: {type: object, properties: {v: {type: string}}}
                      p114: {type: object, properties: {v: {type: string}}}
                      p115: {type: object, properties: {v: {type: string}}}
                      p116: {type: object, properties: {v: {type: string}}}
                      p117: {type: object, properties: {v: {type: string}}}
                      p118: {type: object, properties: {v: {type: string}}}
                      p119: {type: object, properties: {v: {type: string}}}
            responses: {"200": {description: ok}}
      """
    When the gateway starts
    Then the gateway lists the tools:
      | submitForm |
    And somewhere in the input schema of "submitForm", the property "p119" has "/properties/v/type" equal to "string"
    And somewhere in the input schema of "submitForm", the property "p0" has "/properties/v/type" equal to "string"

  @TC-LOAD-002
  Scenario: Boolean schemas of OpenAPI 3.1 load: true takes anything, false nothing
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Flags, version: "1"}
      paths:
        /flags:
          get:
            operationId: findFlags
            parameters:
              - {name: anything, in: query, schema: true}
              - name: filter
                in: query
                schema:
                  type: object
                  properties:
                    open: true
                    retired: false
                  additionalProperties: false
            responses: {"200": {description: ok}}
      """
    When the gateway starts
    Then the gateway lists the tools:
      | findFlags |
    And in the input schema of "findFlags", the schema at "/properties/anything" accepts anything
    And in the input schema of "findFlags", the schema at "/properties/filter/properties/open" accepts anything
    And in the input schema of "findFlags", the schema at "/properties/filter/properties/retired" accepts nothing

  @TC-LOAD-008 @recommended
  Scenario: A split document: references to files in its folder tree are resolved
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      servers: [{url: "{{base_url}}"}]
      paths:
        /pets:
          $ref: "paths/pets.yaml"
      """
    And beside the document, the file "paths/pets.yaml":
      """
      get:
        operationId: listPets
        parameters:
          - $ref: "../parameters.yaml#/Limit"
        responses: {"200": {description: ok}}
      post:
        operationId: addPet
        requestBody:
          required: true
          content:
            application/json:
              schema: {$ref: "../schemas/NewPet.yaml"}
        responses: {"201": {description: created}}
      """
    And beside the document, the file "parameters.yaml":
      """
      Limit: {name: limit, in: query, schema: {type: integer, maximum: 50}}
      """
    And beside the document, the file "schemas/NewPet.yaml":
      """
      type: object
      required: [name]
      properties:
        name: {type: string, maxLength: 20}
        owner: {$ref: "Owner.json"}
      """
    And beside the document, the file "schemas/Owner.json":
      """
      {"type": "object", "required": ["email"], "properties": {"email": {"type": "string", "format": "email"}}}
      """
    When the gateway starts
    Then the gateway lists the tools:
      | listPets |
      | addPet   |
    And the tool "listPets" takes the arguments:
      | limit |
    And somewhere in the input schema of "addPet", the property "name" has "/maxLength" equal to 20
    When the client calls "addPet" with {"body": {"owner": {}}}
    Then the call is refused at each of:
      | /body/name        |
      | /body/owner/email |

  @TC-LOAD-008 @recommended
  Scenario: A file outside the document's folder tree is never read
    Were the file read, listPets would take "outsideMarker7f3a", a name no
    gateway gives an argument of its own. Refusing the document keeps the rule
    (the reference does); so does leaving it unresolved, which breaks TC-LOAD-006.
    Given the OpenAPI document is in the folder "api"
    And the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - $ref: "../secret.yaml#/Limit"
            responses: {"200": {description: ok}}
      """
    And beside the document, the file "../secret.yaml":
      """
      Limit: {name: outsideMarker7f3a, in: query, schema: {type: integer}}
      """
    When the gateway loads the document, whether it accepts it or not
    Then unless the gateway refused the document, the tool "listPets" does not take the argument "outsideMarker7f3a"

  @TC-LOAD-008 @recommended
  Scenario: A split document: an operation given by reference is read from its file
    Each operation here is a `$ref` to a file of its own, as in DigitalOcean's
    split document. It is read like a path item from another file: its
    references are relative to that file, the path item's parameters apply,
    and it is named, given arguments and left out when deprecated like any
    other operation.
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      servers: [{url: "{{base_url}}"}]
      paths:
        /pets:
          parameters:
            - {name: tag, in: query, schema: {type: string}}
          get:
            $ref: "resources/pets/pets_list.yml"
          post:
            $ref: "resources/pets/pets_create.yml"
          delete:
            $ref: "resources/pets/pets_clear.yml"
      """
    And beside the document, the file "resources/pets/pets_list.yml":
      """
      operationId: listPets
      parameters:
        - {name: limit, in: query, schema: {type: integer, maximum: 50}}
      responses: {"200": {description: ok}}
      """
    And beside the document, the file "resources/pets/pets_create.yml":
      """
      operationId: addPet
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "models/pet_new.yml"}
      responses: {"201": {description: created}}
      """
    And beside the document, the file "resources/pets/models/pet_new.yml":
      """
      type: object
      required: [name]
      properties:
        name: {type: string, maxLength: 20}
      """
    And beside the document, the file "resources/pets/pets_clear.yml":
      """
      operationId: clearPets
      deprecated: true
      responses: {"204": {description: cleared}}
      """
    When the gateway starts
    Then the gateway lists the tools:
      | listPets |
      | addPet   |
    And the tool "listPets" takes the arguments:
      | tag   |
      | limit |
    And somewhere in the input schema of "addPet", the property "name" has "/maxLength" equal to 20
    When the client calls "addPet" with {"body": {}}
    Then the call is refused at each of:
      | /body/name |
