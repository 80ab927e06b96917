Feature: Protocol
  The gateway is an MCP server over Streamable HTTP (at /mcp) and over stdio,
  for clients of both protocol eras: the initialize handshake and the
  2026-07-28 revision, which discovers the server instead and keeps no
  session. Only an unknown tool is a JSON-RPC error; every other failed call
  is a tool result flagged as an error. Tools are listed in document order.

  Background:
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
        /pets/{petId}:
          get:
            operationId: getPet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """

  @TC-PROTO-001 @http
  Scenario: The tools are listed over Streamable HTTP
    Then the gateway lists the tools:
      | listPets |
      | getPet   |

  @TC-PROTO-001 @stdio
  Scenario: The tools are listed over stdio
    Then the gateway lists the tools:
      | listPets |
      | getPet   |

  @TC-PROTO-001 @stdio
  Scenario: Over stdio, stdout carries nothing but MCP messages
    Given the upstream answers every request with status 200
    When the client calls "getPet" with {"petId": "7"}
    Then the gateway wrote nothing on stdout but MCP messages

  @TC-PROTO-002
  Scenario Outline: A client of the initialize era with protocol <version>
    Given the client uses the initialize handshake with protocol version "<version>"
    Then the gateway agreed on protocol version "<version>"
    And the gateway lists the tools:
      | listPets |
      | getPet   |

    Examples:
      | version    |
      | 2025-06-18 |
      | 2025-11-25 |

  @TC-PROTO-002 @http
  Scenario Outline: The initialize answer over HTTP names protocol <version>
    When an HTTP client sends initialize with protocol version "<version>"
    Then the HTTP status is 200
    And the answer has "/result/protocolVersion" equal to "<version>"
    When the HTTP client sends "tools/list"
    Then the answer lists the tools:
      | listPets |
      | getPet   |

    Examples:
      | version    |
      | 2025-06-18 |
      | 2025-11-25 |

  @TC-PROTO-003
  Scenario: A client of the 2026-07-28 revision discovers the gateway
    Given the client uses server/discover (protocol version 2026-07-28)
    Then the gateway agreed on protocol version "2026-07-28"
    And the gateway lists the tools:
      | listPets |
      | getPet   |

  @TC-PROTO-003 @http
  Scenario: server/discover over HTTP opens no session, and tools/list needs none
    When an HTTP client sends server/discover for protocol version 2026-07-28
    Then the HTTP status is 200
    And the answer's "/result/supportedVersions" includes "2026-07-28"
    And the answer carries no "Mcp-Session-Id" header
    When the HTTP client sends "tools/list"
    Then the answer lists the tools:
      | listPets |
      | getPet   |

  @TC-PROTO-004
  Scenario Outline: An unknown tool is JSON-RPC error -32602 (<era>)
    Given the client uses <era>
    When the client calls "deletePet", a tool the gateway does not list, with {}
    Then the call fails with JSON-RPC error -32602

    Examples:
      | era                                                          |
      | the initialize handshake with protocol version "2025-11-25" |
      | server/discover (protocol version 2026-07-28)                |

  @TC-PROTO-005
  Scenario: Arguments that fail the check give a tool error, not a JSON-RPC error
    Whether such arguments are refused at all is TC-CHECK-002's matter; this
    judges the form of the refusal.
    When the client calls "getPet" with {}
    Then a refusal of the call, which TC-CHECK-002 asks for, is a tool error with a text

  @TC-PROTO-005
  Scenario: A refused path gives a tool error
    Whether `..` is refused at all is TC-REQ-003's matter; this judges the
    form of the refusal.
    When the client calls "getPet" with {"petId": ".."}
    Then a refusal of the call, which TC-REQ-003 asks for, is a tool error with a text

  @TC-PROTO-005
  Scenario Outline: Arguments that are not an object give a tool error, and nothing is sent
    When the client calls "listPets" with arguments that are not an object: <arguments>
    Then the call returns a tool error with a text
    And nothing reached the upstream

    Examples:
      | arguments |
      | "limit=5" |
      | [5]       |
      | 5         |

  @TC-PROTO-005
  Scenario: An upstream failure gives a tool error
    Given the upstream answers every request with status 500
    When the client calls "getPet" with {"petId": "7"}
    Then the call returns a tool error with a text

  @TC-PROTO-006
  Scenario: Tools come in document order: paths as written, methods in a fixed order
    Each operation has one query parameter named after it, so the order is
    judged by the tools' arguments and not by their names (a naming rule's
    matter).
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Order, version: "1"}
      paths:
        /zebra:
          post: {operationId: zebraPost, parameters: [{name: zebraPost, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          trace: {operationId: zebraTrace, parameters: [{name: zebraTrace, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          patch: {operationId: zebraPatch, parameters: [{name: zebraPatch, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          head: {operationId: zebraHead, parameters: [{name: zebraHead, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          options: {operationId: zebraOptions, parameters: [{name: zebraOptions, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          delete: {operationId: zebraDelete, parameters: [{name: zebraDelete, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          put: {operationId: zebraPut, parameters: [{name: zebraPut, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
          get: {operationId: zebraGet, parameters: [{name: zebraGet, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
        /apple:
          get: {operationId: appleGet, parameters: [{name: appleGet, in: query, schema: {type: string}}], responses: {"200": {description: ok}}}
        /mango/{id}:
          delete:
            operationId: mangoDelete
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
              - {name: mangoDelete, in: query, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    Then the tools, each known by an argument, are in order:
      | zebraGet     |
      | zebraPut     |
      | zebraPost    |
      | zebraDelete  |
      | zebraOptions |
      | zebraHead    |
      | zebraPatch   |
      | zebraTrace   |
      | appleGet     |
      | mangoDelete  |
    And listing the tools again gives the same list

  @TC-PROTO-007 @recommended @http
  Scenario: A browser request from a foreign Origin is refused
    When an HTTP client from the origin "https://evil.example" sends initialize with protocol version "2025-11-25"
    Then the HTTP status is 403

  @TC-PROTO-007 @recommended @http
  Scenario Outline: A browser request from a loopback origin is served by a gateway on loopback
    A page served from the user's own machine (a local inspector, a dev
    server) may talk to a gateway listening on loopback, as the official
    SDKs allow; DNS rebinding cannot forge such an origin.
    When an HTTP client from the origin "<origin>" sends initialize with protocol version "2025-11-25"
    Then the HTTP status is 200

    Examples:
      | origin                 |
      | http://localhost:6274  |
      | http://127.0.0.1:3000  |
      | http://[::1]:8080      |

  @TC-PROTO-007 @recommended @http
  Scenario: A request without an Origin is served
    When an HTTP client sends initialize with protocol version "2025-11-25"
    Then the HTTP status is 200

  @TC-PROTO-008 @http
  Scenario: A tools/call POST is answered on its own response
    Given the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client calls the tool "listPets" with {}
    Then the HTTP status is 200
    And the answer to the POST carries the tool result

  @TC-PROTO-008 @http
  Scenario: A tools/call POST of the 2026-07-28 revision is answered on its own response
    Judged where the gateway offers the revision (TC-PROTO-003's matter).
    Given the upstream answers every request with status 200
    When an HTTP client sends server/discover for protocol version 2026-07-28
    And the HTTP client calls the tool "listPets" with {}
    Then where the 2026-07-28 revision is offered, the answer to the POST carries the tool result

  @TC-PROTO-009 @http
  Scenario: A tool result of about 2 MB on the wire reaches an SDK client
    A body of backslashes is twice its size once JSON-escaped in the result.
    The client sees every stream the answer may come on, the POST's own or
    the GET stream (where an answer on the POST is TC-PROTO-008's matter).
    Given the client uses the initialize handshake with protocol version "2025-11-25"
    And the upstream answers GET "/pets" with status 200 and a "text/plain" body of "\" repeated 1000000 times followed by "END"
    When the client calls "listPets" with {}
    Then no SSE event the client received was over 1 MiB

  @TC-PROTO-009 @http
  Scenario: A tools/list of 1.4 MB reaches an SDK client in the initialize era
    Given the client uses the initialize handshake with protocol version "2025-11-25"
    And an OpenAPI document of 800 operations, each described in 1600 characters
    When the client lists the tools
    Then no SSE event the client received was over 1 MiB

  @TC-PROTO-010 @recommended @http @client-auth
  Scenario Outline: A new session that shows <shown> is refused with 401 and a challenge
    The gateway lets in the client that shows the credential of the run
    (--client-auth); another shows none, or one the gateway was never
    given.
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And another HTTP client, showing <shown>, sends initialize with protocol version "2025-11-25"
    Then the gateway refused that client with HTTP 401 and a WWW-Authenticate header

    Examples:
      | shown                      |
      | no client credential       |
      | a wrong client credential  |

  @TC-PROTO-010 @recommended @http @client-auth
  Scenario Outline: A tool call that shows <shown> is refused with 401, and nothing reaches the API
    The client checked is the one of every request, not only of the
    session's first: this call goes in the session opened with the
    credential of the run.
    Given the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client, showing <shown>, calls the tool "listPets" with {}
    Then the gateway refused that client with HTTP 401 and a WWW-Authenticate header
    And nothing reached the upstream

    Examples:
      | shown                      |
      | no client credential       |
      | a wrong client credential  |
