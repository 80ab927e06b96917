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

  @TC-HINT-002
  Scenario: readOnlyHint is true for get, head and options, false for every other method
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Hints, version: "1"}
      paths:
        /things:
          get: {operationId: onGet, responses: {"200": {description: ok}}}
          put: {operationId: onPut, responses: {"200": {description: ok}}}
          post: {operationId: onPost, responses: {"200": {description: ok}}}
          delete: {operationId: onDelete, responses: {"200": {description: ok}}}
          options: {operationId: onOptions, responses: {"200": {description: ok}}}
          head: {operationId: onHead, responses: {"200": {description: ok}}}
          patch: {operationId: onPatch, responses: {"200": {description: ok}}}
          trace: {operationId: onTrace, responses: {"200": {description: ok}}}
      """
    Then the tools have readOnlyHint:
      | onGet     | true  |
      | onPut     | false |
      | onPost    | false |
      | onDelete  | false |
      | onOptions | true  |
      | onHead    | true  |
      | onPatch   | false |
      | onTrace   | false |

  @TC-HINT-003
  Scenario: destructiveHint is true for delete, put and patch, false for every other method
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Hints, version: "1"}
      paths:
        /things:
          get: {operationId: onGet, responses: {"200": {description: ok}}}
          put: {operationId: onPut, responses: {"200": {description: ok}}}
          post: {operationId: onPost, responses: {"200": {description: ok}}}
          delete: {operationId: onDelete, responses: {"200": {description: ok}}}
          options: {operationId: onOptions, responses: {"200": {description: ok}}}
          head: {operationId: onHead, responses: {"200": {description: ok}}}
          patch: {operationId: onPatch, responses: {"200": {description: ok}}}
          trace: {operationId: onTrace, responses: {"200": {description: ok}}}
      """
    Then the tools have destructiveHint:
      | onGet     | false |
      | onPut     | true  |
      | onPost    | false |
      | onDelete  | true  |
      | onOptions | false |
      | onHead    | false |
      | onPatch   | true  |
      | onTrace   | false |

  @TC-HINT-004
  Scenario: idempotentHint is false for post and patch, true for every other method
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Hints, version: "1"}
      paths:
        /things:
          get: {operationId: onGet, responses: {"200": {description: ok}}}
          put: {operationId: onPut, responses: {"200": {description: ok}}}
          post: {operationId: onPost, responses: {"200": {description: ok}}}
          delete: {operationId: onDelete, responses: {"200": {description: ok}}}
          options: {operationId: onOptions, responses: {"200": {description: ok}}}
          head: {operationId: onHead, responses: {"200": {description: ok}}}
          patch: {operationId: onPatch, responses: {"200": {description: ok}}}
          trace: {operationId: onTrace, responses: {"200": {description: ok}}}
      """
    Then the tools have idempotentHint:
      | onGet     | true  |
      | onPut     | true  |
      | onPost    | false |
      | onDelete  | true  |
      | onOptions | true  |
      | onHead    | true  |
      | onPatch   | false |
      | onTrace   | true  |
