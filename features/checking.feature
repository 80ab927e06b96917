Feature: Arguments are checked first
  Before a call sends anything, its arguments are checked against the tool's
  input schema. A failed check is a tool error that lists each wrong place as
  a JSON Pointer from the arguments object, never shows a value that was
  sent, and sends nothing upstream. Values nested deeper than 8 levels, and
  keywords outside the checked set, are left for the API to judge.

  Depth counts from the arguments object (depth 0): `/body` is at depth 1,
  `/body/next/leaf/label` at depth 4. A keyword that is about an object
  (`required`, `additionalProperties`) is tried with the object at depth 7,
  whose properties sit at depth 8, and at depth 9, so that the two ways of
  counting (the object's depth or the property's) agree on the outcome.

  "MARKER-7f3a" and 7734019 are values the gateway has no reason to repeat:
  they must never show up in an error.

  @TC-CHECK-001 @TC-CHECK-013
  Scenario Outline: A value of the wrong type is refused, naming the type expected: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          post:
            operationId: typed
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      text: {type: string}
                      whole: {type: integer}
                      number: {type: number}
                      flag: {type: boolean}
                      list: {type: array}
                      map: {type: object}
                      maybe: {type: [string, "null"]}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with <value> placed at "/body/<property>"
    Then the call is refused at "/body/<property>"
    And the result contains "<expected>"
    And the result does not contain "<sent>"
    And nothing reached the upstream

    Examples:
      | case                          | property | value                | sent        | expected |
      | a number for a string         | text     | 7734019              | 7734019     | string   |
      | a fraction for an integer     | whole    | 7734019.5            | 7734019     | integer  |
      | a string for an integer       | whole    | "7734019"            | 7734019     | integer  |
      | a string for a number         | number   | "MARKER-7f3a"        | MARKER-7f3a | number   |
      | a string for a boolean        | flag     | "MARKER-7f3a"        | MARKER-7f3a | boolean  |
      | an object for an array        | list     | {"k": "MARKER-7f3a"} | MARKER-7f3a | array    |
      | an array for an object        | map      | ["MARKER-7f3a"]      | MARKER-7f3a | object   |
      | a number where string or null | maybe    | 7734019              | 7734019     | string   |

  @TC-CHECK-001
  Scenario Outline: A value of the right type is sent: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          post:
            operationId: typed
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      whole: {type: integer}
                      number: {type: number}
                      maybe: {type: [string, "null"]}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with <value> placed at "/body/<property>"
    Then the request carried <value> at "/body/<property>"

    Examples:
      | case                           | property | value |
      | an integer for an integer      | whole    | 42    |
      | an integer for a number        | number   | 42    |
      | null where the type lists null | maybe    | null  |

  @TC-CHECK-001
  Scenario: A number with a zero fraction counts as an integer
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          post:
            operationId: typed
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      whole: {type: integer}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with 2.0 placed at "/body/whole"
    Then the upstream received exactly one request

  @TC-CHECK-001
  Scenario: OpenAPI 3.0 nullable admits null, and only there
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          post:
            operationId: typed
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      maybe: {type: string, nullable: true}
                      never: {type: string}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with {"body": {"maybe": null, "never": null}}
    Then the call is refused at "/body/never"
    And the result does not name "/body/maybe"
    When the client calls "typed" with {"body": {"maybe": null}}
    Then the request carried null at "/body/maybe"

  @TC-CHECK-002
  Scenario: Each missing required property is reported at its own pointer
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets/{petId}:
          put:
            operationId: putPet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: string}}
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    required: [name, owner]
                    properties:
                      name: {type: string}
                      note: {type: string}
                      owner:
                        type: object
                        required: [email]
                        properties: {email: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "putPet" with {"body": {"note": "MARKER-7f3a", "owner": {}}}
    Then the call is refused at each of:
      | /petId             |
      | /body/name         |
      | /body/owner/email  |
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream

  @TC-CHECK-002
  Scenario: A required body that is missing is reported at /body
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema: {type: object}
            responses: {"200": {description: ok}}
      """
    When the client calls "addPet" with {}
    Then the call is refused at "/body"
    And nothing reached the upstream

  @TC-CHECK-003
  Scenario: Properties that additionalProperties false forbids are reported at their own pointers
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            parameters:
              - {name: limit, in: query, schema: {type: integer}}
            requestBody:
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: false
                    properties: {name: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "addPet" with {"limit": 3, "verbose": "MARKER-7f3a", "body": {"name": "Rex", "colour": "MARKER-7f3a"}}
    Then the call is refused at each of:
      | /verbose     |
      | /body/colour |
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream

  @TC-CHECK-003
  Scenario: A schema-valued additionalProperties checks every extra property
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /labels:
          post:
            operationId: setLabels
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: {type: string, maxLength: 5}
            responses: {"200": {description: ok}}
      """
    When the client calls "setLabels" with {"body": {"colour": "red", "size": 7734019, "shape": "MARKER-7f3a"}}
    Then the call is refused at each of:
      | /body/size  |
      | /body/shape |
    And the result does not name "/body/colour"
    And the result does not contain "7734019"
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream
    When the client calls "setLabels" with {"body": {"colour": "red", "size": "L"}}
    Then the request carried {"colour": "red", "size": "L"} at "/body"

  @TC-CHECK-003
  Scenario: A property whose schema is false is refused; one whose schema is true takes anything
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      retired: false
                      anything: true
            responses: {"200": {description: ok}}
      """
    When the client calls "addPet" with {"body": {"retired": "MARKER-7f3a", "anything": {"x": [1]}}}
    Then the call is refused at "/body/retired"
    And the result does not name "/body/anything"
    And the result does not contain "MARKER-7f3a"
    When the client calls "addPet" with {"body": {"anything": {"x": [1]}}}
    Then the request carried {"anything": {"x": [1]}} at "/body"

  @TC-CHECK-004
  Scenario: Nested properties and array items are checked
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          post:
            operationId: addPet
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      owner:
                        type: object
                        properties:
                          address:
                            type: object
                            properties: {zip: {type: string}}
                      tags:
                        type: array
                        items: {type: string}
                      visits:
                        type: array
                        items:
                          type: object
                          properties: {year: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "addPet" with:
      """
      {"body": {
        "owner": {"address": {"zip": 7734019}},
        "tags": ["ok", "fine", 7734019],
        "visits": [{"year": 2020}, {"year": "MARKER-7f3a"}]
      }}
      """
    Then the call is refused at each of:
      | /body/owner/address/zip |
      | /body/tags/2            |
      | /body/visits/1/year     |
    And the result does not name "/body/tags/0"
    And the result does not name "/body/visits/0/year"
    And the result does not contain "7734019"
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream

  @TC-CHECK-004
  Scenario Outline: A referenced schema is checked, and so are keywords beside the $ref: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /codes:
          post:
            operationId: addCode
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      code: {$ref: "#/components/schemas/Code", maxLength: 5}
                      pet: {$ref: "#/components/schemas/Named", properties: {age: {type: integer}}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Code: {type: string, minLength: 3}
          Named: {type: object, required: [name]}
      """
    When the client calls "addCode" with <value> placed at "/body/<property>"
    Then the <outcome>

    Examples:
      | case                                 | property | value                     | outcome                                                    |
      | the referenced type                  | code     | 42                        | call is refused at "/body/code"                            |
      | the referenced minLength             | code     | "ab"                      | call is refused at "/body/code"                            |
      | the maxLength beside the $ref        | code     | "abcdef"                  | call is refused at "/body/code"                            |
      | a value that meets both              | code     | "abcd"                    | request carried "abcd" at "/body/code"                     |
      | the referenced required              | pet      | {"age": 3}                | call is refused at "/body/pet/name"                        |
      | the properties beside the $ref       | pet      | {"name": "Rex", "age": "old"} | call is refused at "/body/pet/age"                     |
      | an object that meets both            | pet      | {"name": "Rex", "age": 3} | request carried {"name": "Rex", "age": 3} at "/body/pet"   |

  @TC-CHECK-005
  Scenario: A value outside the enum is refused, one inside it is sent
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: kind, in: query, schema: {type: string, enum: [cat, dog]}}
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {"kind": "MARKER-7f3a"}
    Then the call is refused at "/kind"
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream
    When the client calls "listPets" with {"kind": "dog"}
    Then the upstream received exactly one request

  @TC-CHECK-005
  Scenario Outline: An enum member matches only itself: "<value>"
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: kind, in: query, schema: {type: string, enum: ["", cat, dog, parrot, labrador-retriever-puppy]}}
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {"kind": "<value>"}
    Then <outcome>

    Examples:
      | value  | outcome                                   |
      |        | the upstream received exactly one request |
      | cat    | the upstream received exactly one request |
      | parrot | the upstream received exactly one request |
      | cot    | the call is refused at "/kind"            |
      | bat    | the call is refused at "/kind"            |
      | caT    | the call is refused at "/kind"            |
      | Parrot | the call is refused at "/kind"            |
      | parroT | the call is refused at "/kind"            |
      | labrador-retriever-puppy | the upstream received exactly one request |
      | LABRADOR-retriever-puppy | the call is refused at "/kind"            |
      | labrador-RETRIEVer-puppy | the call is refused at "/kind"            |

  @TC-CHECK-005
  Scenario Outline: A long enum with short members is checked: <value>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /shirts:
          get:
            operationId: listShirts
            parameters:
              - name: size
                in: query
                schema: {type: string, enum: [xs, s, m, l, xl, xxl, 3xl, 4xl, 5xl, 6xl, extra-long-size-name]}
            responses: {"200": {description: ok}}
      """
    When the client calls "listShirts" with {"size": "<value>"}
    Then <outcome>

    Examples:
      | value                | outcome                                   |
      | m                    | the upstream received exactly one request |
      | xl                   | the upstream received exactly one request |
      | extra-long-size-name | the upstream received exactly one request |
      | q                    | the call is refused at "/size"            |
      | xxxl                 | the call is refused at "/size"            |
      | extra-long-size-nam  | the call is refused at "/size"            |
      |                      | the call is refused at "/size"            |

  @TC-CHECK-006
  Scenario: A value other than the const is refused, the const is sent
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: addThing
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      version: {const: v1}
            responses: {"200": {description: ok}}
      """
    When the client calls "addThing" with {"body": {"version": "MARKER-7f3a"}}
    Then the call is refused at "/body/version"
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream
    When the client calls "addThing" with {"body": {"version": "v1"}}
    Then the request carried "v1" at "/body/version"

  @TC-CHECK-006
  Scenario Outline: A const compares as JSON does, numbers by value: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: addThing
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      one: {const: 1}
                      shape: {const: [1, {"a": 2}]}
            responses: {"200": {description: ok}}
      """
    When the client calls "addThing" with <value> placed at "/body/<property>"
    Then <outcome>

    Examples:
      | case                          | property | value                     | outcome                                  |
      | 1.0 is 1                      | one      | 1.0                       | the upstream received exactly one request |
      | the same array and object     | shape    | [1, {"a": 2}]             | the upstream received exactly one request |
      | the same, numbers as 1.0, 2.0 | shape    | [1.0, {"a": 2.0}]         | the upstream received exactly one request |
      | an array one item short       | shape    | [1]                       | the call is refused at "/body/shape"     |
      | an array one item long        | shape    | [1, {"a": 2}, 3]          | the call is refused at "/body/shape"     |
      | an object with one key more   | shape    | [1, {"a": 2, "b": 3}]     | the call is refused at "/body/shape"     |
      | another number inside         | shape    | [1, {"a": 3}]             | the call is refused at "/body/shape"     |

  @TC-CHECK-007
  Scenario Outline: String lengths count characters, not bytes: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /names:
          post:
            operationId: addName
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      short: {type: string, maxLength: 4}
                      long: {type: string, minLength: 4}
            responses: {"200": {description: ok}}
      """
    When the client calls "addName" with "<value>" placed at "/body/<property>"
    Then the <outcome>

    Examples:
      | case                                   | property | value | outcome                                 |
      | 4 two-byte characters fit maxLength 4  | short    | éééé  | request carried "éééé" at "/body/short" |
      | 4 emoji (16 bytes) fit maxLength 4     | short    | 🐶🐱🐭🐹  | request carried "🐶🐱🐭🐹" at "/body/short" |
      | 5 characters exceed maxLength 4        | short    | ééééé | call is refused at "/body/short"        |
      | 3 two-byte characters miss minLength 4 | long     | ééé   | call is refused at "/body/long"         |
      | 3 emoji (12 bytes) miss minLength 4    | long     | 🐶🐱🐭   | call is refused at "/body/long"         |
      | 4 characters meet minLength 4          | long     | abcd  | request carried "abcd" at "/body/long"  |

  @TC-CHECK-008
  Scenario Outline: Item counts are checked: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /tags:
          post:
            operationId: setTags
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      tags: {type: array, minItems: 2, maxItems: 3, items: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "setTags" with <value> placed at "/body/tags"
    Then the <outcome>

    Examples:
      | case                  | value                  | outcome                                                      |
      | one item is too few   | ["a"]                  | call is refused at "/body/tags"                              |
      | four items, too many  | ["a", "b", "c", "d"]   | call is refused at "/body/tags"                              |
      | two items are enough  | ["a", "b"]             | request carried ["a", "b"] at "/body/tags"                   |
      | three items fit       | ["a", "b", "c"]        | request carried ["a", "b", "c"] at "/body/tags"              |

  @TC-CHECK-009
  Scenario Outline: Ranges are checked at their bounds: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /measure:
          post:
            operationId: measure
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      closed: {type: integer, minimum: 1, maximum: 10}
                      open: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
            responses: {"200": {description: ok}}
      """
    When the client calls "measure" with <value> placed at "/body/<property>"
    Then the <outcome>

    Examples:
      | case                              | property | value | outcome                                   |
      | below the minimum                 | closed   | 0     | call is refused at "/body/closed"         |
      | at the minimum                    | closed   | 1     | request carried 1 at "/body/closed"       |
      | at the maximum                    | closed   | 10    | request carried 10 at "/body/closed"      |
      | above the maximum                 | closed   | 11    | call is refused at "/body/closed"         |
      | at the exclusive minimum          | open     | 0     | call is refused at "/body/open"           |
      | just above the exclusive minimum  | open     | 0.001 | request carried 0.001 at "/body/open"     |
      | just below the exclusive maximum  | open     | 0.999 | request carried 0.999 at "/body/open"     |
      | at the exclusive maximum          | open     | 1     | call is refused at "/body/open"           |

  @TC-CHECK-009
  Scenario: OpenAPI 3.0 boolean exclusive bounds are checked
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Checks, version: "1"}
      paths:
        /measure:
          get:
            operationId: measure
            parameters:
              - name: level
                in: query
                schema: {type: integer, minimum: 0, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: true}
            responses: {"200": {description: ok}}
      """
    When the client calls "measure" with {"level": 0}
    Then the call is refused at "/level"
    When the client calls "measure" with {"level": 5}
    Then the call is refused at "/level"
    When the client calls "measure" with {"level": 4}
    Then the upstream received exactly one request

  @TC-CHECK-010
  Scenario Outline: Formats are checked: <format>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /events:
          post:
            operationId: addEvent
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      at: {type: string, format: <format>}
            responses: {"200": {description: ok}}
      """
    When the client calls "addEvent" with "MARKER-7f3a" placed at "/body/at"
    Then the call is refused at "/body/at"
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream
    When the client calls "addEvent" with "<valid>" placed at "/body/at"
    Then the request carried "<valid>" at "/body/at"

    Examples:
      | format    | valid                                |
      | date-time | 2024-05-01T10:00:00Z                 |
      | date-time | 2024-05-01T10:00:00.5+02:00          |
      | date-time | 2016-12-31T23:59:60Z                 |
      | date-time | 2024-01-01T23:59:59-08:00            |
      | date-time | 2024-01-01T00:00:00-23:59            |
      | date      | 2024-02-29                           |
      | email     | ada@example.com                      |
      | uuid      | 4f1c2d9e-8b7a-4c3d-9e2f-1a2b3c4d5e6f |

  @TC-CHECK-010 @TC-CHECK-013
  Scenario Outline: Values that look close but break the format are refused: <format> "<invalid>"
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /events:
          post:
            operationId: addEvent
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      at: {type: string, format: <format>}
            responses: {"200": {description: ok}}
      """
    When the client calls "addEvent" with "<invalid>" placed at "/body/at"
    Then the call is refused at "/body/at"
    And the result contains "<format>"
    And nothing reached the upstream

    Examples:
      | format    | invalid                             |
      | date-time | 2024-05-01                          |
      | date-time | 2024-05-01 10:00:00                 |
      | date-time | 2024-13-01T10:00:00Z                |
      | date      | 2024-05-01T10:00:00Z                |
      | date      | 01/05/2024                          |
      | date      | 2023-02-29                          |
      | date      | 1900-02-29                          |
      | date      | 2024-05-1:                          |
      | date      | 2024-04-31                          |
      | date      | 2024-05-32                          |
      | date-time | 2024-05-01T24:00:00Z                |
      | date-time | 2024-05-01T10:60:00Z                |
      | date-time | 2024-05-01T10:00:61Z                |
      | date-time | 2024-05-01T10:00:00+24:00           |
      | date-time | 2024-05-01T10:00:00+02:60           |
      | email     | @example.com                        |
      | email     | ada@                                |
      | email     | ada@b@example.com                   |
      | email     | ada@.example.com                    |
      | email     | ada@example.com.                    |
      | email     | ada lovelace@example.com            |
      | email     | ada.example.com                     |
      | uuid      | 4f1c2d9e-8b7a-4c3d-9e2f-1a2b3c4d5e6 |
      | uuid      | 4f1c2d9e8b7a4c3d9e2f1a2b3c4d5e6f0   |

  @TC-CHECK-011
  Scenario Outline: <problem> at depth 8 is refused
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: deep
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Node:
            type: object
            properties:
              next: {$ref: '#/components/schemas/Node'}
              leaf: {$ref: '#/components/schemas/Leaf'}
          Leaf:
            type: object
            additionalProperties: false
            required: [label]
            properties:
              label: {type: string, maxLength: 5}
              code: {type: string, minLength: 12}
              count: {type: integer, minimum: 1, maximum: 10}
              ratio: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
              kind: {enum: [cat, dog]}
              fixed: {const: v1}
              tags: {type: array, minItems: 2, maxItems: 3, items: {type: string}}
              when: {type: string, format: date-time}
              day: {type: string, format: date}
              mail: {type: string, format: email}
              id: {type: string, format: uuid}
      """
    When the client calls "deep" with <leaf> placed at "/body/next/next/next/next/next/leaf"
    Then the call is refused at "/body/next/next/next/next/next/leaf/<place>"
    And the result does not contain "<sent>"
    And nothing reached the upstream

    Examples:
      | problem                          | leaf                                                   | place  | sent        |
      | A wrong type                     | {"label": 7734019}                                     | label  | 7734019     |
      | A missing required property      | {"code": "MARKER-7f3a-ok"}                             | label  | MARKER-7f3a |
      | A property no schema allows      | {"label": "ok", "extra": "MARKER-7f3a"}                | extra  | MARKER-7f3a |
      | A value outside the enum         | {"label": "ok", "kind": "MARKER-7f3a"}                 | kind   | MARKER-7f3a |
      | A value other than the const     | {"label": "ok", "fixed": "MARKER-7f3a"}                | fixed  | MARKER-7f3a |
      | A string over maxLength          | {"label": "MARKER-7f3a"}                               | label  | MARKER-7f3a |
      | A string under minLength         | {"label": "ok", "code": "MARKER-7f3a"}                 | code   | MARKER-7f3a |
      | Too few items                    | {"label": "ok", "tags": ["MARKER-7f3a"]}               | tags   | MARKER-7f3a |
      | Too many items                   | {"label": "ok", "tags": ["MARKER-7f3a", "b", "c", "d"]} | tags   | MARKER-7f3a |
      | A number under the minimum       | {"label": "ok", "count": -7734019}                     | count  | 7734019     |
      | A number over the maximum        | {"label": "ok", "count": 7734019}                      | count  | 7734019     |
      | A number under exclusiveMinimum  | {"label": "ok", "ratio": -7734019}                     | ratio  | 7734019     |
      | A number over exclusiveMaximum   | {"label": "ok", "ratio": 7734019}                      | ratio  | 7734019     |
      | A bad date-time                  | {"label": "ok", "when": "MARKER-7f3a"}                 | when   | MARKER-7f3a |
      | A bad date                       | {"label": "ok", "day": "MARKER-7f3a"}                  | day    | MARKER-7f3a |
      | A bad email                      | {"label": "ok", "mail": "MARKER-7f3a"}                 | mail   | MARKER-7f3a |
      | A bad uuid                       | {"label": "ok", "id": "MARKER-7f3a"}                   | id     | MARKER-7f3a |

  @TC-CHECK-011
  Scenario Outline: <problem> at depth 9 is not checked, and is sent as it is
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: deep
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Node:
            type: object
            properties:
              next: {$ref: '#/components/schemas/Node'}
              leaf: {$ref: '#/components/schemas/Leaf'}
          Leaf:
            type: object
            additionalProperties: false
            required: [label]
            properties:
              label: {type: string, maxLength: 5}
              code: {type: string, minLength: 12}
              count: {type: integer, minimum: 1, maximum: 10}
              ratio: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}
              kind: {enum: [cat, dog]}
              fixed: {const: v1}
              tags: {type: array, minItems: 2, maxItems: 3, items: {type: string}}
              when: {type: string, format: date-time}
              day: {type: string, format: date}
              mail: {type: string, format: email}
              id: {type: string, format: uuid}
      """
    When the client calls "deep" with <leaf> placed at "/body/next/next/next/next/next/next/leaf"
    Then the request carried <leaf> at "/body/next/next/next/next/next/next/leaf"

    Examples:
      | problem                          | leaf                                                   |
      | A wrong type                     | {"label": 7734019}                                     |
      | A value outside the enum         | {"label": "ok", "kind": "MARKER-7f3a"}                 |
      | A value other than the const     | {"label": "ok", "fixed": "MARKER-7f3a"}                |
      | A string over maxLength          | {"label": "MARKER-7f3a"}                               |
      | A string under minLength         | {"label": "ok", "code": "MARKER-7f3a"}                 |
      | Too few items                    | {"label": "ok", "tags": ["MARKER-7f3a"]}               |
      | Too many items                   | {"label": "ok", "tags": ["MARKER-7f3a", "b", "c", "d"]} |
      | A wrong item type                | {"label": "ok", "tags": [7734019, "b"]}                |
      | A number under the minimum       | {"label": "ok", "count": -7734019}                     |
      | A number over the maximum        | {"label": "ok", "count": 7734019}                      |
      | A number under exclusiveMinimum  | {"label": "ok", "ratio": -7734019}                     |
      | A number over exclusiveMaximum   | {"label": "ok", "ratio": 7734019}                      |
      | A bad date-time                  | {"label": "ok", "when": "MARKER-7f3a"}                 |
      | A bad date                       | {"label": "ok", "day": "MARKER-7f3a"}                  |
      | A bad email                      | {"label": "ok", "mail": "MARKER-7f3a"}                 |
      | A bad uuid                       | {"label": "ok", "id": "MARKER-7f3a"}                   |

  @TC-CHECK-011
  Scenario Outline: <problem> inside an object at depth 9 is not checked
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: deep
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Node:
            type: object
            properties:
              next: {$ref: '#/components/schemas/Node'}
              leaf: {$ref: '#/components/schemas/Leaf'}
          Leaf:
            type: object
            additionalProperties: false
            required: [label]
            properties:
              label: {type: string, maxLength: 5}
      """
    When the client calls "deep" with <leaf> placed at "/body/next/next/next/next/next/next/next/leaf"
    Then the request carried <leaf> at "/body/next/next/next/next/next/next/next/leaf"

    Examples:
      | problem                     | leaf                                    |
      | A missing required property | {}                                      |
      | A property no schema allows | {"label": "ok", "extra": "MARKER-7f3a"} |

  @TC-CHECK-011
  Scenario: Array items at depth 8 are checked
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: deep
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Node:
            type: object
            properties:
              next: {$ref: '#/components/schemas/Node'}
              counts: {type: array, items: {type: integer, maximum: 10}}
              pairs: {type: array, items: {type: object, properties: {n: {type: integer}}}}
      """
    When the client calls "deep" with [1, "MARKER-7f3a", 99] placed at "/body/next/next/next/next/next/counts"
    Then the call is refused at each of:
      | /body/next/next/next/next/next/counts/1 |
      | /body/next/next/next/next/next/counts/2 |
    And the result does not contain "MARKER-7f3a"

  @TC-CHECK-011
  Scenario: Array items at depth 9 are not checked
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: deep
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Node:
            type: object
            properties:
              next: {$ref: '#/components/schemas/Node'}
              counts: {type: array, items: {type: integer, maximum: 10}}
              pairs: {type: array, items: {type: object, properties: {n: {type: integer}}}}
      """
    When the client calls "deep" with [1, "MARKER-7f3a", 99] placed at "/body/next/next/next/next/next/next/counts"
    Then the request carried [1, "MARKER-7f3a", 99] at "/body/next/next/next/next/next/next/counts"

  @TC-CHECK-011
  Scenario: Members of array items at depth 8 are at depth 9, not checked
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: deep
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Node:
            type: object
            properties:
              next: {$ref: '#/components/schemas/Node'}
              counts: {type: array, items: {type: integer, maximum: 10}}
              pairs: {type: array, items: {type: object, properties: {n: {type: integer}}}}
      """
    When the client calls "deep" with [{"n": "MARKER-7f3a"}] placed at "/body/next/next/next/next/next/pairs"
    Then the request carried [{"n": "MARKER-7f3a"}] at "/body/next/next/next/next/next/pairs"

  @TC-CHECK-012
  Scenario Outline: A keyword outside the checked set is left to the API: <keyword>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          post:
            operationId: addThing
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    properties:
                      value: <schema>
            responses: {"200": {description: ok}}
      """
    When the client calls "addThing" with <value> placed at "/body/value"
    Then the request carried <value> at "/body/value"

    Examples:
      | keyword     | schema                                                     | value         |
      | pattern     | {type: string, pattern: '^[a-z]+$'}                        | "MARKER-7f3a" |
      | multipleOf  | {type: integer, multipleOf: 5}                             | 7             |
      | uniqueItems | {type: array, uniqueItems: true}                           | [1, 1]        |
      | oneOf       | {oneOf: [{type: integer}, {type: boolean}]}                | "MARKER-7f3a" |
      | anyOf       | {anyOf: [{type: integer}, {type: boolean}]}                | "MARKER-7f3a" |
      | allOf       | {allOf: [{type: integer}]}                                 | "MARKER-7f3a" |
      | not         | {not: {type: string}}                                      | "MARKER-7f3a" |
      | format ipv4 | {type: string, format: ipv4}                               | "MARKER-7f3a" |
      | format uri  | {type: string, format: uri}                                | "not a uri"   |

  @TC-CHECK-013
  Scenario: Every wrong place is listed, each with what is wrong
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets/{petId}:
          patch:
            operationId: patchPet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: integer}}
              - {name: dryRun, in: query, schema: {type: boolean}}
            requestBody:
              required: true
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: false
                    required: [name]
                    properties:
                      name: {type: string}
                      age: {type: integer, minimum: 0}
                      tags: {type: array, items: {type: string, maxLength: 3}}
            responses: {"200": {description: ok}}
      """
    When the client calls "patchPet" with:
      """
      {"petId": "MARKER-7f3a", "dryRun": "MARKER-7f3a",
       "body": {"age": -1, "tags": ["ok", "MARKER-7f3a"], "colour": "MARKER-7f3a"}}
      """
    Then the call is refused at each of:
      | /petId        |
      | /dryRun       |
      | /body/name    |
      | /body/age     |
      | /body/tags/1  |
      | /body/colour  |
    And each place the result names comes with what is wrong
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream

  @TC-CHECK-014
  Scenario Outline: The error never shows the value sent: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /secrets:
          post:
            operationId: store
            parameters:
              - {name: token, in: query, schema: {type: string, format: uuid}}
            requestBody:
              content:
                application/json:
                  schema:
                    type: object
                    additionalProperties: false
                    properties:
                      pin: {type: string, maxLength: 4}
                      kind: {enum: [a, b]}
            responses: {"200": {description: ok}}
      """
    When the client calls "store" with <arguments>
    Then the call is refused at "<place>"
    And the result does not contain "MARKER-7f3a"
    And nothing reached the upstream

    Examples:
      | case                 | arguments                                          | place           |
      | a bad format         | {"token": "MARKER-7f3a"}                           | /token          |
      | a long string        | {"body": {"pin": "MARKER-7f3a"}}                   | /body/pin       |
      | an enum miss         | {"body": {"kind": "MARKER-7f3a"}}                  | /body/kind      |
      | an unexpected member | {"body": {"extra": "MARKER-7f3a"}}                 | /body/extra     |
      | a wrong type         | {"body": {"pin": ["MARKER-7f3a"]}}                 | /body/pin       |
      | an unknown argument  | {"note": "MARKER-7f3a"}                            | /note           |

  @TC-CHECK-015
  Scenario: After a failed check not a single byte goes upstream, even for a valid part
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets/{petId}:
          delete:
            operationId: deletePet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: integer, minimum: 1}}
              - {name: reason, in: query, schema: {type: string}}
            responses: {"204": {description: gone}}
      """
    And the upstream answers DELETE "/pets/0" with status 204
    When the client calls "deletePet" with {"petId": 0, "reason": "MARKER-7f3a"}
    Then the call is refused at "/petId"
    And nothing reached the upstream
