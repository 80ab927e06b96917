Feature: Arguments
  Each parameter becomes an argument of the same name, required when the
  parameter is. When two would share a name, each of them is prefixed with
  its location. The request body is the argument "body". Cookies, and
  headers an argument may never set, are not arguments at all.

  @TC-ARG-001
  Scenario: Parameters become arguments of the same name, required when they are
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /stores/{storeId}/pets:
          get:
            operationId: findPets
            parameters:
              - {name: storeId, in: path, required: true, schema: {type: string}}
              - {name: status, in: query, required: true, schema: {type: string, enum: [available, sold]}}
              - {name: limit, in: query, schema: {type: integer}}
              - {name: X-Client-Version, in: header, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    Then the tool "findPets" has the arguments:
      | argument         | required |
      | storeId          | yes      |
      | status           | yes      |
      | limit            | no       |
      | X-Client-Version | no       |
    And in the input schema of "findPets", "/properties/status/enum" is ["available", "sold"]
    And in the input schema of "findPets", "/properties/limit/type" is "integer"

  @TC-ARG-002
  Scenario: Clashing names across path, query and header are all prefixed with their location
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Clash, version: "1"}
      paths:
        /items/{id}:
          get:
            operationId: getItem
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
              - {name: id, in: query, schema: {type: integer}}
              - {name: id, in: header, schema: {type: string}}
              - {name: verbose, in: query, schema: {type: boolean}}
            responses: {"200": {description: ok}}
        /orders/{ref}:
          get:
            operationId: getOrder
            parameters:
              - {name: ref, in: path, required: true, schema: {type: string}}
              - {name: ref, in: query, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    Then the tool "getItem" has the arguments:
      | argument  | required |
      | path_id   | yes      |
      | query_id  | no       |
      | header_id | no       |
      | verbose   | no       |
    And in the input schema of "getItem", "/properties/query_id/type" is "integer"
    And the tool "getOrder" has the arguments:
      | argument  | required |
      | path_ref  | yes      |
      | query_ref | yes      |

  @TC-ARG-002
  Scenario: Clashing path and query arguments each go to their own place
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{id}:
          get:
            operationId: getPet
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
              - {name: id, in: query, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "getPet" with {"path_id": "p7", "query_id": "q9"}
    Then the request's raw path is "/pets/p7"
    And the request's query parameter "id" is "q9"

  @TC-ARG-003
  Scenario: The request body is the argument body, required exactly when the body is
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          post:
            operationId: createPet
            requestBody:
              required: true
              content:
                application/json:
                  schema: {type: object, properties: {name: {type: string}}}
            responses: {"201": {description: created}}
          put:
            operationId: replacePets
            requestBody:
              content:
                application/json:
                  schema: {type: array, items: {type: string}}
            responses: {"200": {description: ok}}
          patch:
            operationId: touchPets
            requestBody:
              required: false
              content:
                application/json:
                  schema: {type: object}
            responses: {"200": {description: ok}}
      """
    Then the tool "createPet" has the arguments:
      | argument | required |
      | body     | yes      |
    And in the input schema of "createPet", "/properties/body/properties/name/type" is "string"
    And the tool "replacePets" has the arguments:
      | argument | required |
      | body     | no       |
    And in the input schema of "replacePets", "/properties/body/items/type" is "string"
    And the tool "touchPets" has the arguments:
      | argument | required |
      | body     | no       |

  @TC-ARG-004
  Scenario: A parameter called body makes way for the request body
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Notes, version: "1"}
      paths:
        /notes:
          post:
            operationId: addNote
            parameters:
              - {name: body, in: query, required: true, schema: {type: string}}
            requestBody:
              content:
                application/json:
                  schema: {type: object}
            responses: {"201": {description: created}}
          get:
            operationId: findNotes
            parameters:
              - {name: body, in: query, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    Then the tool "addNote" has the arguments:
      | argument   | required |
      | query_body | yes      |
      | body       | no       |
    And in the input schema of "addNote", "/properties/body/type" is "object"
    And the tool "findNotes" has the arguments:
      | argument | required |
      | body     | no       |

  @TC-ARG-005
  Scenario: Cookie parameters are not arguments
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: session, in: cookie, required: true, schema: {type: string}}
              - {name: theme, in: cookie, schema: {type: string}}
              - {name: q, in: query, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    Then the tool "listPets" has no argument for the cookie "session"
    And the tool "listPets" has no argument for the cookie "theme"
    And the tool "listPets" has an argument for the query parameter "q", which TC-ARG-001 requires

  # One document serves every example, an operation per header, so one
  # gateway launch covers them all. The tools are numbered (listThings-N): names
  # made from the headers would differ only in case, and a gateway that
  # folds or shortens names would call one header's tool for another.
  @TC-ARG-006
  Scenario Outline: A header argument may never set is not an argument: <header>
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Headers, version: "1"}
      paths:
        /things/1: {get: {operationId: listThings-1, parameters: [{name: "Authorization", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/2: {get: {operationId: listThings-2, parameters: [{name: "Proxy-Authorization", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/3: {get: {operationId: listThings-3, parameters: [{name: "Cookie", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/4: {get: {operationId: listThings-4, parameters: [{name: "Set-Cookie", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/5: {get: {operationId: listThings-5, parameters: [{name: "Host", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/6: {get: {operationId: listThings-6, parameters: [{name: "Content-Length", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/7: {get: {operationId: listThings-7, parameters: [{name: "Content-Type", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/8: {get: {operationId: listThings-8, parameters: [{name: "Accept", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/9: {get: {operationId: listThings-9, parameters: [{name: "Accept-Encoding", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/10: {get: {operationId: listThings-10, parameters: [{name: "Connection", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/11: {get: {operationId: listThings-11, parameters: [{name: "Transfer-Encoding", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/12: {get: {operationId: listThings-12, parameters: [{name: "X-Api-Key", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/13: {get: {operationId: listThings-13, parameters: [{name: "Api-Key", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/14: {get: {operationId: listThings-14, parameters: [{name: "X-Forwarded-For", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/15: {get: {operationId: listThings-15, parameters: [{name: "Forwarded", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/16: {get: {operationId: listThings-16, parameters: [{name: "X-Request-Id", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/17: {get: {operationId: listThings-17, parameters: [{name: "Traceparent", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/18: {get: {operationId: listThings-18, parameters: [{name: "Tracestate", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/19: {get: {operationId: listThings-19, parameters: [{name: "User-Agent", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/20: {get: {operationId: listThings-20, parameters: [{name: "X-Real-Ip", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/21: {get: {operationId: listThings-21, parameters: [{name: "X-Payment", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/22: {get: {operationId: listThings-22, parameters: [{name: "authorization", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/23: {get: {operationId: listThings-23, parameters: [{name: "AUTHORIZATION", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/24: {get: {operationId: listThings-24, parameters: [{name: "x-api-key", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/25: {get: {operationId: listThings-25, parameters: [{name: "cOOKIE", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/26: {get: {operationId: listThings-26, parameters: [{name: "x-real-IP", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/27: {get: {operationId: listThings-27, parameters: [{name: "X-Agentify-Operation", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/28: {get: {operationId: listThings-28, parameters: [{name: "x-agentify-anything", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/29: {get: {operationId: listThings-29, parameters: [{name: "Mcp-Session-Id", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/30: {get: {operationId: listThings-30, parameters: [{name: "MCP-Protocol-Version", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/31: {get: {operationId: listThings-31, parameters: [{name: "Payment-Signature", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /things/32: {get: {operationId: listThings-32, parameters: [{name: "payment-required", in: header, required: true, schema: {type: string}}, {name: X-Client-Version, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
      """
    Then the tool "listThings-<n>" has no argument for the header "<header>"
    And the tool "listThings-<n>" has an argument for the header "X-Client-Version", which TC-ARG-001 requires

    Examples: the denied list
      | header                | n  |
      | Authorization         | 1  |
      | Proxy-Authorization   | 2  |
      | Cookie                | 3  |
      | Set-Cookie            | 4  |
      | Host                  | 5  |
      | Content-Length        | 6  |
      | Content-Type          | 7  |
      | Accept                | 8  |
      | Accept-Encoding       | 9  |
      | Connection            | 10 |
      | Transfer-Encoding     | 11 |
      | X-Api-Key             | 12 |
      | Api-Key               | 13 |
      | X-Forwarded-For       | 14 |
      | Forwarded             | 15 |
      | X-Request-Id          | 16 |
      | Traceparent           | 17 |
      | Tracestate            | 18 |
      | User-Agent            | 19 |
      | X-Real-Ip             | 20 |
      | X-Payment             | 21 |

    Examples: whatever the case
      | header                | n  |
      | authorization         | 22 |
      | AUTHORIZATION         | 23 |
      | x-api-key             | 24 |
      | cOOKIE                | 25 |
      | x-real-IP             | 26 |

    Examples: the denied prefixes
      | header                | n  |
      | X-Agentify-Operation  | 27 |
      | x-agentify-anything   | 28 |
      | Mcp-Session-Id        | 29 |
      | MCP-Protocol-Version  | 30 |
      | Payment-Signature     | 31 |
      | payment-required      | 32 |

  @TC-ARG-007 @recommended
  Scenario: A parameter's description travels with its argument
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - name: limit
                in: query
                description: How many pets to return at most.
                schema: {type: integer}
              - name: tag
                in: query
                description: Only pets with this tag.
                schema: {type: string, description: A tag as the shop writes it.}
            responses: {"200": {description: ok}}
      """
    Then in the input schema of "listPets", "/properties/limit/description" is "How many pets to return at most."
    And in the input schema of "listPets", "/properties/tag/description" is "A tag as the shop writes it."
