Feature: Hints
  Every tool carries the three MCP hints as booleans. Reads (get, head,
  options) are read-only; delete, put and patch are destructive; every method
  but post and patch is idempotent.

  @TC-HINT-001
  Scenario: Every tool carries all three hints as booleans
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get: {operationId: listPets, responses: {"200": {description: ok}}}
          post: {operationId: createPet, responses: {"201": {description: created}}}
        /pets/{petId}:
          parameters: [{name: petId, in: path, required: true, schema: {type: string}}]
          delete: {operationId: deletePet, responses: {"204": {description: gone}}}
          patch: {operationId: updatePet, responses: {"200": {description: ok}}}
      """
    Then every tool has readOnlyHint, destructiveHint and idempotentHint as booleans

  @TC-HINT-002 @TC-HINT-003 @TC-HINT-004
  Scenario Outline: The hints of a <method> operation
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Hints, version: "1"}
      paths:
        /things:
          <method>:
            operationId: op
            responses: {"200": {description: ok}}
      """
    Then the tool "op" has readOnlyHint <readOnly>, destructiveHint <destructive> and idempotentHint <idempotent>

    Examples:
      | method  | readOnly | destructive | idempotent |
      | get     | true     | false       | true       |
      | put     | false    | true        | true       |
      | post    | false    | false       | false      |
      | delete  | false    | true        | true       |
      | options | true     | false       | true       |
      | head    | true     | false       | true       |
      | patch   | false    | true        | false      |
      | trace   | false    | false       | true       |
