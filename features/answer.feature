Feature: The answer
  A successful answer comes back as text, JSON pretty-printed, read up to
  1 MB (1,048,576 bytes); a longer one is cut at a character boundary with a
  note. A body that is not text is described by its size and type instead.
  A redirect is an error naming its Location; any other status is an error
  with the status and the start of the body: at most its first 1,024 bytes,
  at least its first 100 (all of a shorter one).

  A note about a cut says "truncated", "cut", "1 MB", "1048576",
  "1,048,576" or "limit", in any case.

  @TC-ANS-001
  Scenario: A text body comes back as text
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Notes, version: "1"}
      paths:
        /notes/{id}:
          get:
            operationId: getNote
            parameters:
              - {name: id, in: path, required: true, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/notes/1" with status 200 and the "text/plain; charset=utf-8" body:
      """
      Line one of the note, with é and 日本.
        Line two, indented: <b>not markup</b> & "quotes".

      """
    When the client calls "getNote" with {"id": "1"}
    Then the call succeeds with exactly the text:
      """
      Line one of the note, with é and 日本.
        Line two, indented: <b>not markup</b> & "quotes".

      """

  @TC-ANS-001
  Scenario Outline: A <content type> body is text
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Docs, version: "1"}
      paths:
        /doc:
          get:
            operationId: getDoc
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/doc" with status 200 and the "<content type>" body "<body>"
    When the client calls "getDoc" with {}
    Then the call succeeds with exactly the text "<body>"

    Examples:
      | content type                      | body                      |
      | text/csv                          | id,name;1,Rex             |
      | application/xml                   | <pet>Rex</pet>            |
      | application/javascript            | var pet = 'Rex';          |
      | application/yaml                  | name: Rex                 |
      | application/x-www-form-urlencoded | name=Rex&age=3            |

  @TC-ANS-002
  Scenario Outline: A JSON body that parses comes back pretty-printed (<content type>)
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
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/pets/7" with status 200 and the "<content type>" body:
      """
      {"id":7,"name":"Rex","tags":["good","dog"],"owner":{"name":"Ada"}}
      """
    When the client calls "getPet" with {"id": "7"}
    Then the call succeeds with the JSON, pretty-printed:
      """
      {"id":7,"name":"Rex","tags":["good","dog"],"owner":{"name":"Ada"}}
      """

    Examples:
      | content type                    |
      | application/json                |
      | application/json; charset=utf-8 |
      | application/problem+json        |

  @TC-ANS-002
  Scenario: Pretty-printing keeps every number digit for digit
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Prices, version: "1"}
      paths:
        /prices:
          get:
            operationId: listPrices
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/prices" with status 200 and the "application/json" body:
      """
      {"price": 0.10000000000000000555, "big": 123456789012345678901234567890, "small": -1.5e-300, "whole": 2.0, "list": [1.10, 0, -0.0]}
      """
    When the client calls "listPrices" with {}
    Then the call succeeds with the JSON, pretty-printed:
      """
      {"price": 0.10000000000000000555, "big": 123456789012345678901234567890, "small": -1.5e-300, "whole": 2.0, "list": [1.10, 0, -0.0]}
      """

  @TC-ANS-002
  Scenario: Pretty-printing keeps every string whole, escapes and all
    Strings that hold what JSON's structure is made of (spaces, commas,
    colons, brackets) and escaped quotes and backslashes come back the same
    strings, in a body written on one line.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Notes, version: "1"}
      paths:
        /notes:
          get:
            operationId: listNotes
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/notes" with status 200 and the "application/json" body:
      """
      {"note":"a, b: [c] {d} \"quoted\" back\\slash","empty":{},"none":[],"nested":[{"k":"v w"}]}
      """
    When the client calls "listNotes" with {}
    Then the call succeeds with the JSON, pretty-printed:
      """
      {"note":"a, b: [c] {d} \"quoted\" back\\slash","empty":{},"none":[],"nested":[{"k":"v w"}]}
      """

  @TC-ANS-002
  Scenario: A body already spaced out comes back the same value
    Spaces, tabs and line breaks inside brackets, even empty ones, are
    layout: re-indenting them leaves the value as it was.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Notes, version: "1"}
      paths:
        /notes:
          get:
            operationId: listNotes
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/notes" with status 200 and the "application/json" body:
      """
      {
      	"items" : [ ],
        "meta": {  },
        "pages": [ 1 , [ ] , { "next" : null } ]
      }
      """
    When the client calls "listNotes" with {}
    Then the call succeeds with the JSON, pretty-printed:
      """
      {"items": [], "meta": {}, "pages": [1, [], {"next": null}]}
      """

  @TC-ANS-002
  Scenario: A JSON body that does not parse comes back as it is
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
    And the upstream answers GET "/pets" with status 200 and the "application/json" body:
      """
      {"id": 7, oops
      """
    When the client calls "listPets" with {}
    Then the call succeeds with exactly the text:
      """
      {"id": 7, oops
      """

  @TC-ANS-003
  Scenario: A body of exactly 1,048,576 bytes comes back whole, with no note
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Big, version: "1"}
      paths:
        /big:
          get:
            operationId: getBig
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/big" with status 200 and a "text/plain" body of "x" repeated 1048568 times followed by "ENDOFMB!"
    When the client calls "getBig" with {}
    Then the call succeeds with a text containing "x" repeated 1048568 times followed by "ENDOFMB!"
    And the result has no note that the body was cut

  @TC-ANS-003
  Scenario: A body one byte longer is cut at 1,048,576 bytes, with a note
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Big, version: "1"}
      paths:
        /big:
          get:
            operationId: getBig
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/big" with status 200 and a "text/plain" body of "x" repeated 1048568 times followed by "ENDOFMB!Q"
    When the client calls "getBig" with {}
    Then the call succeeds with a text containing "x" repeated 1048568 times followed by "ENDOFMB!"
    And the result does not contain "ENDOFMB!Q"
    And the result notes that the body was cut

  @TC-ANS-004
  Scenario Outline: A cut inside a <bytes>-byte character falls before it
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Big, version: "1"}
      paths:
        /big:
          get:
            operationId: getBig
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/big" with status 200 and a "text/plain; charset=utf-8" body of "x" repeated <before> times followed by "<character> and the rest"
    When the client calls "getBig" with {}
    Then the call succeeds with a text containing "x" repeated <before> times followed by ""
    And the result does not contain "<character>"
    And the result contains no replacement character
    And the result notes that the body was cut

    Examples:
      | bytes | before  | character |
      | 2     | 1048575 | é         |
      | 3     | 1048575 | 日        |
      | 3     | 1048574 | 日        |
      | 4     | 1048573 | 🐶        |

  @TC-ANS-003
  Scenario: A stray byte just past 1 MB does not pull the cut back over a whole character
    The last four bytes under the limit are one whole character; the byte
    after them continues nothing, so 1,048,576 is a boundary and the cut
    stays there.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Big, version: "1"}
      paths:
        /big:
          get:
            operationId: getBig
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/big" with a "text/plain; charset=utf-8" body of "x" repeated 1048572 times followed by the bytes "F0 90 80 80 80 41 42"
    When the client calls "getBig" with {}
    Then the call succeeds with a text containing "x" repeated 1048572 times followed by "𐀀"
    And the result notes that the body was cut

  @TC-ANS-003
  Scenario Outline: Nothing past the cut comes back, not even a mask for a credential there: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Big, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /big:
          get:
            operationId: getBig
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/big" with status 200 and a "text/plain" body of "x" repeated 1048576 times followed by "<after the cut>"
    When the client calls "getBig" with {}
    Then the call succeeds with a text containing "x" repeated 1048576 times followed by ""
    And the result notes that the body was cut
    And the result does not contain "[credential]"
    And the result does not contain "MARKER-7f3a"

    Examples:
      | case                          | after the cut                          |
      | a credential right at the cut | {{credential}} MARKER-7f3a             |
      | a credential further on       | MARKER-7f3a {{credential}} MARKER-7f3a |

  @TC-ANS-005
  Scenario Outline: A <content type> body is described by its size and type, not shown
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Files, version: "1"}
      paths:
        /file:
          get:
            operationId: getFile
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/file" with status 200 and a "<content type>" body of 777 bytes that are not UTF-8, holding "MARKER-BIN-7f3a"
    When the client calls "getFile" with {}
    Then the call succeeds with a text containing "777"
    And the result contains "<content type>"
    And the result does not contain "MARKER-BIN-7f3a"
    And the result does not contain "PNG"

    Examples:
      | content type             |
      | image/png                |
      | application/octet-stream |
      | application/pdf          |

  @TC-ANS-006
  Scenario: A body with no content type that is valid UTF-8 is text
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Notes, version: "1"}
      paths:
        /note:
          get:
            operationId: getNote
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/note" with status 200, no content type and the body "plain words, no type: ünïcödé"
    When the client calls "getNote" with {}
    Then the call succeeds with a text containing "plain words, no type: ünïcödé"

  @TC-ANS-006
  Scenario: A body with no content type that is not UTF-8 is described, not shown
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Notes, version: "1"}
      paths:
        /note:
          get:
            operationId: getNote
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/note" with status 200, no content type and 321 bytes that are not UTF-8, holding "MARKER-BIN-7f3a"
    When the client calls "getNote" with {}
    Then the call succeeds with a text containing "321"
    And the result does not contain "MARKER-BIN-7f3a"

  @TC-ANS-006
  Scenario: A body with no content type, over 1 MB and not UTF-8, is described, not shown
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Notes, version: "1"}
      paths:
        /note:
          get:
            operationId: getNote
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/note" with status 200, no content type and 1048600 bytes that are not UTF-8, holding "MARKER-BIN-7f3a"
    When the client calls "getNote" with {}
    Then the call succeeds with a text containing "bytes"
    And the result does not contain "MARKER-BIN-7f3a"
    And the result does not contain "PNG"

  @TC-ANS-007
  Scenario Outline: A <status> redirect is an error naming its Location
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
    And the upstream answers GET "/pets" with status <status> and the "Location" header "<location>"
    When the client calls "listPets" with {}
    Then the redirect was not followed, which TC-SEND-003 requires
    And the call fails with a text containing "<location>"

    Examples:
      | status | location                                  |
      | 301    | {{base_url}}/v2/pets                      |
      | 302    | /login?next=%2Fpets                       |
      | 303    | {{base_url}}/jobs/42                      |
      | 307    | {{base_url}}/pets?page=2&sort=name        |
      | 308    | {{base_url}}/v2/pets                      |

  @TC-ANS-008
  Scenario Outline: A <status> is an error with its status and the start of its body
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
    And the upstream answers GET "/pets" with status <status> and the "text/plain" body "error: <reason>"
    When the client calls "listPets" with {}
    Then the call fails with a text naming the status <status>
    And the result contains "<reason>"

    Examples:
      | status | reason             |
      | 400    | bad-request-7f3a   |
      | 401    | who-are-you-7f3a   |
      | 403    | not-for-you-7f3a   |
      | 404    | no-such-pet-7f3a   |
      | 418    | teapot-7f3a        |
      | 429    | slow-down-7f3a     |
      | 500    | server-broke-7f3a  |

  @TC-ANS-008
  Scenario: At most the first 1,024 bytes of an error body are shown, and at least the first 100
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
    And the upstream answers GET "/pets" with status 503 and a "text/plain" body of "e" repeated 1016 times followed by "HEAD-ENDTAIL-AFTER-THE-FIRST-KB"
    When the client calls "listPets" with {}
    Then the call fails with a text containing "e" repeated 100 times followed by ""
    And the result does not contain "HEAD-ENDT"
    And the result contains "503"

  @TC-ANS-009
  Scenario: An endless body is read up to 1 MB and the call still answers
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Stream, version: "1"}
      paths:
        /stream:
          get:
            operationId: stream
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/stream" with an endless "text/plain" body of "y"
    When the client calls "stream" with {}
    Then the call succeeds with a text containing "y" repeated 1048576 times followed by ""
    And the result does not contain "y" repeated 1048577 times followed by ""
    And the result notes that the body was cut

  @TC-ANS-010 @recommended
  Scenario: An empty successful answer says so, with its status
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
    And the upstream answers DELETE "/pets/7" with status 204
    When the client calls "deletePet" with {"id": "7"}
    Then the call succeeds with a text naming the status 204
    And the result contains "empty"
