Feature: Input schemas
  A tool's input schema is a self-contained JSON Schema 2020-12 object that
  allows no other properties: schemas the document references travel inside
  it, and OpenAPI 3.0's own forms are translated. Tools declare no output
  schema, since their answers come back as text.

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
          post:
            operationId: createTeam
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Team"}
            responses: {"201": {description: created}}
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
    Then the input schema of "createTeam" is self-contained
    And in the input schema of "createTeam", "/properties/body/required" is ["name"]
    And in the input schema of "createTeam", "/properties/body/properties/lead/properties/email/format" is "email"
    And in the input schema of "createTeam", "/properties/body/properties/lead/properties/manager/properties/manager/properties/email/type" is "string"
    And in the input schema of "createTeam", "/properties/body/properties/subteams/items/properties/subteams/items/properties/name/type" is "string"

  @TC-SCHEMA-003
  Scenario: nullable admits null alongside the type
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: createPet
            parameters:
              - {name: tag, in: query, schema: {type: string, nullable: true}}
            requestBody:
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Pet"}
            responses: {"201": {description: created}}
      components:
        schemas:
          Pet:
            type: object
            properties:
              age: {type: integer, nullable: true}
              name: {type: string}
      """
    Then in the input schema of "createPet", the type at "/properties/tag/type" is "string" or null
    And in the input schema of "createPet", the type at "/properties/body/properties/age/type" is "integer" or null
    And in the input schema of "createPet", "/properties/body/properties/name/type" is "string"
    And in the input schema of "createPet", "/properties/tag/nullable" is absent

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
