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
    Then the tool "listPets" takes the arguments:
      | q |

  @TC-ARG-006
  Scenario Outline: A header argument may never set is not an argument: <header>
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Headers, version: "1"}
      paths:
        /things:
          get:
            operationId: listThings
            parameters:
              - {name: "<header>", in: header, required: true, schema: {type: string}}
              - {name: X-Client-Version, in: header, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    Then the tool "listThings" has no argument for the header "<header>"
    And the tool "listThings" has an argument for the header "X-Client-Version", which TC-ARG-001 requires

    Examples: the denied list
      | header              |
      | Authorization       |
      | Proxy-Authorization |
      | Cookie              |
      | Set-Cookie          |
      | Host                |
      | Content-Length      |
      | Content-Type        |
      | Accept              |
      | Accept-Encoding     |
      | Connection          |
      | Transfer-Encoding   |
      | X-Api-Key           |
      | Api-Key             |
      | X-Forwarded-For     |
      | Forwarded           |
      | X-Request-Id        |
      | Traceparent         |
      | Tracestate          |
      | User-Agent          |
      | X-Real-Ip           |
      | X-Payment           |

    Examples: whatever the case
      | header        |
      | authorization |
      | AUTHORIZATION |
      | x-api-key     |
      | cOOKIE        |
      | x-real-IP     |

    Examples: the denied prefixes
      | header                |
      | X-Agentify-Operation  |
      | x-agentify-anything   |
      | Mcp-Session-Id        |
      | MCP-Protocol-Version  |
      | Payment-Signature     |
      | payment-required      |

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
    Then the tool "listPets" has "/inputSchema/properties/limit/description" equal to "How many pets to return at most."
    And the tool "listPets" has "/inputSchema/properties/tag/description" equal to "A tag as the shop writes it."
