Feature: Input schemas
  A tool's input schema is a self-contained JSON Schema 2020-12 object that
  allows no other properties: schemas the document references travel inside
  it, and OpenAPI 3.0's own forms are translated. Tools declare no output
  schema, since their answers come back as text.

  How a gateway names the schemas it carries in `$defs` is its own choice:
  the pointers below follow each `$ref` they meet, so they hold whether a
  schema is referenced or written out in place. Numbers compare as JSON
  Schema compares them: `0` and `0.0` are equal.

  @TC-SCHEMA-001
  Scenario: The input schema is an object that admits no other properties
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
        /health:
          get:
            operationId: health
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "listPets", "/type" is "object"
    And in the input schema of "listPets", "/additionalProperties" is false
    And in the input schema of "health", "/type" is "object"
    And in the input schema of "health", "/additionalProperties" is false

  @TC-SCHEMA-002
  Scenario: Referenced schemas travel with the tool, nested and recursive ones too
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Org, version: "1"}
      paths:
        /teams:
          get:
            operationId: findTeams
            parameters:
              - {name: team, in: query, schema: {$ref: "#/components/schemas/Team"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Team:
            type: object
            required: [name]
            properties:
              name: {type: string}
              lead: {$ref: "#/components/schemas/Person"}
              subteams:
                type: array
                items: {$ref: "#/components/schemas/Team"}
          Person:
            type: object
            properties:
              email: {type: string, format: email}
              manager: {$ref: "#/components/schemas/Person"}
      """
    Then the input schema of "findTeams" is self-contained
    And in the input schema of "findTeams", "/properties/team/required" is ["name"]
    And in the input schema of "findTeams", "/properties/team/properties/lead/properties/email/format" is "email"
    And in the input schema of "findTeams", "/properties/team/properties/lead/properties/manager/properties/manager/properties/email/type" is "string"
    And in the input schema of "findTeams", "/properties/team/properties/subteams/items/properties/subteams/items/properties/name/type" is "string"

  @TC-SCHEMA-003
  Scenario: nullable admits null alongside the type
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - {name: tag, in: query, schema: {type: string, nullable: true}}
              - {name: pet, in: query, schema: {$ref: "#/components/schemas/Pet"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Pet:
            type: object
            properties:
              age: {type: integer, nullable: true}
              name: {type: string}
      """
    Then in the input schema of "findPets", the type at "/properties/tag/type" is "string" or null
    And in the input schema of "findPets", the type at "/properties/pet/properties/age/type" is "integer" or null
    And in the input schema of "findPets", "/properties/pet/properties/name/type" is "string"
    And in the input schema of "findPets", "/properties/pet/type" is "object"
    And in the input schema of "findPets", "/properties/tag/nullable" is absent

  @TC-SCHEMA-003
  Scenario: nullable admits null beside what the schema admitted, and nothing else
    Judged as a client's validator reads the published schema, whatever
    form the gateway gave it.
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      owner: {$ref: "#/components/schemas/Owner"}
                      either: {nullable: true, oneOf: [{$ref: "#/components/schemas/Pet"}, {type: string}]}
                      any: {nullable: true, anyOf: [{type: string}, {type: integer}]}
                      pet: {$ref: "#/components/schemas/Pet", nullable: true}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Owner: {type: object, required: [name], properties: {name: {type: string}}}
          Pet: {type: object, required: [kind], properties: {kind: {type: string}}}
      """
    Then the input schema of "addPet" admits {"body": {"owner": {"name": "Ada"}, "either": null, "any": null, "pet": null}}
    And the input schema of "addPet" admits {"body": {"either": "cat", "any": 3, "pet": {"kind": "cat"}}}
    And the input schema of "addPet" does not admit {"body": {"owner": {}}}
    And the input schema of "addPet" does not admit {"body": {"either": 5}}
    And the input schema of "addPet" does not admit {"body": {"any": true}}
    And the input schema of "addPet" does not admit {"body": {"pet": {}}}

  @TC-SCHEMA-003
  Scenario: nullable on an enum that already lists null adds no second null
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: kind, in: query, schema: {type: string, enum: [cat, null], nullable: true}}
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "listPets", "/properties/kind/enum" is ["cat", null]
    And in the input schema of "listPets", the type at "/properties/kind/type" is "string" or null

  @TC-SCHEMA-002
  Scenario: A type list that names a type twice names it once
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: size, in: query, schema: {type: [integer, integer, "null", integer]}}
            responses: {"200": {description: ok}}
      """
    Then the input schema of "listPets" is self-contained
    And in the input schema of "listPets", the type at "/properties/size/type" is "integer" or null

  @TC-SCHEMA-003
  Scenario: nullable lets null into an enum too
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: kind, in: query, schema: {type: string, enum: [cat, dog], nullable: true}}
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "listPets", "/properties/kind/enum" is ["cat", "dog", null]
    And in the input schema of "listPets", the type at "/properties/kind/type" is "string" or null

  @TC-SCHEMA-002
  Scenario: References inside every kind of subschema are carried along
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Shapes, version: "1"}
      paths:
        /shapes:
          get:
            operationId: drawShape
            parameters:
              - name: shape
                in: query
                schema:
                  type: object
                  properties:
                    either: {anyOf: [{$ref: "#/components/schemas/Circle"}, {$ref: "#/components/schemas/Square"}]}
                    one: {oneOf: [{$ref: "#/components/schemas/Circle"}]}
                    all: {allOf: [{$ref: "#/components/schemas/Square"}]}
                    list: {type: array, items: {$ref: "#/components/schemas/Circle"}}
                    byName: {type: object, additionalProperties: {$ref: "#/components/schemas/Square"}}
                    notCircle: {not: {$ref: "#/components/schemas/Circle"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Circle: {type: object, properties: {radius: {type: number}}}
          Square: {type: object, properties: {side: {type: number}}}
      """
    Then the input schema of "drawShape" is self-contained
    And in the input schema of "drawShape", "/properties/shape/properties/either/anyOf/0/properties/radius/type" is "number"
    And in the input schema of "drawShape", "/properties/shape/properties/either/anyOf/1/properties/side/type" is "number"
    And in the input schema of "drawShape", "/properties/shape/properties/one/oneOf/0/properties/radius/type" is "number"
    # An allOf of one schema may be merged into its place: what it admits tells.
    And the input schema of "drawShape" admits {"shape": {"all": {"side": 2}}}
    And the input schema of "drawShape" does not admit {"shape": {"all": {"side": "wide"}}}
    And in the input schema of "drawShape", "/properties/shape/properties/list/items/properties/radius/type" is "number"
    And in the input schema of "drawShape", "/properties/shape/properties/byName/additionalProperties/properties/side/type" is "number"
    And in the input schema of "drawShape", "/properties/shape/properties/notCircle/not/properties/radius/type" is "number"

  @TC-SCHEMA-002
  Scenario: Schemas whose names read alike stay apart in $defs
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Versions, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - {name: a, in: query, schema: {$ref: "#/components/schemas/Pet_v1"}}
              - {name: b, in: query, schema: {$ref: "#/components/schemas/Pet v1"}}
              - {name: c, in: query, schema: {$ref: "#/components/schemas/Pet+v1"}}
              - {name: d, in: query, schema: {$ref: "#/components/schemas/Pet:v1"}}
              - {name: e, in: query, schema: {$ref: "#/components/schemas/Pet@v1"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Pet_v1: {type: object, required: [a]}
          Pet v1: {type: object, required: [b]}
          Pet+v1: {type: object, required: [c]}
          Pet:v1: {type: object, required: [d]}
          Pet@v1: {type: object, required: [e]}
      """
    Then the input schema of "findPets" is self-contained
    And in the input schema of "findPets", "/properties/a/required" is ["a"]
    And in the input schema of "findPets", "/properties/b/required" is ["b"]
    And in the input schema of "findPets", "/properties/c/required" is ["c"]
    And in the input schema of "findPets", "/properties/d/required" is ["d"]
    And in the input schema of "findPets", "/properties/e/required" is ["e"]

  @TC-SCHEMA-002
  Scenario: Schemas that are only references to each other do not make a loop
    Two schemas that are nothing but a `$ref` to each other describe no
    value. A gateway may refuse the document for it, or take them as
    constraining nothing, but must not publish the loop: a client's
    validator would follow it for ever.
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - {name: filter, in: query, schema: {$ref: "#/components/schemas/Filter"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Filter: {$ref: "#/components/schemas/Query"}
          Query: {$ref: "#/components/schemas/Filter"}
      """
    When the gateway loads the document, whether it accepts it or not
    Then unless the gateway refused the document, the input schema of "findPets" admits {"filter": "cats"}

  @TC-SCHEMA-002
  Scenario: The older tuple form of items becomes prefixItems
    A document whose schemas follow an older draft writes a tuple as a list
    under `items`, and the items after it under `additionalItems`; 2020-12
    says the same with `prefixItems` and `items`. Beside a single `items`
    schema, `additionalItems` meant nothing, and must not take its place.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Maps, version: "1"}
      jsonSchemaDialect: "http://json-schema.org/draft-07/schema#"
      paths:
        /places:
          get:
            operationId: findPlaces
            parameters:
              - name: point
                in: query
                schema: {type: array, items: [{type: number}, {type: string}], additionalItems: false}
              - name: tags
                in: query
                schema: {type: array, items: {type: string}, additionalItems: false}
            responses: {"200": {description: ok}}
      """
    Then the input schema of "findPlaces" is self-contained
    And in the input schema of "findPlaces", "/properties/point/prefixItems/0/type" is "number"
    And in the input schema of "findPlaces", "/properties/point/prefixItems/1/type" is "string"
    And in the input schema of "findPlaces", "/properties/point/items" is false
    And in the input schema of "findPlaces", "/properties/tags/items/type" is "string"

  @TC-SCHEMA-006 @recommended
  Scenario: The input schema speaks JSON Schema only
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - name: pet
                in: query
                schema:
                  type: object
                  x-internal-owner: pets-team
                  discriminator: {propertyName: kind}
                  xml: {name: pet}
                  externalDocs: {url: "https://example.com/pets"}
                  properties:
                    kind: {type: string, example: cat}
                    name: {type: string, examples: [Rex], example: Tom}
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "findPets", "/properties/pet/x-internal-owner" is absent
    And in the input schema of "findPets", "/properties/pet/discriminator" is absent
    And in the input schema of "findPets", "/properties/pet/xml" is absent
    And in the input schema of "findPets", "/properties/pet/externalDocs" is absent
    And in the input schema of "findPets", "/properties/pet/properties/kind/example" is absent
    And in the input schema of "findPets", "/properties/pet/properties/kind/examples" is ["cat"]
    And in the input schema of "findPets", "/properties/pet/properties/name/examples" is ["Rex"]

  @TC-SCHEMA-004
  Scenario: Boolean exclusive bounds become numeric ones
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Ranges, version: "1"}
      paths:
        /readings:
          get:
            operationId: findReadings
            parameters:
              - {name: above, in: query, schema: {type: number, minimum: 0, exclusiveMinimum: true}}
              - {name: below, in: query, schema: {type: number, maximum: 100, exclusiveMaximum: true}}
              - {name: atLeast, in: query, schema: {type: integer, minimum: 1, exclusiveMinimum: false}}
              - {name: atMost, in: query, schema: {type: integer, maximum: 9, exclusiveMaximum: false}}
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "findReadings", "/properties/above/exclusiveMinimum" is 0
    And in the input schema of "findReadings", "/properties/above/minimum" is absent
    And in the input schema of "findReadings", "/properties/below/exclusiveMaximum" is 100
    And in the input schema of "findReadings", "/properties/below/maximum" is absent
    And in the input schema of "findReadings", "/properties/atLeast/minimum" is 1
    And in the input schema of "findReadings", "/properties/atLeast/exclusiveMinimum" is absent
    And in the input schema of "findReadings", "/properties/atMost/maximum" is 9
    And in the input schema of "findReadings", "/properties/atMost/exclusiveMaximum" is absent

  @TC-SCHEMA-005
  Scenario: Tools declare no output schema, even when responses have schemas
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses:
              "200":
                description: ok
                content:
                  application/json:
                    schema: {type: array, items: {type: object, properties: {name: {type: string}}}}
      """
    Then no tool has an output schema

  @TC-SCHEMA-003
  Scenario Outline: nullable beside a $ref or an allOf admits null: <case>
    A gateway may publish such a schema as an anyOf of the reference and
    null, which the check leaves alone, so only what must pass is judged
    here (refusing a wrong type is TC-CHECK-001's matter): the published
    schema admits the value, as a client's validator reads it, and the
    value goes through, a null as a null.
    Given the upstream answers every request with status 200
    And the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      beside: {$ref: "#/components/schemas/Pet", nullable: true}
                      wrapped: {nullable: true, allOf: [{$ref: "#/components/schemas/Pet"}]}
                      either: {nullable: true, oneOf: [{$ref: "#/components/schemas/Pet"}, {type: string}]}
                      plain: {$ref: "#/components/schemas/Pet"}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Pet: {type: object, properties: {name: {type: string}}}
      """
    Then the input schema of "addPet" admits {"body": {"<property>": <value>}}
    When the client calls "addPet" with <value> placed at "/body/<property>"
    Then the request's body holds <value> at "/<property>"

    Examples:
      | case                    | property | value           |
      | null beside a $ref      | beside   | null            |
      | null beside an allOf    | wrapped  | null            |
      | null beside a oneOf     | either   | null            |
      | a pet beside a $ref     | beside   | {"name": "Rex"} |

  @TC-SCHEMA-007
  Scenario: readOnly properties leave the request body, not a parameter
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            parameters:
              - {name: like, in: query, schema: {$ref: "#/components/schemas/Pet"}}
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Pet"}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Pet:
            type: object
            required: [id, name, secret]
            properties:
              id: {type: integer, readOnly: true}
              name: {type: string}
              secret: {type: string, writeOnly: true}
              tags:
                type: array
                items:
                  type: object
                  required: [id, label]
                  properties: {id: {type: integer, readOnly: true}, label: {type: string}}
      """
    Then in the input schema of "addPet", "/properties/body/properties/id" is absent
    And in the input schema of "addPet", "/properties/body/required" is ["name", "secret"]
    And in the input schema of "addPet", "/properties/body/properties/secret/type" is "string"
    And in the input schema of "addPet", "/properties/body/properties/tags/items/required" is ["label"]
    And in the input schema of "addPet", "/properties/like/properties/id/type" is "integer"
    And in the input schema of "addPet", "/properties/like/required" is ["id", "name", "secret"]

  @TC-SCHEMA-007
  Scenario: A read-only property leaves the request body even when it is not required
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Pet"}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Pet:
            type: object
            properties:
              id: {type: integer, readOnly: true}
              name: {type: string}
            required: [name]
      """
    Then in the input schema of "addPet", "/properties/body/properties/id" is absent
    And in the input schema of "addPet", "/properties/body/properties/name/type" is "string"
    And in the input schema of "addPet", "/properties/body/required" is ["name"]

  @TC-SCHEMA-007
  Scenario: A read-only property is found through references and allOf
    `readOnly` may sit in the schema a property references, or in a schema
    the body's schema takes in through `allOf`; either way the property
    leaves the body and the `required` list of the schema that lists it.
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Pet"}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Base:
            type: object
            properties:
              id: {type: integer, readOnly: true}
              name: {type: string}
          Stamp: {type: string, format: date-time, readOnly: true}
          Pet:
            allOf: [{$ref: "#/components/schemas/Base"}]
            type: object
            properties:
              created: {$ref: "#/components/schemas/Stamp"}
              note: {type: string}
            required: [id, name, created, note]
      """
    Then in the input schema of "addPet", "/properties/body/required" is ["name", "note"]
    And in the input schema of "addPet", "/properties/body/properties/created" is absent
    And in the input schema of "addPet", "/properties/body/properties/note/type" is "string"
    And the input schema of "addPet" admits {"body": {"name": "Rex", "note": "calm"}}

  @TC-SCHEMA-007
  Scenario: A body without its read-only properties is sent
    Given the upstream answers every request with status 200
    And the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Pet"}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Pet:
            type: object
            required: [id, name]
            properties:
              id: {type: integer, readOnly: true}
              name: {type: string}
      """
    When the client calls "addPet" with {"body": {"name": "Rex"}}
    Then the call reached the upstream

  @TC-SCHEMA-008 @recommended
  Scenario: nullable in a 3.1 document admits null as in 3.0
    Given the upstream answers every request with status 200
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - {name: tag, in: query, schema: {type: string, nullable: true}}
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "findPets", the type at "/properties/tag/type" is "string" or null
    And in the input schema of "findPets", "/properties/tag/nullable" is absent
    When the client calls "findPets" with {"tag": null}
    Then the call reached the upstream

  @TC-SCHEMA-008 @recommended
  Scenario: nullable beside a $ref to the schema false admits null alone
    In 3.1 a schema may be `false`, which admits nothing; `nullable` beside
    a reference to it, or beside an allOf that holds it, leaves null, and a
    plain reference to it still admits nothing.
    Given the upstream answers every request with status 200
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      retired: {$ref: "#/components/schemas/Never", nullable: true}
                      gone: {allOf: [false], nullable: true}
                      never: {$ref: "#/components/schemas/Never"}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Never: false
      """
    When the client calls "addPet" with {"body": {"never": null}}
    Then the call is refused
    And nothing reached the upstream
    When the client calls "addPet" with {"body": {"retired": null}}
    Then the call reached the upstream
    And the input schema of "addPet" admits {"body": {"retired": null, "gone": null}}

  @TC-SCHEMA-008 @recommended
  Scenario: nullable beside a $ref and an allOf of one $ref keeps both references
    In 3.1 keywords may stand beside a `$ref`; with `nullable` there, null
    is admitted and neither referenced schema is lost.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      pet:
                        $ref: "#/components/schemas/Named"
                        allOf: [{$ref: "#/components/schemas/Aged"}]
                        nullable: true
            responses: {"200": {description: ok}}
      components:
        schemas:
          Named: {type: object, required: [name]}
          Aged: {type: object, required: [age]}
      """
    Then the input schema of "addPet" admits {"body": {"pet": null}}
    And the input schema of "addPet" admits {"body": {"pet": {"name": "Rex", "age": 3}}}
    And the input schema of "addPet" does not admit {"body": {"pet": {"age": 3}}}
    And the input schema of "addPet" does not admit {"body": {"pet": {"name": "Rex"}}}

  @TC-SCHEMA-008 @recommended
  Scenario: nullable in a 3.1 document widens a type list and a const
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - {name: size, in: query, schema: {type: [string, integer], nullable: true}}
              - {name: tag, in: query, schema: {type: [string, "null"], nullable: true}}
              - {name: kind, in: query, schema: {const: cat, nullable: true}}
            responses: {"200": {description: ok}}
      """
    Then the input schema of "findPets" is self-contained
    And the input schema of "findPets" admits {"size": null, "tag": null, "kind": null}
    And the input schema of "findPets" admits {"size": 3, "tag": "big", "kind": "cat"}
    And the input schema of "findPets" does not admit {"size": true}
    And the input schema of "findPets" does not admit {"kind": "dog"}
