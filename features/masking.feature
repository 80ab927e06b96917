Feature: Masking the credential
  The credential the gateway stores never reaches the agent. Wherever the API
  echoes it (a body, an error body, a Location, a value split across reads)
  and wherever the gateway's own messages would show it (a URL with the
  credential in its query), the agent reads `[credential]` instead.

  Whether a body, a Location or an error comes back at all is the answer and
  delivery rules' matter: these scenarios judge what is shown, where it is
  shown ("where the result shows ..., it reads ..."), and that nothing but
  the credential is masked ("... shows [credential] at most once").

  The harness stores a distinctive credential for each gateway; `{{credential}}`
  in a stub stands for it, `{{credential_json}}` and `{{credential_percent}}`
  for its JSON-escaped and percent-encoded forms.

  @TC-MASK-001
  Scenario: The credential echoed in a JSON body reads [credential]
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "application/json" body:
      """
      {"user": "ada", "token": "{{credential}}", "hint": "yours is {{credential}}"}
      """
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And where the result shows "yours is ", it reads "yours is [credential]"
    And where the result shows "token", it reads "[credential]"

  @TC-MASK-001
  Scenario: The credential echoed in a text body reads [credential], every time
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          token: {type: http, scheme: bearer}
      security: [{token: []}]
      paths:
        /debug:
          get:
            operationId: debug
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/debug" with status 200 and the "text/plain" body:
      """
      Authorization: Bearer {{credential}}
      again:{{credential}}{{credential}}
      """
    When the client calls "debug" with {}
    Then the result does not show the credential
    And where the result shows "Authorization: Bearer ", it reads "Authorization: Bearer [credential]"
    And where the result shows "again:", it reads "again:[credential][credential]"

  @TC-MASK-002
  Scenario Outline: The credential echoed in a <status> error body reads [credential]
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status <status> and the "text/plain" body "key {{credential}} is not valid"
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And where the result shows " is not valid", it reads "key [credential] is not valid"

    Examples:
      | status |
      | 401    |
      | 403    |
      | 500    |

  @TC-MASK-002
  Scenario Outline: The credential in a header, echoed in an error body, reads [credential]: <scheme>
    The same rule judged where the credential goes in a header: a gateway
    that cannot put one in the query is judged here too.

    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: <scheme>
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 401 and the "text/plain" body "key {{credential}} is not valid"
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And where the result shows " is not valid", it reads "key [credential] is not valid"

    Examples:
      | scheme                                      |
      | {type: apiKey, in: header, name: X-Api-Key} |
      | {type: http, scheme: bearer}                |

  @TC-MASK-003
  Scenario: The credential in a redirect's Location reads [credential]
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 302 and the "Location" header "{{base_url}}/login?api_key={{credential}}&next=%2Fwhoami"
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And the redirect was not followed, which TC-SEND-003 requires
    And the result shows "&next=%2Fwhoami", which TC-ANS-007 requires
    And where the result shows "&next=%2Fwhoami", it reads "{{base_url}}/login?api_key=[credential]&next=%2Fwhoami"

  @TC-MASK-003
  Scenario Outline: The credential of a header, in a redirect's Location, reads [credential]: <scheme>
    An API that puts the credential it was sent into the Location it
    answers with: the same rule, judged where the credential goes in a
    header.

    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: <scheme>
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 302 and the "Location" header "{{base_url}}/login?token={{credential}}&next=%2Fwhoami"
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And the redirect was not followed, which TC-SEND-003 requires
    And the result shows "&next=%2Fwhoami", which TC-ANS-007 requires
    And where the result shows "&next=%2Fwhoami", it reads "{{base_url}}/login?token=[credential]&next=%2Fwhoami"

    Examples:
      | scheme                                      |
      | {type: apiKey, in: header, name: X-Api-Key} |
      | {type: http, scheme: bearer}                |

  @TC-MASK-004
  Scenario Outline: The credential split across two chunks is still masked (<content type>)
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/whoami" with status <status> and a "<content type>" body that splits the credential across two chunks
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And where the result shows " after", it reads "before [credential] after"

    Examples:
      | status | content type |
      | 200    | text/plain   |
      | 200    | text/csv     |

  @TC-MASK-005 @recommended
  Scenario: No piece of the credential is left at the 1 MB cut
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /dump:
          get:
            operationId: dump
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/dump" with status 200 and a "text/plain" body that puts the credential across the 1 MB cut
    When the client calls "dump" with {}
    Then the result shows no piece of the credential 6 characters long

  @TC-MASK-005 @recommended
  Scenario: No piece of the credential's escaped form is left at the 1 MB cut
    Written as JSON escapes, the credential is six times as long as it is
    plain, and its first half falls before the cut.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /dump:
          get:
            operationId: dump
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/dump" with status 200 and a "text/plain" body that puts the credential across the 1 MB cut, each character JSON-escaped
    When the client calls "dump" with {}
    Then the result shows no piece of the credential 6 characters long

  @TC-MASK-006 @recommended
  Scenario Outline: The credential's <form> form is masked too
    Given the stored credential is 'sk/live+Q7"z=9k'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "echo: <echo>"
    When the client calls "whoami" with {}
    Then the result does not contain "<echo>"
    And where the result shows "echo: ", it reads "echo: [credential]"
    And the result shows [credential] at most once

    Examples:
      | form                                | echo                         |
      | percent-encoded                     | {{credential_percent}}       |
      | lower-case percent-encoded          | {{credential_percent_lower}} |
      | percent-encoded but for the slash   | {{credential_percent_path}}  |
      | JSON-escaped                        | {{credential_json}}          |
      | JSON-escaped with an escaped slash  | {{credential_json_slash}}    |
      | JSON-escaped character by character | {{credential_json_unicode}}  |

  @TC-MASK-006 @recommended
  Scenario Outline: A basic credential's <form> is masked too
    Given the stored credential is 'ada:pa/ss+w=rd@1'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          login: {type: http, scheme: basic}
      security: [{login: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "echo: <echo>"
    When the client calls "whoami" with {}
    Then the result does not contain "<echo>"
    And where the result shows "echo: ", it reads "echo: [credential]"
    And the result shows [credential] at most once

    Examples:
      | form                | echo                    |
      | base64 form         | {{credential_base64}}   |
      | password on its own | {{credential_password}} |
      | escaped password    | pa\\/ss+w=rd@1         |

  @TC-MASK-006 @recommended
  Scenario Outline: A basic password is masked however it is escaped: <form>
    A JSON encoder always doubles a backslash, and one that keeps to ASCII
    writes every other character as a \u escape, beyond the first plane as
    a surrogate pair, in either hex case. The percent-encoded echo ends the
    body on an encoded byte.
    Given the stored credential is '<credential>'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          login: {type: http, scheme: basic}
      security: [{login: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "echo: <echo>"
    When the client calls "whoami" with {}
    Then the result does not contain "<echo>"
    And where the result shows "echo: ", it reads "echo: [credential]"
    And the result shows [credential] at most once

    Examples:
      | form                                 | credential     | echo                     |
      | a backslash doubled                  | ada:pa\\wo/rd@ | pa\\\\wo/rd@             |
      | a backslash doubled, a slash escaped | ada:pa\\wo/rd@ | pa\\\\wo\\/rd@           |
      | percent-encoded to its last byte     | ada:pa\\wo/rd@ | pa%5Cwo%2Frd%40          |
      | a letter beyond ASCII, escaped       | ada:käse-brot  | k\\u00e4se-brot          |
      | beyond the first plane, as a pair    | ada:kä😀se      | k\\u00e4\\ud83d\\ude00se |
      | the pair in upper-case hex           | ada:kä😀se      | k\\u00E4\\uD83D\\uDE00se |

  @TC-MASK-006 @recommended
  Scenario Outline: A basic password with a control character is masked in its JSON escape: <escape>
    A JSON encoder writes a tab, a newline, a carriage return, a backspace
    and a form feed as two-character escapes.
    Given the stored credential is the JSON string <credential>
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          login: {type: http, scheme: basic}
      security: [{login: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "echo: <echo>"
    When the client calls "whoami" with {}
    Then the result does not contain "<echo>"
    And where the result shows "echo: ", it reads "echo: [credential]"
    And the result shows [credential] at most once

    Examples:
      | escape | credential          | echo          |
      | \\t    | "ada:tab\\tpass"    | tab\\tpass    |
      | \\n    | "ada:line\\npass"   | line\\npass   |
      | \\r    | "ada:cr\\rpass"     | cr\\rpass     |
      | \\b    | "ada:back\\bspace"  | back\\bspace  |
      | \\f    | "ada:feed\\fpass"   | feed\\fpass   |

  @TC-MASK-006 @recommended
  Scenario: A basic credential without a colon is masked in the base64 form it is sent in
    Given the stored credential is 'sk_live_42/Qx+9'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          secretKey: {type: http, scheme: basic}
      security: [{secretKey: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "sent: c2tfbGl2ZV80Mi9ReCs5Og=="
    When the client calls "whoami" with {}
    Then where the result shows "sent: ", it reads "sent: [credential]"
    And the result shows [credential] at most once

  @TC-MASK-006 @recommended
  Scenario: Every form in one body is masked, whatever order they come in
    Given the stored credential is 'sk/live+Q7"z=9k'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "a: {{credential}} b: {{credential_percent}} c: {{credential_json_unicode}} d: {{credential_percent_lower}} e: {{credential_json}} f: {{credential}}"
    When the client calls "whoami" with {}
    Then where the result shows "a: ", it reads "a: [credential] b: [credential] c: [credential] d: [credential] e: [credential] f: [credential]"

  @TC-MASK-006 @recommended
  Scenario: A form that begins with another form is masked whole
    The percent-encoded form of `tok3n%` is `tok3n%25`, which begins with
    the credential itself: the longer match must win.
    Given the stored credential is 'tok3n%'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "x: {{credential_percent}} y: {{credential}}"
    When the client calls "whoami" with {}
    Then where the result shows "x: ", it reads "x: [credential] y: [credential]"

  @TC-MASK-006 @recommended
  Scenario: The credential escaped inside a JSON body is masked
    Given the stored credential is 'sk/live+Q7"z=9k'
    And the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-Api-Key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "application/json" body:
      """
      {"token": "{{credential_json}}"}
      """
    When the client calls "whoami" with {}
    Then the result does not show the credential
    And the result does not contain "{{credential_json}}"
    And where the result shows "token", it reads "[credential]"

  @TC-MASK-007 @slow
  Scenario: A timeout message naming the URL does not show a query credential
    The answer comes after 20 seconds: a gateway that cuts it off at 15
    writes its own error, one that waits for it shows the answer.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers GET "/whoami" with status 200 and the "text/plain" body "late but here"
    And the upstream holds its answer on "/whoami" back for 20 seconds
    When the client calls "whoami" with {}
    Then the result does not show the credential

  @TC-MASK-007
  Scenario: A reset message naming the URL does not show a query credential
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream resets the connection on "/whoami"
    When the client calls "whoami" with {}
    Then the result does not show the credential

  @TC-MASK-007
  Scenario: A refused-connection message does not show a query credential
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the gateway is running, and nothing listens at the upstream's address any more
    When the client calls "whoami" with {}
    Then the result does not show the credential

  @TC-MASK-007
  Scenario: A message about an answer that is not HTTP does not show a query credential
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: {type: apiKey, in: query, name: api_key}
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/whoami" with bytes that are not HTTP
    When the client calls "whoami" with {}
    Then the result does not show the credential

  # The forms above need a credential in the URL; these judge the same rule
  # on a gateway that puts it in a header, where an error text that repeats
  # the request it sent, headers and all, shows it.
  @TC-MASK-007
  Scenario Outline: A reset message does not show a credential in a header: <scheme>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: <scheme>
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream resets the connection on "/whoami"
    When the client calls "whoami" with {}
    Then the result does not show the credential

    Examples:
      | scheme                                      |
      | {type: apiKey, in: header, name: X-Api-Key} |
      | {type: http, scheme: bearer}                |

  @TC-MASK-007
  Scenario Outline: A message about an answer that is not HTTP does not show a credential in a header: <scheme>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Account, version: "1"}
      components:
        securitySchemes:
          key: <scheme>
      security: [{key: []}]
      paths:
        /whoami:
          get:
            operationId: whoami
            responses: {"200": {description: ok}}
      """
    And the upstream answers "/whoami" with bytes that are not HTTP
    When the client calls "whoami" with {}
    Then the result does not show the credential

    Examples:
      | scheme                                      |
      | {type: apiKey, in: header, name: X-Api-Key} |
      | {type: http, scheme: bearer}                |
