Feature: MCP authorization
  A gateway served over HTTP may check its agents' access tokens, as the
  MCP authorization spec (2025-06-18, 2025-11-25) makes an HTTP MCP server
  an OAuth 2.1 resource server. These scenarios judge it from outside: the
  harness runs an authorization server of its own on loopback (metadata, a
  JWKS, a token endpoint, keys it rotates and withdraws), the gateway is
  launched trusting it (`{issuer}`, `{jwks_uri}` and `{resource}` in its
  command), and the harness's client shows a token minted for the resource
  the gateway names. They run with --client-auth oauth; without it they are
  not run, with the reason. That the token never reaches the API is
  TC-REQ-021's matter, judged with a token by its scenarios in the request
  section in the same run.

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
          post:
            operationId: createPet
            responses: {"201": {description: created}}
      """

  @TC-AUTH-001 @http @oauth
  Scenario: A request without a token is refused with a Bearer challenge that points at the metadata
    When another HTTP client, showing no client credential, sends initialize with protocol version "2025-11-25"
    Then the gateway answered HTTP 401 with a Bearer challenge naming resource_metadata

  @TC-AUTH-002 @recommended @http @oauth
  Scenario: The challenge names the metadata by an absolute URL
    When another HTTP client, showing no client credential, sends initialize with protocol version "2025-11-25"
    Then the challenge names resource_metadata by an absolute URL

  @TC-AUTH-003 @http @oauth
  Scenario: The metadata names the resource and the authorization server
    A client follows the challenge's resource_metadata, else the well-known
    URL RFC 9728 derives from the endpoint's.
    When another HTTP client, showing no client credential, sends initialize with protocol version "2025-11-25"
    Then the protected-resource metadata names the endpoint as the resource and the run's authorization server

  @TC-AUTH-004 @http @oauth
  Scenario Outline: A tool call showing a token <token> is refused with 401, and nothing reaches the API
    The call goes in a session opened with a good token: every request is
    checked, not only a session's first. A gateway that cannot check a
    token for now may answer 503 with Retry-After: the call is sent again
    after it, for up to 30 s, and the last answer is judged.
    Given the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client, showing a token <token>, calls the tool "listPets" with {}
    Then the gateway refused that token with HTTP 401
    And nothing reached the upstream

    Examples:
      | token                                              |
      | that has expired                                   |
      | that is not valid yet                              |
      | for another audience                               |
      | of another issuer                                  |
      | with a bad signature                               |
      | that is unsigned (alg none)                        |
      | signed with HS256 keyed by the issuer's public key |
      | signed by a key the issuer does not publish        |

  @TC-AUTH-005 @http @oauth
  Scenario: A token in the query string is refused, and nothing reaches the API
    The call shows its good token as `access_token` in the URL's query, and
    in no header.
    Given the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client, showing its token in the query string only, calls the tool "listPets" with {}
    Then the gateway did not let that request in
    And nothing reached the upstream

  @TC-AUTH-006 @recommended @http @oauth
  Scenario: A key rotated in at the authorization server is taken within 30 seconds
    The gateway has checked a token of the first key when the second is
    published; tokens signed by the second are then sent, a fresh one each
    second.
    Given the gateway trusts an authorization server of the scenario's own
    And the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client calls the tool "listPets" with {}
    And the authorization server rotates its second key in
    Then a tool call showing a token of the second key is let in within 30 seconds

  @TC-AUTH-007 @recommended @http @oauth
  Scenario: A key the authorization server withdraws stops letting tokens in within 30 seconds
    Both keys are published from the start; the gateway has let in a token
    of the first when it is withdrawn. Fresh tokens of it, new each second,
    must then be refused, while the server still publishes the second key.
    Given the gateway trusts an authorization server of the scenario's own
    And the authorization server publishes its second key too
    And the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client calls the tool "listPets" with {}
    And the authorization server withdraws its first key
    Then a tool call showing a token of the first key is refused within 30 seconds

  @TC-AUTH-008 @recommended @http @oauth
  Scenario: A token whose scopes are too few gets 403 insufficient_scope naming the scope
    Judged where the gateway says it checks scopes: its metadata lists
    scopes_supported, or its challenge names a scope. The token names none
    of them.
    Given the upstream answers every request with status 200
    When an HTTP client sends initialize with protocol version "2025-11-25"
    And the HTTP client, showing a token with none of the gateway's scopes, calls the tool "createPet" with {}
    Then where the gateway checks scopes, it answered HTTP 403 with insufficient_scope naming a scope it lists
    And nothing reached the upstream
