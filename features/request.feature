Feature: The request
  A call becomes exactly one request to the configured base URL, built only
  from the tool, the arguments and the stored credential. Path arguments are
  encoded as single segments, query and header arguments go where the
  document puts them, the gateway adds its own identifying headers, and the
  credential goes on last so that no argument can replace it. Nothing of the
  agent's own MCP request is passed on.

  Paths are compared as they were on the wire, as RFC 3986 compares URIs:
  the hex digits of a `%XX` escape may be in either case, and an unreserved
  character (letters, digits, `-._~`) may come escaped (`%2E` for `.`).
  Query values are compared after decoding, as a form would decode them.

  @TC-REQ-001
  Scenario: One call sends one request to the base URL followed by the operation's path
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{petId}:
          get:
            operationId: getPet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/pets/42" with status 200 and the "application/json" body:
      """
      {"id": 42}
      """
    When the client calls "getPet" with {"petId": 42}
    Then the upstream received exactly one request: GET "/pets/42"
    And the request has no query

  @TC-REQ-001
  Scenario: A base URL with a path keeps it in front of the operation's path
    Given the API lives under the base path "/api/v1"
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{petId}/toys:
          post:
            operationId: addToy
            parameters:
              - {name: petId, in: path, required: true, schema: {type: string}}
            responses: {"201": {description: created}}
      """
    When the client calls "addToy" with {"petId": "rex"}
    Then the upstream received exactly one request: POST "/api/v1/pets/rex/toys"

  @TC-REQ-001
  Scenario: A base URL with a query of its own keeps it beside the arguments
    Some APIs take the same query on every request (an API version, say)
    and the operator puts it in the base URL: the request still goes to
    that URL, with the call's own query pairs added.
    Given the gateway's base URL has the path and query "/api/v1?api-version=2024-01"
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findPets" with {"limit": 5}
    Then the upstream received exactly one request: GET "/api/v1/pets"
    And the request's query is:
      | api-version | 2024-01 |
      | limit       | 5       |

  @TC-REQ-002
  Scenario Outline: A path argument is one encoded segment: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Files, version: "1"}
      paths:
        /files/{name}:
          get:
            operationId: getFile
            parameters:
              - {name: name, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "getFile" with {"name": "<value>"}
    Then the request's raw path is "/files/<on the wire>"

    Examples:
      | case                        | value       | on the wire                              |
      | a slash                     | a/b         | a%2Fb                                    |
      | a lone slash                | /           | %2F                                      |
      | a climb hidden in a value   | a/../b      | a%2F..%2Fb                               |
      | a dot and a slash           | ./x         | .%2Fx                                    |
      | three dots are a name       | ...         | ...                                      |
      | a space                     | a b         | a%20b                                    |
      | a percent sign              | 50%         | 50%25                                    |
      | an encoded slash            | %2F         | %252F                                    |
      | encoded dots                | %2e%2e      | %252e%252e                               |
      | query and fragment marks    | ?x=1#f      | %3Fx%3D1%23f                             |
      | sub-delimiters              | !$&'()*+,;= | %21%24%26%27%28%29%2A%2B%2C%3B%3D        |
      | colon and at sign           | a:b@c       | a%3Ab%40c                                |
      | brackets and braces         | [x]{y}      | %5Bx%5D%7By%7D                           |
      | unreserved characters       | a-b.c_d~e9  | a-b.c_d~e9                               |
      | a two-byte character        | é           | %C3%A9                                   |
      | three-byte characters       | 日本        | %E6%97%A5%E6%9C%AC                       |
      | a four-byte character       | 🐶          | %F0%9F%90%B6                             |

  @TC-REQ-002
  Scenario: Several path arguments are each encoded in their own segment
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Files, version: "1"}
      paths:
        /users/{user}/files/{name}:
          get:
            operationId: getUserFile
            parameters:
              - {name: user, in: path, required: true, schema: {type: string}}
              - {name: name, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "getUserFile" with {"user": "ada lovelace", "name": "notes/2024?.txt"}
    Then the request's raw path is "/users/ada%20lovelace/files/notes%2F2024%3F.txt"
    And the request has no query

  @TC-REQ-003
  Scenario Outline: A path argument of "<value>" is refused and nothing is sent
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Files, version: "1"}
      paths:
        /files/{name}/meta:
          get:
            operationId: getMeta
            parameters:
              - {name: name, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "getMeta" with {"name": "<value>"}
    Then nothing reached the upstream
    And the call is refused

    Examples:
      | value |
      | .     |
      | ..    |

  # One document serves every example, an operation per path, so a
  # gateway is started once for the outline.
  @TC-REQ-004
  Scenario Outline: A path that would climb out of the base URL's path is refused: <path>
    Given the API lives under the base path "/api/v1"
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Escape, version: "1"}
      paths:
        /../admin/{id}: {get: {operationId: climb-1, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /../../{id}: {get: {operationId: climb-2, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /reports/../../admin/{id}: {get: {operationId: climb-3, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /%2e%2e/admin/{id}: {get: {operationId: climb-4, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /%2E%2E/%2e%2e/{id}: {get: {operationId: climb-5, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /.%2e/admin/{id}: {get: {operationId: climb-6, parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {"200": {description: ok}}}}
      """
    When the client calls "climb-<n>" with {"id": "7"}
    Then nothing reached the upstream
    And the call is refused

    Examples:
      | path                      | n |
      | /../admin/{id}            | 1 |
      | /../../{id}               | 2 |
      | /reports/../../admin/{id} | 3 |
      | /%2e%2e/admin/{id}        | 4 |
      | /%2E%2E/%2e%2e/{id}       | 5 |
      | /.%2e/admin/{id}          | 6 |

  @TC-REQ-004
  Scenario: A path whose dot segments stay under the base URL's path is sent, resolved
    Given the API lives under the base path "/api/v1"
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Reports, version: "1"}
      paths:
        /reports/./../pets/{id}:
          get:
            operationId: pet
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "pet" with {"id": "7"}
    Then the request's raw path is "/api/v1/pets/7"

  @TC-REQ-005
  Scenario: Query arguments are form style, arrays exploded
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Search, version: "1"}
      paths:
        /search:
          get:
            operationId: search
            parameters:
              - {name: q, in: query, schema: {type: string}}
              - {name: tags, in: query, schema: {type: array, items: {type: string}}}
              - {name: limit, in: query, schema: {type: integer}}
              - {name: exact, in: query, schema: {type: boolean}}
              - {name: page, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "search" with {"q": "cats & dogs=1+1 é", "tags": ["black cat", "a&b", "z"], "limit": 10, "exact": true}
    Then the request's query is:
      | q     | cats & dogs=1+1 é |
      | tags  | black cat         |
      | tags  | a&b               |
      | tags  | z                 |
      | limit | 10                |
      | exact | true              |

  @TC-REQ-006
  Scenario: Header arguments are simple style
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Headers, version: "1"}
      paths:
        /report:
          get:
            operationId: report
            parameters:
              - {name: X-Trace, in: header, schema: {type: string}}
              - {name: X-Tags, in: header, schema: {type: array, items: {type: string}}}
              - {name: X-Count, in: header, schema: {type: integer}}
              - {name: X-Dry-Run, in: header, schema: {type: boolean}}
            responses: {"200": {description: ok}}
      """
    When the client calls "report" with {"X-Trace": "abc-123", "X-Tags": ["red", "blue"], "X-Count": 5, "X-Dry-Run": false}
    Then the request's header "X-Trace" is "abc-123"
    And the request's header "X-Tags" is "red,blue"
    And the request's header "X-Count" is "5"
    And the request's header "X-Dry-Run" is "false"

  @TC-REQ-007
  Scenario Outline: A header value with <character> is refused and nothing is sent
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Headers, version: "1"}
      paths:
        /report:
          get:
            operationId: report
            parameters:
              - {name: X-Trace, in: header, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "report" with {"X-Trace": "<value>"}
    Then the tool "report" has an argument for the header "X-Trace", which TC-ARG-001 requires
    And the call is refused
    And nothing reached the upstream

    Examples:
      | character | value                                |
      | CR LF     | abc\\u000d\\u000aX-Injected: MARKER |
      | a lone LF | abc\\u000aX-Injected: MARKER        |
      | a lone CR | abc\\u000dX-Injected: MARKER        |
      | NUL       | abc\\u0000MARKER                    |

  # One document serves every example, an operation per header, so one
  # gateway launch covers them all. The tools are numbered (report-N): names
  # made from the headers would differ only in case, and a gateway that
  # folds or shortens names would call one header's tool for another.
  @TC-REQ-008
  Scenario Outline: No argument can set the header <header>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Headers, version: "1"}
      paths:
        /report/1: {get: {operationId: report-1, parameters: [{name: "Authorization", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/2: {get: {operationId: report-2, parameters: [{name: "authorization", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/3: {get: {operationId: report-3, parameters: [{name: "AUTHORIZATION", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/4: {get: {operationId: report-4, parameters: [{name: "Proxy-Authorization", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/5: {get: {operationId: report-5, parameters: [{name: "Cookie", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/6: {get: {operationId: report-6, parameters: [{name: "cookie", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/7: {get: {operationId: report-7, parameters: [{name: "Set-Cookie", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/8: {get: {operationId: report-8, parameters: [{name: "Host", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/9: {get: {operationId: report-9, parameters: [{name: "Content-Length", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/10: {get: {operationId: report-10, parameters: [{name: "Content-Type", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/11: {get: {operationId: report-11, parameters: [{name: "Accept", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/12: {get: {operationId: report-12, parameters: [{name: "Accept-Encoding", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/13: {get: {operationId: report-13, parameters: [{name: "Connection", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/14: {get: {operationId: report-14, parameters: [{name: "Transfer-Encoding", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/15: {get: {operationId: report-15, parameters: [{name: "X-Api-Key", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/16: {get: {operationId: report-16, parameters: [{name: "x-API-key", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/17: {get: {operationId: report-17, parameters: [{name: "Api-Key", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/18: {get: {operationId: report-18, parameters: [{name: "X-Forwarded-For", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/19: {get: {operationId: report-19, parameters: [{name: "Forwarded", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/20: {get: {operationId: report-20, parameters: [{name: "X-Request-Id", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/21: {get: {operationId: report-21, parameters: [{name: "Traceparent", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/22: {get: {operationId: report-22, parameters: [{name: "Tracestate", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/23: {get: {operationId: report-23, parameters: [{name: "User-Agent", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/24: {get: {operationId: report-24, parameters: [{name: "X-Real-Ip", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/25: {get: {operationId: report-25, parameters: [{name: "X-Payment", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/26: {get: {operationId: report-26, parameters: [{name: "X-Agentify-Operation", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/27: {get: {operationId: report-27, parameters: [{name: "X-Agentify-Anything", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/28: {get: {operationId: report-28, parameters: [{name: "x-agentify-tenant", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/29: {get: {operationId: report-29, parameters: [{name: "Mcp-Session-Id", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/30: {get: {operationId: report-30, parameters: [{name: "MCP-Protocol-Version", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/31: {get: {operationId: report-31, parameters: [{name: "mcp-whatever", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/32: {get: {operationId: report-32, parameters: [{name: "Payment-Signature", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
        /report/33: {get: {operationId: report-33, parameters: [{name: "PAYMENT-Receipt", in: header, schema: {type: string}}, {name: X-Trace, in: header, schema: {type: string}}], responses: {"200": {description: ok}}}}
      """
    When the client calls "report-<n>" with {"<header>": "MARKER-7f3a", "X-Trace": "ok"}
    Then the tool "report-<n>" has an argument for the header "X-Trace", which TC-ARG-001 requires
    And no byte that reached the upstream contains "MARKER-7f3a"

    Examples:
      | header                | n  |
      | Authorization         | 1  |
      | authorization         | 2  |
      | AUTHORIZATION         | 3  |
      | Proxy-Authorization   | 4  |
      | Cookie                | 5  |
      | cookie                | 6  |
      | Set-Cookie            | 7  |
      | Host                  | 8  |
      | Content-Length        | 9  |
      | Content-Type          | 10 |
      | Accept                | 11 |
      | Accept-Encoding       | 12 |
      | Connection            | 13 |
      | Transfer-Encoding     | 14 |
      | X-Api-Key             | 15 |
      | x-API-key             | 16 |
      | Api-Key               | 17 |
      | X-Forwarded-For       | 18 |
      | Forwarded             | 19 |
      | X-Request-Id          | 20 |
      | Traceparent           | 21 |
      | Tracestate            | 22 |
      | User-Agent            | 23 |
      | X-Real-Ip             | 24 |
      | X-Payment             | 25 |
      | X-Agentify-Operation  | 26 |
      | X-Agentify-Anything   | 27 |
      | x-agentify-tenant     | 28 |
      | Mcp-Session-Id        | 29 |
      | MCP-Protocol-Version  | 30 |
      | mcp-whatever          | 31 |
      | Payment-Signature     | 32 |
      | PAYMENT-Receipt       | 33 |

  @TC-REQ-009 @http
  Scenario: The agent's own Authorization, Cookie and other headers stay with the gateway
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {} sending the HTTP headers:
      | Authorization   | Bearer AGENT-TOKEN-5d1e   |
      | Cookie          | session=AGENT-COOKIE-5d1e |
      | X-Forwarded-For | 203.0.113.9               |
      | X-Agent-Note    | AGENT-NOTE-5d1e           |
    Then the request has no "Cookie" header
    And the request has no "X-Forwarded-For" header
    And the request has no "X-Agent-Note" header
    And the request has no "Authorization" header
    And no byte that reached the upstream contains "AGENT-"

  @TC-REQ-009 @http
  Scenario: The agent's Authorization neither replaces nor joins a bearer credential
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          token: {type: http, scheme: bearer}
      security: [{token: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {} sending the HTTP headers:
      | Authorization | Bearer AGENT-TOKEN-5d1e |
    Then no byte that reached the upstream contains "AGENT-"

  @TC-REQ-010
  Scenario Outline: The gateway identifies itself and the operation: <naming>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{petId}:
          get:
            <naming>
            parameters:
              - {name: petId, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "<tool>" with {"petId": "7"}
    Then the request has a non-empty "Accept" header
    And the request's header "User-Agent" contains "hosted-mcp"
    And the request's header "X-Agentify-Operation" is "{{tool:<tool>}}"

    Examples:
      | naming                             | tool              |
      | operationId: getPet                | getPet            |
      | x-agentify: fetch_pet              | fetch_pet         |
      | x-mcp: {name: pet.read}            | pet.read          |
      | summary: named by method and path  | get__pets__petId_ |

  @TC-REQ-010
  Scenario: X-Agentify-Operation names the tool, not the operationId behind its name
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{petId}:
          get:
            operationId: getPet
            x-agentify: fetch_pet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "fetch_pet" with {"petId": "7"}
    Then the request's header "X-Agentify-Operation" is "{{tool:fetch_pet}}"

  @TC-REQ-011
  Scenario Outline: The body is the body argument as JSON, with <why>
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
                <first>: {schema: {type: object}}
                <second>: {schema: {type: object}}
            responses: {"201": {description: created}}
      """
    When the client calls "addPet" with:
      """
      {"body": {"name": "Rex", "age": 3, "weight": 4.5, "tags": ["a", "é"], "owner": null, "vet": {"ok": true}}}
      """
    Then the request's media type is "<sent as>"
    And the request's body is the JSON:
      """
      {"name": "Rex", "age": 3, "weight": 4.5, "tags": ["a", "é"], "owner": null, "vet": {"ok": true}}
      """

    Examples:
      | why                          | first                             | second                      | sent as                     |
      | the JSON type listed         | application/json                  | application/xml             | application/json            |
      | a JSON type listed second    | application/xml                   | application/merge-patch+json | application/merge-patch+json |
      | a vendor JSON type           | application/x-www-form-urlencoded | application/vnd.api+json    | application/vnd.api+json    |
      | no JSON type: the first one  | text/plain                        | application/xml             | text/plain                  |

  @TC-REQ-012
  Scenario: A credential in a named header is that header's only value
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          partner: {type: apiKey, in: header, name: X-Partner-Key}
      security: [{partner: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's header "X-Partner-Key" is "{{credential}}"
    And the request has no "Authorization" header
    And the request has no query

  @TC-REQ-013
  Scenario: A bearer credential is sent as Authorization: Bearer
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          token: {type: http, scheme: bearer, bearerFormat: JWT}
      security: [{token: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's header "Authorization" is "Bearer {{credential}}"
    And the request has no query

  @TC-REQ-014
  Scenario: A basic credential is sent as Authorization: Basic with base64
    Given the stored credential is "ada:s3cret-Q9x2"
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          login: {type: http, scheme: basic}
      security: [{login: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's header "Authorization" is "Basic YWRhOnMzY3JldC1ROXgy"
    And the request has no query

  @TC-REQ-014
  Scenario: A basic credential without a colon is the user name, with an empty password
    Given the stored credential is "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Charges, version: "1"}
      components:
        securitySchemes:
          secretKey: {type: http, scheme: basic}
      security: [{secretKey: []}]
      paths:
        /charges:
          get:
            operationId: listCharges
            responses: {"200": {description: ok}}
      """
    When the client calls "listCharges" with {}
    Then the request's header "Authorization" is "Basic c2tfdGVzdF80ZUMzOUhxTHlqV0Rhcmp0VDF6ZHA3ZGM6"

  @TC-REQ-015
  Scenario: A credential in a query parameter appears once, beside the query arguments
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {"limit": 5}
    Then the request's query is:
      | limit   | 5              |
      | api_key | {{credential}} |
    And the request has no "Authorization" header

  @TC-REQ-016
  Scenario Outline: An argument named like the credential's header does not replace or join it: <parameter>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          partner: {type: apiKey, in: header, name: X-Partner-Key}
      security: [{partner: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: <parameter>, in: header, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {"<parameter>": "MARKER-7f3a"}
    Then the request's header "X-Partner-Key" is "{{credential}}", or the call is refused and nothing reached the upstream

    Examples:
      | parameter     |
      | X-Partner-Key |
      | x-partner-key |

  @TC-REQ-016
  Scenario: An argument named like the credential's query parameter does not replace or join it
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: api_key, in: query, schema: {type: string}}
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {"api_key": "MARKER-7f3a", "limit": 2}
    Then the request's query parameter "api_key" is "{{credential}}", or the call is refused and nothing reached the upstream

  @TC-REQ-017 @credential-from-document
  Scenario Outline: Without configuration, the document's security scheme places the credential: <scheme>
    # A user:password credential, so that how a bare key is written as
    # basic is TC-REQ-014's matter alone. A usable scheme is named after
    # the chosen one, so a gateway that passes the chosen one over is seen
    # using the later one, not the bearer token it would fall back to.
    Given the stored credential is "ada:s3cret-Q9x2"
    And the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          chosen: <scheme>
          later: {type: apiKey, in: header, name: X-Later-Key}
      security: [{chosen: []}, {later: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's <place> is "<value>"
    And the request has no "X-Later-Key" header

    Examples:
      | scheme                                                                                           | place                   | value                       |
      | {type: apiKey, in: header, name: X-Shop-Token}                                                   | header "X-Shop-Token"   | {{credential}}              |
      | {type: http, scheme: bearer}                                                                     | header "Authorization"  | Bearer {{credential}}       |
      | {type: http, scheme: basic}                                                                      | header "Authorization"  | Basic {{credential_base64}} |
      | {type: apiKey, in: query, name: token}                                                           | query parameter "token" | {{credential}}              |
      | {type: oauth2, flows: {clientCredentials: {tokenUrl: "https://auth.example/t", scopes: {}}}}     | header "Authorization"  | Bearer {{credential}}       |
      | {type: openIdConnect, openIdConnectUrl: "https://auth.example/.well-known/openid-configuration"} | header "Authorization"  | Bearer {{credential}}       |

  @TC-REQ-017 @credential-from-document
  Scenario: The top-level requirement decides, whatever order the schemes are declared in
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          declaredFirst: {type: apiKey, in: header, name: X-First-Key}
          required: {type: apiKey, in: header, name: X-Shop-Token}
      security: [{required: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's header "X-Shop-Token" is "{{credential}}"
    And the request has no "X-First-Key" header

  @TC-REQ-017 @credential-from-document
  Scenario Outline: A scheme that cannot carry the credential is passed over for the next one: <unusable>
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          unusable: <unusable>
          chosen: {type: apiKey, in: header, name: X-Shop-Token}
      security: [{unusable: []}, {chosen: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's header "X-Shop-Token" is "{{credential}}"
    And the request has no "Authorization" header
    And the request has no query

    Examples:
      | unusable                                  |
      | {type: apiKey, in: header, name: ""}      |
      | {type: apiKey, in: cookie, name: session} |
      | {type: http, scheme: digest}              |
      | {type: mutualTLS}                         |

  @TC-REQ-017 @credential-from-document
  Scenario: With no scheme that can carry it, the credential goes as a bearer token
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          digest: {type: http, scheme: digest}
      security: [{digest: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {}
    Then the request's header "Authorization" is "Bearer {{credential}}"

  @TC-REQ-018 @recommended
  Scenario: A header the document names in a way HTTP cannot carry is refused, and nothing is sent
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Trace, version: "1"}
      paths:
        /trace:
          get:
            operationId: trace
            parameters:
              - {name: "X Trace", in: header, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "trace" with {"X Trace": "abc"}
    Then the call is refused
    And the result contains "X Trace"
    And nothing reached the upstream

  @TC-REQ-019 @recommended
  Scenario Outline: A query parameter with a declared style is sent the way OpenAPI writes it: <style>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Search, version: "1"}
      paths:
        /search:
          get:
            operationId: search
            parameters:
              - name: ids
                in: query
                style: <style>
                explode: false
                schema: {type: array, items: {type: string}}
              - name: filter
                in: query
                style: deepObject
                explode: true
                schema: {type: object, properties: {color: {type: string}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "search" with {"ids": ["a", "b"], "filter": {"color": "red"}}
    Then the request's query parameter "ids" is "<sent>"
    And the request's query parameter "filter[color]" is "red"

    Examples:
      | style          | sent |
      | form           | a,b  |
      | spaceDelimited | a b  |
      | pipeDelimited  | a\|b |

  @TC-REQ-020 @recommended
  Scenario: An empty path value is refused, since it would name another resource
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{id}:
          delete:
            operationId: deletePet
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
            responses: {"204": {description: gone}}
      """
    When the client calls "deletePet" with {"id": ""}
    Then nothing reached the upstream
    And the call is refused

  @TC-REQ-019 @recommended
  Scenario: An empty array in form style without explode sends no pair
    OpenAPI's form style is RFC 6570's, where a list with no members is
    undefined and expands to nothing, exploded or not: no `ids=`.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Search, version: "1"}
      paths:
        /search:
          get:
            operationId: search
            parameters:
              - name: ids
                in: query
                style: form
                explode: false
                schema: {type: array, items: {type: string}}
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "search" with {"ids": [], "limit": 3}
    Then the request's query is:
      | limit | 3 |

  @TC-REQ-019 @recommended
  Scenario: Object query parameters in form style, exploded and not
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Search, version: "1"}
      paths:
        /search:
          get:
            operationId: search
            parameters:
              - name: near
                in: query
                style: form
                explode: false
                schema: {type: object, properties: {lat: {type: string}}}
              - name: size
                in: query
                style: form
                explode: true
                schema: {type: object, properties: {width: {type: string}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "search" with {"near": {"lat": "52"}, "size": {"width": "3"}}
    Then the request's query parameter "near" is "lat,52"
    And the request's query parameter "width" is "3"

  @TC-REQ-021 @http @client-auth
  Scenario: The client credential stays with the gateway
    The credential the client shows the gateway (--client-auth) lets the
    client in and is the gateway's own; here the API's credential goes in
    another header.
    Given the OpenAPI document, written for where the client shows its credential:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          stored: {{scheme_elsewhere}}
      security: [{stored: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers every request with status 200
    When the client calls "listPets" with {}
    Then the call reached the upstream, which TC-REQ-001 requires
    And no byte that reached the upstream contains the client credential

  @TC-REQ-021 @http @client-auth
  Scenario: The API's credential in the client's own header takes the place of the client's
    The document puts the API's credential in the header the client shows
    its own in: both bearer tokens in Authorization, or both in the same
    key header. A gateway that passes its clients' headers on, or merges
    them with its own, sends the client's beside the API's or instead of it.
    Given the OpenAPI document, written for where the client shows its credential:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      components:
        securitySchemes:
          stored: {{scheme_in_the_client_credential_place}}
      security: [{stored: []}]
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers every request with status 200
    When the client calls "listPets" with {}
    Then the call reached the upstream, which TC-REQ-001 requires
    And no byte that reached the upstream contains the client credential
