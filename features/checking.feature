Feature: Arguments are checked first
  Before a call sends anything, its arguments are checked against the tool's
  input schema. A failed check is a tool error that lists each wrong place as
  a JSON Pointer from the arguments object, never shows a value that was
  sent, and sends nothing upstream. Values nested deeper than 8 levels, and
  keywords outside the checked set, are left for the API to judge.

  Each rule is judged on its own: the scenarios of a kind of check ask only
  whether a wrong value is refused and a right one sent (each call in a
  scenario of its own); where the error names the place, and that it never
  shows the value and sends nothing, are judged by TC-CHECK-013, TC-CHECK-014
  and TC-CHECK-015, with an example of every kind of check. Values are given
  as query parameters wherever nothing nested has to be sent: only a request
  body (TC-ARG-003's argument) carries values deeper than one level.

  Depth counts from the arguments object (depth 0): `/body` is at depth 1,
  `/body/0/next/leaf/label` at depth 5. The deep scenarios send an array of
  nodes as the body: an object body's properties are sometimes offered as
  arguments of their own (against TC-ARG-003), an array's never are. A keyword that is about an object
  (`required`, `additionalProperties`) is tried with the object at depth 7,
  whose properties sit at depth 8, and at depth 9, so that the two ways of
  counting (the object's depth or the property's) agree on the outcome.

  "MARKER-7f3a" and 7734019 are values the gateway has no reason to repeat:
  they must never show up in an error.

  The upstream answers every request with success (the Background), so an
  error result is the gateway's own refusal, never the API's answer to a
  value that went through unchecked.

  Background:
    Given the upstream answers every request with status 200

  @TC-CHECK-001
  Scenario Outline: A value is checked against its type: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          get:
            operationId: typed
            parameters:
              - {name: text, in: query, schema: {type: string}}
              - {name: whole, in: query, schema: {type: integer}}
              - {name: number, in: query, schema: {type: number}}
              - {name: flag, in: query, schema: {type: boolean}}
              - {name: list, in: query, schema: {type: array}}
              - {name: map, in: query, schema: {type: object}}
              - {name: maybe, in: query, schema: {type: [string, "null"]}}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with <value> placed at "/<property>"
    Then the call <outcome>

    Examples: A value of the wrong type is refused
      | case                          | property | value                | outcome    |
      | a number for a string         | text     | 7734019              | is refused |
      | a fraction for an integer     | whole    | 7734019.5            | is refused |
      | a string for an integer       | whole    | "7734019"            | is refused |
      | a string for a number         | number   | "MARKER-7f3a"        | is refused |
      | a string for a boolean        | flag     | "MARKER-7f3a"        | is refused |
      | an object for an array        | list     | {"k": "MARKER-7f3a"} | is refused |
      | an array for an object        | map      | ["MARKER-7f3a"]      | is refused |
      | a number where string or null | maybe    | 7734019              | is refused |
      | null for a string             | text     | null                 | is refused |

    Examples: A value of the right type is sent
      | case                                  | property | value       | outcome              |
      | a string for a string                 | text     | "words"     | reached the upstream |
      | an integer for an integer             | whole    | 42          | reached the upstream |
      | a number with a zero fraction         | whole    | 2.0         | reached the upstream |
      | an integer for a number               | number   | 42          | reached the upstream |
      | a fraction for a number               | number   | 4.5         | reached the upstream |
      | a boolean for a boolean               | flag     | false       | reached the upstream |
      | an array for an array                 | list     | ["a", "b"]  | reached the upstream |
      | an object for an object               | map      | {"k": "v"}  | reached the upstream |
      | a string where the type lists null    | maybe    | "words"     | reached the upstream |
      | null where the type lists null        | maybe    | null        | reached the upstream |

  @TC-CHECK-001
  Scenario Outline: OpenAPI 3.0 nullable admits null, and only there: <case>
    The outcome for "maybe" is judged where the gateway published nullable
    as a type that admits null (TC-SCHEMA-003's matter).
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          get:
            operationId: typed
            parameters:
              - {name: maybe, in: query, schema: {type: string, nullable: true}}
              - {name: never, in: query, schema: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with <arguments>
    Then the call <outcome>

    Examples:
      | case                    | arguments       | outcome                                                                                                                                 |
      | null where nullable     | {"maybe": null} | reached the upstream, where the input schema of "typed" has "/properties/maybe/type" equal to ["string", "null"], as TC-SCHEMA-003 asks |
      | null where not nullable | {"never": null} | is refused                                                                                                                              |

  @TC-CHECK-002
  Scenario: Each missing required property is reported at its own pointer
    The owner's `id` is required though its `properties` do not describe it,
    and missing while every property they describe as required is there.
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
              - {name: name, in: query, required: true, schema: {type: string}}
              - {name: note, in: query, schema: {type: string}}
              - name: owner
                in: query
                required: true
                schema:
                  type: object
                  required: [email, id]
                  properties: {email: {type: string}, phone: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "putPet" with {"note": "MARKER-7f3a", "owner": {"email": "ada@example.com", "phone": "123"}}
    Then the call is refused at each of:
      | /petId    |
      | /name     |
      | /owner/id |

  @TC-CHECK-002
  Scenario: A required body that is missing is reported at /body
    Judged where the gateway publishes the body as the required argument
    "body" (TC-ARG-003's matter).
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
    Then the call is refused at "/body", where the input schema of "addPet" has "/required" equal to ["body"], as TC-ARG-003 asks

  @TC-CHECK-003
  Scenario: A property that additionalProperties false forbids is reported at its own pointer
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - name: filter
                in: query
                schema:
                  type: object
                  additionalProperties: false
                  properties: {name: {type: string}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findPets" with {"filter": {"name": "Rex", "colour": "MARKER-7f3a", "size": "L"}}
    Then the call is refused at each of:
      | /filter/colour |
      | /filter/size   |
    And the result does not name "/filter/name"

  @TC-CHECK-003
  Scenario: An argument the tool does not have is reported at its own pointer
    Judged where the input schema forbids other arguments, as TC-SCHEMA-001
    says it must.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: limit, in: query, schema: {type: integer}}
            responses: {"200": {description: ok}}
      """
    When the client calls "listPets" with {"limit": 3, "verbose": "MARKER-7f3a"}
    Then the call is refused at "/verbose", where the input schema of "listPets" has "/additionalProperties" equal to false, as TC-SCHEMA-001 asks

  @TC-CHECK-003
  Scenario: A schema-valued additionalProperties checks every extra property
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /labels:
          get:
            operationId: findLabels
            parameters:
              - name: labels
                in: query
                schema:
                  type: object
                  properties: {colour: {type: integer}}
                  additionalProperties: {type: string}
            responses: {"200": {description: ok}}
      """
    When the client calls "findLabels" with {"labels": {"colour": 1, "size": 7734019, "shape": true, "fit": "L"}}
    Then the call is refused at each of:
      | /labels/size  |
      | /labels/shape |
    And the result does not name "/labels/colour"
    And the result does not name "/labels/fit"

  @TC-CHECK-003
  Scenario: Extra properties that fit a schema-valued additionalProperties are sent
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /labels:
          get:
            operationId: findLabels
            parameters:
              - name: labels
                in: query
                schema:
                  type: object
                  properties: {colour: {type: integer}}
                  additionalProperties: {type: string}
            responses: {"200": {description: ok}}
      """
    When the client calls "findLabels" with {"labels": {"colour": 1, "size": "L"}}
    Then the call reached the upstream

  @TC-CHECK-003
  Scenario: A property whose schema is false is refused
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - name: pet
                in: query
                schema:
                  type: object
                  properties:
                    retired: false
                    anything: true
            responses: {"200": {description: ok}}
      """
    When the client calls "findPets" with {"pet": {"retired": "MARKER-7f3a", "anything": 5}}
    Then the call is refused at "/pet/retired"
    And the result does not name "/pet/anything"

  @TC-CHECK-003
  Scenario Outline: A property whose schema is true takes anything: <value>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - name: pet
                in: query
                schema:
                  type: object
                  properties:
                    retired: false
                    anything: true
            responses: {"200": {description: ok}}
      """
    When the client calls "findPets" with <value> placed at "/pet/anything"
    Then the call reached the upstream

    Examples:
      | value  |
      | 5      |
      | "five" |
      | true   |

  @TC-CHECK-003
  Scenario Outline: A member no pattern can name is still additional: <pattern>
    TC-CHECK-016 admits what a patternProperties pattern names; every
    other member stays additional. Each pattern reads the same in every
    regular-expression dialect, and none can match "colour".
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: findThings
            parameters:
              - name: filter
                in: query
                schema:
                  type: object
                  properties: {name: {type: string}}
                  patternProperties: {'<pattern>': {type: string}}
                  additionalProperties: false
            responses: {"200": {description: ok}}
      """
    When the client calls "findThings" with {"filter": {"name": "Rex", "colour": "MARKER-7f3a"}}
    Then the call is refused at "/filter/colour"
    And the result does not name "/filter/name"

    Examples:
      | pattern            |
      | ^x-                |
      | -id$               |
      | ^x-[a-z]+$         |
      | ^x-[^\|]+$         |
      | ^x-(trace\|span)$  |
      | ^x\\[              |

  @TC-CHECK-004
  Scenario Outline: Nested properties and array items are checked: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /pets:
          get:
            operationId: findPets
            parameters:
              - name: owner
                in: query
                schema:
                  type: object
                  properties: {zip: {type: string}}
              - name: tags
                in: query
                schema:
                  type: array
                  items: {type: string}
            responses: {"200": {description: ok}}
      """
    When the client calls "findPets" with <arguments>
    Then the call <outcome>

    Examples:
      | case                                | arguments                         | outcome              |
      | a nested property of the wrong type | {"owner": {"zip": 7734019}}       | is refused           |
      | a nested property of the right type | {"owner": {"zip": "12345"}}       | reached the upstream |
      | an array item of the wrong type     | {"tags": ["ok", "fine", 7734019]} | is refused           |
      | array items of the right type       | {"tags": ["ok", "fine"]}          | reached the upstream |

  @TC-CHECK-004
  Scenario Outline: A referenced schema is checked, and so are keywords beside the $ref: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /codes:
          get:
            operationId: findCodes
            parameters:
              - {name: code, in: query, schema: {$ref: "#/components/schemas/Code", maxLength: 5}}
              - {name: pet, in: query, schema: {$ref: "#/components/schemas/Named", properties: {age: {type: integer}}}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Code: {type: string, minLength: 3}
          Named: {type: object, required: [name], properties: {name: {type: string}}}
      """
    When the client calls "findCodes" with <value> placed at "/<property>"
    Then the call <outcome>

    Examples:
      | case                           | property | value                         | outcome              |
      | the referenced type            | code     | 42                            | is refused           |
      | the referenced minLength       | code     | "ab"                          | is refused           |
      | the maxLength beside the $ref  | code     | "abcdef"                      | is refused           |
      | a value that meets both        | code     | "abcd"                        | reached the upstream |
      | the referenced required        | pet      | {"age": 3}                    | is refused           |
      | the properties beside the $ref | pet      | {"name": "Rex", "age": "old"} | is refused           |
      | an object that meets both      | pet      | {"name": "Rex", "age": 3}     | reached the upstream |

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
    Then the call <outcome>

    Examples:
      | value                    | outcome              |
      |                          | reached the upstream |
      | cat                      | reached the upstream |
      | dog                      | reached the upstream |
      | parrot                   | reached the upstream |
      | MARKER-7f3a              | is refused           |
      | cot                      | is refused           |
      | bat                      | is refused           |
      | caT                      | is refused           |
      | Parrot                   | is refused           |
      | parroT                   | is refused           |
      | labrador-retriever-puppy | reached the upstream |
      | LABRADOR-retriever-puppy | is refused           |
      | labrador-RETRIEVer-puppy | is refused           |

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
    Then the call <outcome>

    Examples:
      | value                | outcome              |
      | m                    | reached the upstream |
      | xl                   | reached the upstream |
      | extra-long-size-name | reached the upstream |
      | q                    | is refused           |
      | xxxl                 | is refused           |
      | extra-long-size-nam  | is refused           |
      |                      | is refused           |

  @TC-CHECK-006
  Scenario Outline: A const compares as JSON does, numbers by value: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: findThings
            parameters:
              - {name: version, in: query, schema: {const: v1}}
              - {name: one, in: query, schema: {const: 1}}
              - {name: pair, in: query, schema: {const: [1, 2]}}
              - {name: shape, in: query, schema: {const: {"a": 2, "b": "x"}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findThings" with <value> placed at "/<property>"
    Then the call <outcome>

    Examples:
      | case                                 | property | value                      | outcome              |
      | the const string                     | version  | "v1"                       | reached the upstream |
      | another string                       | version  | "MARKER-7f3a"              | is refused           |
      | the string in another case           | version  | "V1"                       | is refused           |
      | 1 is 1                               | one      | 1                          | reached the upstream |
      | 1.0 is 1                             | one      | 1.0                        | reached the upstream |
      | 2 is not 1                           | one      | 2                          | is refused           |
      | the string "1" is not 1              | one      | "1"                        | is refused           |
      | true is not 1                        | one      | true                       | is refused           |
      | the same array                       | pair     | [1, 2]                     | reached the upstream |
      | the same array, numbers as 1.0, 2.0  | pair     | [1.0, 2.0]                 | reached the upstream |
      | an array one item short              | pair     | [1]                        | is refused           |
      | an array one item long               | pair     | [1, 2, 3]                  | is refused           |
      | the same items in another order      | pair     | [2, 1]                     | is refused           |
      | the same object                      | shape    | {"a": 2, "b": "x"}         | reached the upstream |
      | the same object, its number as 2.0   | shape    | {"b": "x", "a": 2.0}       | reached the upstream |
      | an object with one key more          | shape    | {"a": 2, "b": "x", "c": 3} | is refused           |
      | an object with one key less          | shape    | {"a": 2}                   | is refused           |
      | another number inside                | shape    | {"a": 3, "b": "x"}         | is refused           |

  @TC-CHECK-007
  Scenario Outline: String lengths count characters, not bytes: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /names:
          get:
            operationId: findNames
            parameters:
              - {name: short, in: query, schema: {type: string, maxLength: 4}}
              - {name: long, in: query, schema: {type: string, minLength: 4}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findNames" with "<value>" placed at "/<property>"
    Then the call <outcome>

    Examples:
      | case                                   | property | value       | outcome              |
      | 4 two-byte characters fit maxLength 4  | short    | éééé        | reached the upstream |
      | 4 emoji (16 bytes) fit maxLength 4     | short    | 🐶🐱🐭🐹    | reached the upstream |
      | 4 characters fit maxLength 4           | short    | abcd        | reached the upstream |
      | 5 characters exceed maxLength 4        | short    | ééééé       | is refused           |
      | 11 characters exceed maxLength 4       | short    | MARKER-7f3a | is refused           |
      | 3 two-byte characters miss minLength 4 | long     | ééé         | is refused           |
      | 3 emoji (12 bytes) miss minLength 4    | long     | 🐶🐱🐭      | is refused           |
      | 4 characters meet minLength 4          | long     | abcd        | reached the upstream |

  @TC-CHECK-007
  Scenario Outline: A length written as a decimal is still a length: <case>
    JSON Schema counts 4.0 as the integer 4, so a document may write it so.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /names:
          get:
            operationId: findNames
            parameters:
              - {name: short, in: query, schema: {type: string, maxLength: 4.0}}
              - {name: long, in: query, schema: {type: string, minLength: 4.0}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findNames" with "<value>" placed at "/<property>"
    Then the call <outcome>

    Examples:
      | case                              | property | value | outcome              |
      | 5 characters exceed maxLength 4.0 | short    | abcde | is refused           |
      | 4 characters fit maxLength 4.0    | short    | abcd  | reached the upstream |
      | 3 characters miss minLength 4.0   | long     | abc   | is refused           |
      | 4 characters meet minLength 4.0   | long     | abcd  | reached the upstream |

  @TC-CHECK-008
  Scenario Outline: Item counts are checked: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /tags:
          get:
            operationId: findTags
            parameters:
              - {name: tags, in: query, schema: {type: array, minItems: 2, maxItems: 3, items: {type: string}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findTags" with <value> placed at "/tags"
    Then the call <outcome>

    Examples:
      | case                 | value                | outcome              |
      | one item is too few  | ["a"]                | is refused           |
      | four items, too many | ["a", "b", "c", "d"] | is refused           |
      | two items are enough | ["a", "b"]           | reached the upstream |
      | three items fit      | ["a", "b", "c"]      | reached the upstream |

  @TC-CHECK-008
  Scenario Outline: An item count written as a decimal is still a count: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /tags:
          get:
            operationId: findTags
            parameters:
              - {name: tags, in: query, schema: {type: array, minItems: 2.0, maxItems: 3.0, items: {type: string}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findTags" with <value> placed at "/tags"
    Then the call <outcome>

    Examples:
      | case                 | value                | outcome              |
      | one item is too few  | ["a"]                | is refused           |
      | four items, too many | ["a", "b", "c", "d"] | is refused           |
      | two items are enough | ["a", "b"]           | reached the upstream |

  @TC-CHECK-009
  Scenario Outline: Ranges are checked at their bounds: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /measure:
          get:
            operationId: measure
            parameters:
              - {name: closed, in: query, schema: {type: integer, minimum: 1, maximum: 10}}
              - {name: open, in: query, schema: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}}
            responses: {"200": {description: ok}}
      """
    When the client calls "measure" with <value> placed at "/<property>"
    Then the call <outcome>

    Examples:
      | case                             | property | value | outcome              |
      | below the minimum                | closed   | 0     | is refused           |
      | at the minimum                   | closed   | 1     | reached the upstream |
      | at the maximum                   | closed   | 10    | reached the upstream |
      | above the maximum                | closed   | 11    | is refused           |
      | at the exclusive minimum         | open     | 0     | is refused           |
      | just above the exclusive minimum | open     | 0.001 | reached the upstream |
      | just below the exclusive maximum | open     | 0.999 | reached the upstream |
      | at the exclusive maximum         | open     | 1     | is refused           |

  @TC-CHECK-009
  Scenario Outline: OpenAPI 3.0 boolean exclusive bounds are checked: <level>
    A bound is judged where the gateway published it in the numeric form
    (TC-SCHEMA-004's matter).
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
    When the client calls "measure" with {"level": <level>}
    Then the call <outcome>

    Examples:
      | level | outcome                                                                                                                    |
      | 0     | is refused, where the input schema of "measure" has "/properties/level/exclusiveMinimum" equal to 0, as TC-SCHEMA-004 asks |
      | 5     | is refused, where the input schema of "measure" has "/properties/level/exclusiveMaximum" equal to 5, as TC-SCHEMA-004 asks |
      | 1     | reached the upstream                                                                                                       |
      | 4     | reached the upstream                                                                                                       |

  @TC-CHECK-010
  Scenario Outline: Formats are checked: <format> "<value>"
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /events:
          get:
            operationId: findEvents
            parameters:
              - {name: at, in: query, schema: {type: string, format: <format>}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findEvents" with "<value>" placed at "/at"
    Then the call <outcome>

    Examples: values that keep the format
      | format    | value                                | outcome              |
      | date-time | 2024-05-01T10:00:00Z                 | reached the upstream |
      | date-time | 2024-05-01T10:00:00.5+02:00          | reached the upstream |
      | date-time | 2016-12-31T23:59:60Z                 | reached the upstream |
      | date-time | 2024-01-01T23:59:59-08:00            | reached the upstream |
      | date-time | 2024-01-01T00:00:00-23:59            | reached the upstream |
      | date      | 2024-02-29                           | reached the upstream |
      | email     | ada@example.com                      | reached the upstream |
      | email     | \\"ada lovelace\\"@example.com       | reached the upstream |
      | email     | \\"ada@home\\"@example.com           | reached the upstream |
      | uuid      | 4f1c2d9e-8b7a-4c3d-9e2f-1a2b3c4d5e6f | reached the upstream |

    Examples: values that look close but break it
      | format    | value                               | outcome    |
      | date-time | MARKER-7f3a                         | is refused |
      | date-time | 2024-05-01                          | is refused |
      | date-time | 2024-05-01 10:00:00                 | is refused |
      | date-time | 2024-13-01T10:00:00Z                | is refused |
      | date-time | 2024-05-01T24:00:00Z                | is refused |
      | date-time | 2024-05-01T10:60:00Z                | is refused |
      | date-time | 2024-05-01T10:00:61Z                | is refused |
      | date-time | 2024-05-01T10:00:00+24:00           | is refused |
      | date-time | 2024-05-01T10:00:00+02:60           | is refused |
      | date      | MARKER-7f3a                         | is refused |
      | date      | 2024-05-01T10:00:00Z                | is refused |
      | date      | 01/05/2024                          | is refused |
      | date      | 2023-02-29                          | is refused |
      | date      | 1900-02-29                          | is refused |
      | date      | 2024-05-1:                          | is refused |
      | date      | 2024-04-31                          | is refused |
      | date      | 2024-05-32                          | is refused |
      | email     | MARKER-7f3a                         | is refused |
      | email     | @example.com                        | is refused |
      | email     | ada@                                | is refused |
      | email     | ada@b@example.com                   | is refused |
      | email     | ada@.example.com                    | is refused |
      | email     | ada@example.com.                    | is refused |
      | email     | ada lovelace@example.com            | is refused |
      | email     | ada \\"lovelace\\"@example.com      | is refused |
      | email     | ada.example.com                     | is refused |
      | uuid      | MARKER-7f3a                         | is refused |
      | uuid      | 4f1c2d9e-8b7a-4c3d-9e2f-1a2b3c4d5e6 | is refused |
      | uuid      | 4f1c2d9e8b7a4c3d9e2f1a2b3c4d5e6f0   | is refused |

  @TC-CHECK-011
  Scenario Outline: <problem> at depth 8 is checked
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
                  schema: {type: array, items: {$ref: '#/components/schemas/Node'}}
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
    When the client calls "deep" with <leaf> placed at "/body/0/next/next/next/next/leaf"
    Then the call <outcome>

    Examples:
      | problem                          | leaf                                                                                      | outcome              |
      | No problem                       | {"label": "ok", "code": "long-enough-code", "count": 5, "tags": ["a", "b"], "day": "2024-02-29"} | reached the upstream |
      | A wrong type                     | {"label": 7734019}                                                                        | is refused           |
      | A missing required property      | {"code": "MARKER-7f3a-ok"}                                                                | is refused           |
      | A property no schema allows      | {"label": "ok", "extra": "MARKER-7f3a"}                                                   | is refused           |
      | A value outside the enum         | {"label": "ok", "kind": "MARKER-7f3a"}                                                    | is refused           |
      | A value other than the const     | {"label": "ok", "fixed": "MARKER-7f3a"}                                                   | is refused           |
      | A string over maxLength          | {"label": "MARKER-7f3a"}                                                                  | is refused           |
      | A string under minLength         | {"label": "ok", "code": "MARKER-7f3a"}                                                    | is refused           |
      | Too few items                    | {"label": "ok", "tags": ["MARKER-7f3a"]}                                                  | is refused           |
      | Too many items                   | {"label": "ok", "tags": ["MARKER-7f3a", "b", "c", "d"]}                                   | is refused           |
      | A number under the minimum       | {"label": "ok", "count": -7734019}                                                        | is refused           |
      | A number over the maximum        | {"label": "ok", "count": 7734019}                                                         | is refused           |
      | A number under exclusiveMinimum  | {"label": "ok", "ratio": -7734019}                                                        | is refused           |
      | A number over exclusiveMaximum   | {"label": "ok", "ratio": 7734019}                                                         | is refused           |
      | A bad date-time                  | {"label": "ok", "when": "MARKER-7f3a"}                                                    | is refused           |
      | A bad date                       | {"label": "ok", "day": "MARKER-7f3a"}                                                     | is refused           |
      | A bad email                      | {"label": "ok", "mail": "MARKER-7f3a"}                                                    | is refused           |
      | A bad uuid                       | {"label": "ok", "id": "MARKER-7f3a"}                                                      | is refused           |

  @TC-CHECK-011
  Scenario Outline: <problem> at depth 9 is not checked
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
                  schema: {type: array, items: {$ref: '#/components/schemas/Node'}}
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
    When the client calls "deep" with <leaf> placed at "/body/0/next/next/next/next/next/leaf"
    Then the call reached the upstream

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
                  schema: {type: array, items: {$ref: '#/components/schemas/Node'}}
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
    When the client calls "deep" with <leaf> placed at "/body/0/next/next/next/next/next/next/leaf"
    Then the call reached the upstream

    Examples:
      | problem                     | leaf                                    |
      | A missing required property | {}                                      |
      | A property no schema allows | {"label": "ok", "extra": "MARKER-7f3a"} |

  @TC-CHECK-011
  Scenario Outline: Array items are checked at depth 8, not below: <case>
    `counts` at depth 7 holds its items at depth 8; one level further down
    they are at depth 9, and so are the members of `pairs`' items.
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
                  schema: {type: array, items: {$ref: '#/components/schemas/Node'}}
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
    When the client calls "deep" with <items> placed at "<place>"
    Then the call <outcome>

    Examples: Items at depth 8 are checked
      | case                      | items              | place                              | outcome              |
      | a string among integers   | [1, "MARKER-7f3a"] | /body/0/next/next/next/next/counts | is refused           |
      | an integer over maximum   | [1, 99]            | /body/0/next/next/next/next/counts | is refused           |
      | integers within the range | [1, 2]             | /body/0/next/next/next/next/counts | reached the upstream |

    Examples: What sits at depth 9 is not
      | case                         | items                  | place                                   | outcome              |
      | items at depth 9             | [1, "MARKER-7f3a", 99] | /body/0/next/next/next/next/next/counts | reached the upstream |
      | members of items at depth 8  | [{"n": "MARKER-7f3a"}] | /body/0/next/next/next/next/pairs       | reached the upstream |

  # One document serves every example, an operation per keyword, so a
  # gateway is started once for the outline.
  @TC-CHECK-012
  Scenario Outline: A keyword outside the checked set is left to the API: <keyword>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things/1: {get: {operationId: findThings-1, parameters: [{name: value, in: query, schema: {type: string, pattern: '^[a-z]+$'}}], responses: {"200": {description: ok}}}}
        /things/2: {get: {operationId: findThings-2, parameters: [{name: value, in: query, schema: {type: integer, multipleOf: 5}}], responses: {"200": {description: ok}}}}
        /things/3: {get: {operationId: findThings-3, parameters: [{name: value, in: query, schema: {type: array, uniqueItems: true}}], responses: {"200": {description: ok}}}}
        /things/4: {get: {operationId: findThings-4, parameters: [{name: value, in: query, schema: {oneOf: [{type: integer}, {type: boolean}]}}], responses: {"200": {description: ok}}}}
        /things/5: {get: {operationId: findThings-5, parameters: [{name: value, in: query, schema: {anyOf: [{type: integer}, {type: boolean}]}}], responses: {"200": {description: ok}}}}
        /things/6: {get: {operationId: findThings-6, parameters: [{name: value, in: query, schema: {allOf: [{type: integer}]}}], responses: {"200": {description: ok}}}}
        /things/7: {get: {operationId: findThings-7, parameters: [{name: value, in: query, schema: {not: {type: string}}}], responses: {"200": {description: ok}}}}
        /things/8: {get: {operationId: findThings-8, parameters: [{name: value, in: query, schema: {type: string, format: ipv4}}], responses: {"200": {description: ok}}}}
        /things/9: {get: {operationId: findThings-9, parameters: [{name: value, in: query, schema: {type: string, format: uri}}], responses: {"200": {description: ok}}}}
      """
    When the client calls "findThings-<n>" with <value> placed at "/value"
    Then the call reached the upstream

    Examples:
      | keyword     | n | value         |
      | pattern     | 1 | "MARKER-7f3a" |
      | multipleOf  | 2 | 7             |
      | uniqueItems | 3 | [1, 1]        |
      | oneOf       | 4 | "MARKER-7f3a" |
      | anyOf       | 5 | "MARKER-7f3a" |
      | allOf       | 6 | "MARKER-7f3a" |
      | not         | 7 | "MARKER-7f3a" |
      | format ipv4 | 8 | "MARKER-7f3a" |
      | format uri  | 9 | "not a uri"   |

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
              - {name: tags, in: query, schema: {type: array, items: {type: string, maxLength: 3}}}
              - name: pet
                in: query
                schema:
                  type: object
                  additionalProperties: false
                  required: [name]
                  properties:
                    name: {type: string}
                    age: {type: integer, minimum: 0}
            responses: {"200": {description: ok}}
      """
    When the client calls "patchPet" with:
      """
      {"petId": "MARKER-7f3a", "dryRun": "MARKER-7f3a", "tags": ["ok", "MARKER-7f3a"],
       "pet": {"age": -1, "colour": "MARKER-7f3a"}}
      """
    Then the call is refused at each of:
      | /petId       |
      | /dryRun      |
      | /tags/1      |
      | /pet/name    |
      | /pet/age     |
      | /pet/colour  |
    And each place the result names comes with what is wrong

  @TC-CHECK-013
  Scenario Outline: Each kind of failed check names its place and what is wrong there: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: things
            parameters:
              - {name: text, in: query, schema: {type: string}}
              - {name: whole, in: query, schema: {type: integer}}
              - {name: kind, in: query, schema: {enum: [cat, dog]}}
              - {name: fixed, in: query, schema: {const: v1}}
              - {name: pin, in: query, schema: {type: string, maxLength: 4}}
              - {name: code, in: query, schema: {type: string, minLength: 12}}
              - {name: tags, in: query, schema: {type: array, minItems: 2, maxItems: 3, items: {type: string}}}
              - {name: count, in: query, schema: {type: integer, minimum: 1, maximum: 10}}
              - {name: ratio, in: query, schema: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}}
              - {name: when, in: query, schema: {type: string, format: date-time}}
              - {name: day, in: query, schema: {type: string, format: date}}
              - {name: mail, in: query, schema: {type: string, format: email}}
              - {name: id, in: query, schema: {type: string, format: uuid}}
              - name: owner
                in: query
                schema:
                  type: object
                  additionalProperties: false
                  required: [email]
                  properties: {email: {type: string}, note: {type: string}}
              - {name: labels, in: query, schema: {type: object, additionalProperties: {type: string}}}
              - {name: visits, in: query, schema: {type: array, items: {type: object, properties: {year: {type: integer}}}}}
              - {name: short, in: query, schema: {$ref: "#/components/schemas/Short"}}
              - {name: node, in: query, schema: {$ref: "#/components/schemas/Node"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Short: {type: string, maxLength: 3}
          Node:
            type: object
            properties:
              next: {$ref: "#/components/schemas/Node"}
              leaf: {type: object, properties: {label: {type: string, maxLength: 5}}}
      """
    When the client calls "things" with <arguments>
    Then the call is refused at "<place>"
    And the result says what is wrong at "<place>"

    Examples:
      | case                                 | arguments                                                                                          | place                                       | sent        |
      | a wrong type                         | {"text": 7734019}                                                                                  | /text                                       | 7734019     |
      | a fraction for an integer            | {"whole": 7734019.5}                                                                               | /whole                                      | 7734019     |
      | a missing required property          | {"owner": {"note": "MARKER-7f3a"}}                                                                 | /owner/email                                | MARKER-7f3a |
      | a property not allowed               | {"owner": {"email": "a@b.c", "extra": "MARKER-7f3a"}}                                              | /owner/extra                                | MARKER-7f3a |
      | a schema-valued additionalProperties | {"labels": {"size": 7734019}}                                                                      | /labels/size                                | 7734019     |
      | a value outside the enum             | {"kind": "MARKER-7f3a"}                                                                            | /kind                                       | MARKER-7f3a |
      | a value other than the const         | {"fixed": "MARKER-7f3a"}                                                                           | /fixed                                      | MARKER-7f3a |
      | a string over maxLength              | {"pin": "MARKER-7f3a"}                                                                             | /pin                                        | MARKER-7f3a |
      | a string under minLength             | {"code": "MARKER-7f3a"}                                                                            | /code                                       | MARKER-7f3a |
      | too few items                        | {"tags": ["MARKER-7f3a"]}                                                                          | /tags                                       | MARKER-7f3a |
      | too many items                       | {"tags": ["MARKER-7f3a", "b", "c", "d"]}                                                           | /tags                                       | MARKER-7f3a |
      | a number under the minimum           | {"count": -7734019}                                                                                | /count                                      | 7734019     |
      | a number over the maximum            | {"count": 7734019}                                                                                 | /count                                      | 7734019     |
      | a number at the exclusive minimum    | {"ratio": 0}                                                                                       | /ratio                                      | MARKER-7f3a |
      | a number under the exclusive minimum | {"ratio": -7734019}                                                                                | /ratio                                      | 7734019     |
      | a number over the exclusive maximum  | {"ratio": 7734019}                                                                                 | /ratio                                      | 7734019     |
      | a bad date-time                      | {"when": "MARKER-7f3a"}                                                                            | /when                                       | MARKER-7f3a |
      | a bad date                           | {"day": "MARKER-7f3a"}                                                                             | /day                                        | MARKER-7f3a |
      | a bad email                          | {"mail": "MARKER-7f3a"}                                                                            | /mail                                       | MARKER-7f3a |
      | a bad uuid                           | {"id": "MARKER-7f3a"}                                                                              | /id                                         | MARKER-7f3a |
      | a nested item                        | {"visits": [{"year": 2020}, {"year": "MARKER-7f3a"}]}                                              | /visits/1/year                              | MARKER-7f3a |
      | a referenced schema                  | {"short": "MARKER-7f3a"}                                                                           | /short                                      | MARKER-7f3a |
      | a value at depth 8                   | {"node": {"next": {"next": {"next": {"next": {"next": {"leaf": {"label": "MARKER-7f3a"}}}}}}}}     | /node/next/next/next/next/next/leaf/label   | MARKER-7f3a |

  @TC-CHECK-013
  Scenario: A property whose schema is false is named, with what is wrong there
    A document of its own: the one boolean schema of the kinds of check
    above, so a gateway that cannot load boolean schemas (TC-LOAD-002's
    matter) is still judged on all the others.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: things
            parameters:
              - {name: pet, in: query, schema: {type: object, properties: {retired: false}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "things" with {"pet": {"retired": "MARKER-7f3a"}}
    Then the call is refused at "/pet/retired"
    And the result says what is wrong at "/pet/retired"

  @TC-CHECK-013
  Scenario Outline: A value of the wrong type is refused, naming the type expected: <case>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /typed:
          get:
            operationId: typed
            parameters:
              - {name: text, in: query, schema: {type: string}}
              - {name: whole, in: query, schema: {type: integer}}
              - {name: number, in: query, schema: {type: number}}
              - {name: flag, in: query, schema: {type: boolean}}
              - {name: list, in: query, schema: {type: array}}
              - {name: map, in: query, schema: {type: object}}
              - {name: maybe, in: query, schema: {type: [string, "null"]}}
            responses: {"200": {description: ok}}
      """
    When the client calls "typed" with <value> placed at "/<property>"
    Then the call is refused at "/<property>"
    And the result contains "<expected>"

    Examples:
      | case                          | property | value                | expected |
      | a number for a string         | text     | 7734019              | string   |
      | a fraction for an integer     | whole    | 7734019.5            | integer  |
      | a string for an integer       | whole    | "7734019"            | integer  |
      | a string for a number         | number   | "MARKER-7f3a"        | number   |
      | a string for a boolean        | flag     | "MARKER-7f3a"        | boolean  |
      | an object for an array        | list     | {"k": "MARKER-7f3a"} | array    |
      | an array for an object        | map      | ["MARKER-7f3a"]      | object   |
      | a number where string or null | maybe    | 7734019              | string   |

  @TC-CHECK-013
  Scenario Outline: A value that breaks its format is refused, naming the format: <format>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /events:
          get:
            operationId: findEvents
            parameters:
              - {name: at, in: query, schema: {type: string, format: <format>}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findEvents" with "<invalid>" placed at "/at"
    Then the call is refused at "/at"
    And the result contains "<format>"

    Examples:
      | format    | invalid                             |
      | date-time | 2024-05-01 10:00:00                 |
      | date      | 2024-02-30                          |
      | email     | ada@                                |
      | uuid      | 4f1c2d9e-8b7a-4c3d-9e2f-1a2b3c4d5e6 |

  @TC-CHECK-013
  Scenario: A place deep in the arguments is named by its whole pointer, escaped
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: findThings
            parameters:
              - name: filter
                in: query
                schema:
                  type: object
                  properties:
                    "a/b": {type: object, properties: {"c~d": {type: integer}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "findThings" with {"filter": {"a/b": {"c~d": "MARKER-7f3a"}}}
    Then the call is refused at "/filter/a~1b/c~0d"

  @TC-CHECK-014
  Scenario Outline: The error never shows the value sent: <case>
    Judged on whatever the call answers: a value no check refuses (a
    checking rule's matter) is sent, and the upstream's answer does not
    repeat it.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: things
            parameters:
              - {name: text, in: query, schema: {type: string}}
              - {name: whole, in: query, schema: {type: integer}}
              - {name: kind, in: query, schema: {enum: [cat, dog]}}
              - {name: fixed, in: query, schema: {const: v1}}
              - {name: pin, in: query, schema: {type: string, maxLength: 4}}
              - {name: code, in: query, schema: {type: string, minLength: 12}}
              - {name: tags, in: query, schema: {type: array, minItems: 2, maxItems: 3, items: {type: string}}}
              - {name: count, in: query, schema: {type: integer, minimum: 1, maximum: 10}}
              - {name: ratio, in: query, schema: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}}
              - {name: when, in: query, schema: {type: string, format: date-time}}
              - {name: day, in: query, schema: {type: string, format: date}}
              - {name: mail, in: query, schema: {type: string, format: email}}
              - {name: id, in: query, schema: {type: string, format: uuid}}
              - name: owner
                in: query
                schema:
                  type: object
                  additionalProperties: false
                  required: [email]
                  properties: {email: {type: string}, note: {type: string}}
              - {name: labels, in: query, schema: {type: object, additionalProperties: {type: string}}}
              - {name: visits, in: query, schema: {type: array, items: {type: object, properties: {year: {type: integer}}}}}
              - {name: short, in: query, schema: {$ref: "#/components/schemas/Short"}}
              - {name: node, in: query, schema: {$ref: "#/components/schemas/Node"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Short: {type: string, maxLength: 3}
          Node:
            type: object
            properties:
              next: {$ref: "#/components/schemas/Node"}
              leaf: {type: object, properties: {label: {type: string, maxLength: 5}}}
      """
    When the client calls "things" with <arguments>
    Then the result does not contain "<sent>"

    Examples:
      | case                                 | arguments                                                                                          | place                                       | sent        |
      | a wrong type                         | {"text": 7734019}                                                                                  | /text                                       | 7734019     |
      | a fraction for an integer            | {"whole": 7734019.5}                                                                               | /whole                                      | 7734019     |
      | a missing required property          | {"owner": {"note": "MARKER-7f3a"}}                                                                 | /owner/email                                | MARKER-7f3a |
      | a property not allowed               | {"owner": {"email": "a@b.c", "extra": "MARKER-7f3a"}}                                              | /owner/extra                                | MARKER-7f3a |
      | a schema-valued additionalProperties | {"labels": {"size": 7734019}}                                                                      | /labels/size                                | 7734019     |
      | a value outside the enum             | {"kind": "MARKER-7f3a"}                                                                            | /kind                                       | MARKER-7f3a |
      | a value other than the const         | {"fixed": "MARKER-7f3a"}                                                                           | /fixed                                      | MARKER-7f3a |
      | a string over maxLength              | {"pin": "MARKER-7f3a"}                                                                             | /pin                                        | MARKER-7f3a |
      | a string under minLength             | {"code": "MARKER-7f3a"}                                                                            | /code                                       | MARKER-7f3a |
      | too few items                        | {"tags": ["MARKER-7f3a"]}                                                                          | /tags                                       | MARKER-7f3a |
      | too many items                       | {"tags": ["MARKER-7f3a", "b", "c", "d"]}                                                           | /tags                                       | MARKER-7f3a |
      | a number under the minimum           | {"count": -7734019}                                                                                | /count                                      | 7734019     |
      | a number over the maximum            | {"count": 7734019}                                                                                 | /count                                      | 7734019     |
      | a number at the exclusive minimum    | {"ratio": 0}                                                                                       | /ratio                                      | MARKER-7f3a |
      | a number under the exclusive minimum | {"ratio": -7734019}                                                                                | /ratio                                      | 7734019     |
      | a number over the exclusive maximum  | {"ratio": 7734019}                                                                                 | /ratio                                      | 7734019     |
      | a bad date-time                      | {"when": "MARKER-7f3a"}                                                                            | /when                                       | MARKER-7f3a |
      | a bad date                           | {"day": "MARKER-7f3a"}                                                                             | /day                                        | MARKER-7f3a |
      | a bad email                          | {"mail": "MARKER-7f3a"}                                                                            | /mail                                       | MARKER-7f3a |
      | a bad uuid                           | {"id": "MARKER-7f3a"}                                                                              | /id                                         | MARKER-7f3a |
      | a nested item                        | {"visits": [{"year": 2020}, {"year": "MARKER-7f3a"}]}                                              | /visits/1/year                              | MARKER-7f3a |
      | a referenced schema                  | {"short": "MARKER-7f3a"}                                                                           | /short                                      | MARKER-7f3a |
      | a value at depth 8                   | {"node": {"next": {"next": {"next": {"next": {"next": {"leaf": {"label": "MARKER-7f3a"}}}}}}}}     | /node/next/next/next/next/next/leaf/label   | MARKER-7f3a |
      | an argument the tool does not have   | {"note": "MARKER-7f3a"}                                                                            | /note                                       | MARKER-7f3a |

  @TC-CHECK-014
  Scenario: The error never shows the value sent: a property whose schema is false
    A document of its own: the one boolean schema of the kinds of check
    above, so a gateway that cannot load boolean schemas (TC-LOAD-002's
    matter) is still judged on all the others.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: things
            parameters:
              - {name: pet, in: query, schema: {type: object, properties: {retired: false}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "things" with {"pet": {"retired": "MARKER-7f3a"}}
    Then the result does not contain "MARKER-7f3a"

  @TC-CHECK-015
  Scenario Outline: After a failed check nothing is sent upstream: <case>
    Judged when the call is refused. A value no check refuses (the matter of
    the checking rule each example names) leaves it not judged.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: things
            parameters:
              - {name: text, in: query, schema: {type: string}}
              - {name: whole, in: query, schema: {type: integer}}
              - {name: kind, in: query, schema: {enum: [cat, dog]}}
              - {name: fixed, in: query, schema: {const: v1}}
              - {name: pin, in: query, schema: {type: string, maxLength: 4}}
              - {name: code, in: query, schema: {type: string, minLength: 12}}
              - {name: tags, in: query, schema: {type: array, minItems: 2, maxItems: 3, items: {type: string}}}
              - {name: count, in: query, schema: {type: integer, minimum: 1, maximum: 10}}
              - {name: ratio, in: query, schema: {type: number, exclusiveMinimum: 0, exclusiveMaximum: 1}}
              - {name: when, in: query, schema: {type: string, format: date-time}}
              - {name: day, in: query, schema: {type: string, format: date}}
              - {name: mail, in: query, schema: {type: string, format: email}}
              - {name: id, in: query, schema: {type: string, format: uuid}}
              - name: owner
                in: query
                schema:
                  type: object
                  additionalProperties: false
                  required: [email]
                  properties: {email: {type: string}, note: {type: string}}
              - {name: labels, in: query, schema: {type: object, additionalProperties: {type: string}}}
              - {name: visits, in: query, schema: {type: array, items: {type: object, properties: {year: {type: integer}}}}}
              - {name: short, in: query, schema: {$ref: "#/components/schemas/Short"}}
              - {name: node, in: query, schema: {$ref: "#/components/schemas/Node"}}
            responses: {"200": {description: ok}}
      components:
        schemas:
          Short: {type: string, maxLength: 3}
          Node:
            type: object
            properties:
              next: {$ref: "#/components/schemas/Node"}
              leaf: {type: object, properties: {label: {type: string, maxLength: 5}}}
      """
    When the client calls "things" with <arguments>
    Then if the call was refused, which <rule> asks for, nothing reached the upstream

    Examples:
      | case                                 | rule         | arguments                                                                                      |
      | a wrong type                         | TC-CHECK-001 | {"text": 7734019}                                                                              |
      | a fraction for an integer            | TC-CHECK-001 | {"whole": 7734019.5}                                                                           |
      | a missing required property          | TC-CHECK-002 | {"owner": {"note": "MARKER-7f3a"}}                                                             |
      | a property not allowed               | TC-CHECK-003 | {"owner": {"email": "a@b.c", "extra": "MARKER-7f3a"}}                                          |
      | a schema-valued additionalProperties | TC-CHECK-003 | {"labels": {"size": 7734019}}                                                                  |
      | a value outside the enum             | TC-CHECK-005 | {"kind": "MARKER-7f3a"}                                                                        |
      | a value other than the const         | TC-CHECK-006 | {"fixed": "MARKER-7f3a"}                                                                       |
      | a string over maxLength              | TC-CHECK-007 | {"pin": "MARKER-7f3a"}                                                                         |
      | a string under minLength             | TC-CHECK-007 | {"code": "MARKER-7f3a"}                                                                        |
      | too few items                        | TC-CHECK-008 | {"tags": ["MARKER-7f3a"]}                                                                      |
      | too many items                       | TC-CHECK-008 | {"tags": ["MARKER-7f3a", "b", "c", "d"]}                                                       |
      | a number under the minimum           | TC-CHECK-009 | {"count": -7734019}                                                                            |
      | a number over the maximum            | TC-CHECK-009 | {"count": 7734019}                                                                             |
      | a number at the exclusive minimum    | TC-CHECK-009 | {"ratio": 0}                                                                                   |
      | a number under the exclusive minimum | TC-CHECK-009 | {"ratio": -7734019}                                                                            |
      | a number over the exclusive maximum  | TC-CHECK-009 | {"ratio": 7734019}                                                                             |
      | a bad date-time                      | TC-CHECK-010 | {"when": "MARKER-7f3a"}                                                                        |
      | a bad date                           | TC-CHECK-010 | {"day": "MARKER-7f3a"}                                                                         |
      | a bad email                          | TC-CHECK-010 | {"mail": "MARKER-7f3a"}                                                                        |
      | a bad uuid                           | TC-CHECK-010 | {"id": "MARKER-7f3a"}                                                                          |
      | a nested item                        | TC-CHECK-004 | {"visits": [{"year": 2020}, {"year": "MARKER-7f3a"}]}                                          |
      | a referenced schema                  | TC-CHECK-004 | {"short": "MARKER-7f3a"}                                                                       |
      | a value at depth 8                   | TC-CHECK-011 | {"node": {"next": {"next": {"next": {"next": {"next": {"leaf": {"label": "MARKER-7f3a"}}}}}}}} |
      | an argument the tool does not have   | TC-CHECK-003 | {"note": "MARKER-7f3a"}                                                                        |

  @TC-CHECK-015
  Scenario: After a failed check nothing is sent upstream: a property whose schema is false
    A document of its own: the one boolean schema of the kinds of check
    above, so a gateway that cannot load boolean schemas (TC-LOAD-002's
    matter) is still judged on all the others.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: things
            parameters:
              - {name: pet, in: query, schema: {type: object, properties: {retired: false}}}
            responses: {"200": {description: ok}}
      """
    When the client calls "things" with {"pet": {"retired": "MARKER-7f3a"}}
    Then if the call was refused, which TC-CHECK-003 asks for, nothing reached the upstream

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
    Then if the call was refused, which TC-CHECK-009 asks for, nothing reached the upstream

  @TC-CHECK-016
  Scenario Outline: A member that patternProperties names is not additional: <case>
    Only what must pass is judged: refusing what is additional is
    TC-CHECK-003's matter, and a gateway that checks neither keyword
    refuses nothing wrongly.
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: findThings
            parameters:
              - name: filter
                in: query
                schema:
                  type: object
                  properties: {name: {type: string}}
                  patternProperties: {"^x-": {type: string}}
                  additionalProperties: false
            responses: {"200": {description: ok}}
      """
    When the client calls "findThings" with <value> placed at "/filter"
    Then the call <outcome>

    Examples:
      | case                      | value                                    | outcome                        |
      | a member a pattern names  | {"name": "Rex", "x-trace": "abc"}        | reached the upstream           |

  @TC-CHECK-016
  Scenario Outline: A member that any branch of a pattern names is not additional: <pattern>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /things:
          get:
            operationId: findThings
            parameters:
              - name: filter
                in: query
                schema:
                  type: object
                  properties: {name: {type: string}}
                  patternProperties: {'<pattern>': {type: string}}
                  additionalProperties: false
            responses: {"200": {description: ok}}
      """
    When the client calls "findThings" with {"filter": {"name": "Rex", "y-trace": "abc"}}
    Then the call reached the upstream

    Examples:
      | pattern          |
      | ^x-\|^y-         |
      | ^x-(a\|b)\|^y-   |
      | ^x-[a-z]\|^y-    |

  @TC-CHECK-016
  Scenario Outline: items after prefixItems concern only the later items: <items>
    Given the OpenAPI document:
      """
      openapi: 3.1.0
      info: {title: Checks, version: "1"}
      paths:
        /points:
          post:
            operationId: addPoint
            requestBody:
              required: true
              content:
                application/json:
                  schema: {type: array, prefixItems: [{type: number}, {type: number}], items: false}
            responses: {"200": {description: ok}}
      """
    When the client calls "addPoint" with <items> placed at "/body"
    Then the call <outcome>

    Examples:
      | items               | outcome                 |
      | [1.5]               | reached the upstream    |
      | [1.5, 2.5]          | reached the upstream    |
