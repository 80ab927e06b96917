Feature: Delivery
  The request is sent once: it is never retried, whatever went wrong, and a
  redirect is never followed. The whole exchange (connecting, sending and
  reading the answer) is cut off after 15 seconds, and each way of failing
  comes back as an error that says what happened.

  The slow scenarios, tagged @slow, take about 15 seconds each; they run
  alongside the others, and `--tags 'not @slow'` leaves them out of a quick run.
  The cut-off is timed where the gateway's own deadline shows: from the
  request's arrival at the upstream to the gateway closing that connection.
  A timing that the machine running the check explains (its own timers
  fired as late as the timing missed by) is not judged, never failed.

  @TC-SEND-001
  Scenario Outline: A <status> answer is not retried: exactly one request
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          <method>:
            operationId: touchPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers <METHOD> "/pets" with status <status> and the "text/plain" body "try again later"
    When the client calls "touchPets" with {}
    Then the upstream received exactly one request: <METHOD> "/pets"

    Examples:
      | method | METHOD | status |
      | get    | GET    | 500    |
      | get    | GET    | 502    |
      | put    | PUT    | 503    |
      | delete | DELETE | 504    |
      | post   | POST   | 503    |

  @TC-SEND-002
  Scenario Outline: A reset connection is not retried and comes back as an error (<method>)
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          <method>:
            operationId: touchPets
            responses: {"200": {description: ok}}
      """
    And the upstream resets the connection on "/pets"
    When the client calls "touchPets" with {}
    Then the call fails saying the connection was reset
    And the upstream received exactly one request

    Examples:
      | method |
      | get    |
      | put    |
      | post   |

  @TC-SEND-003
  Scenario Outline: A <status> redirect is not followed: its target receives nothing
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/pets" with status <status> and the "Location" header "{{base_url}}/moved/pets"
    And the upstream answers GET "/moved/pets" with status 200 and the "text/plain" body "you followed the redirect"
    When the client calls "listPets" with {}
    Then the result does not contain "you followed the redirect"
    And the upstream received exactly one request: GET "/pets"

    Examples:
      | status |
      | 301    |
      | 302    |
      | 303    |
      | 307    |
      | 308    |

  @TC-SEND-004 @slow
  Scenario: An upstream that never answers is cut off with an error that says so
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream never answers on "/pets"
    When the client calls "listPets" with {}
    Then the call fails saying it timed out
    And the call was cut off 15 seconds after it began, give or take a second
    And the upstream received exactly one request

  @TC-SEND-004 @slow
  Scenario: An answer that starts after 20 seconds is cut off
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/pets" with status 200 and the "text/plain" body "too late"
    And the upstream holds its answer on "/pets" back for 20 seconds
    When the client calls "listPets" with {}
    Then the call fails saying it timed out
    And the call was cut off 15 seconds after it began, give or take a second
    And the result does not contain "too late"
    And the upstream received exactly one request

  @TC-SEND-004 @slow
  Scenario: An answer that starts after 10 seconds is still in time
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/pets" with status 200 and the "text/plain" body "slow but in time"
    And the upstream holds its answer on "/pets" back for 10 seconds
    When the client calls "listPets" with {}
    Then the answer came in time, with a text containing "slow but in time"

  @TC-SEND-005 @slow
  Scenario: A body that keeps trickling past 15 seconds is cut off
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/pets" at once, then trickles "tick " every second without end
    When the client calls "listPets" with {}
    Then the call fails saying it timed out
    And the call was cut off 15 seconds after it began, give or take a second
    And the upstream received exactly one request

  @TC-SEND-005 @slow
  Scenario: A body that trickles for 10 seconds and ends is still in time
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/pets" at once, then sends "tock " 11 times, one a second
    When the client calls "listPets" with {}
    Then the answer came in time, with a text containing "tock " repeated 10 times followed by "tock"

  @TC-SEND-006
  Scenario: A refused connection comes back as an error that says so
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            responses: {"200": {description: ok}}
      """
    And the gateway is running, and nothing listens at the upstream's address any more
    When the client calls "listPets" with {}
    Then the call fails saying the connection was refused

  @TC-SEND-007 @recommended
  Scenario: An error about delivery names the request it concerns
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{id}/toys:
          get:
            operationId: listToys
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    And the upstream resets the connection on "/pets/42/toys"
    When the client calls "listToys" with {"id": "42"}
    Then the result contains "GET"
    And the result contains "/pets/42/toys"

  @TC-SEND-007 @recommended
  Scenario: An answer that is not HTTP is an error naming the request
    The base URL points at a service that does not speak HTTP: the
    exchange fails for a reason that is neither a timeout, a refusal nor a
    reset, and the error still names the request. What it says of the
    cause is not judged: HTTP clients tell it differently (h11, under
    httpx, sees only a server that disconnected).
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Pets, version: "1"}
      paths:
        /pets/{id}/toys:
          get:
            operationId: listToys
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/pets/42/toys" with bytes that are not HTTP
    When the client calls "listToys" with {"id": "42"}
    Then the call returns a tool error with a text
    And the result contains "GET"
    And the result contains "/pets/42/toys"
