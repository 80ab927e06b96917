Feature: Tools and their names
  Every operation that is not deprecated becomes one tool. Its name is taken
  from the first of: the x-agentify extension, the x-mcp extension, the
  operationId, and finally the method and path. Then every character that is
  not an ASCII letter, an ASCII digit, "_", "." or "-" is replaced by one "_".

  @TC-NAME-001
  Scenario: A string x-agentify names the tool
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            x-agentify: find_pets
            responses: {"200": {description: ok}}
      """
    Then the tools are, in order:
      | find_pets |

  @TC-NAME-002
  Scenario: An object x-agentify names the tool by its name member
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            x-agentify: {name: browse_pets, hidden: false}
            responses: {"200": {description: ok}}
      """
    Then the tools are, in order:
      | browse_pets |

  @TC-NAME-003
  Scenario: Without x-agentify, x-mcp names the tool, as a string or an object
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            x-mcp: pets_list
            responses: {"200": {description: ok}}
          post:
            x-mcp: {name: pets_create}
            responses: {"201": {description: created}}
      """
    Then the gateway lists the tools:
      | pets_list   |
      | pets_create |

  @TC-NAME-004
  Scenario: x-agentify wins over x-mcp and operationId, and x-mcp wins over operationId
    Precedence is judged apart from the sources themselves: a source is
    tried alone first (whether it names a tool is the rule in the last
    column's matter), and where it does, it must also win over the sources
    after it. A source that names no tool alone shows no precedence: the
    scenario is then not judged, and says which rule judges that.
    (That an operationId wins over the method and path is what TC-NAME-005
    says of an operation without an extension.)
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Precedence, version: "1"}
      paths:
        /agentify-alone:
          get:
            x-agentify: agentify_alone
            responses: {"200": {description: ok}}
        /mcp-alone:
          get:
            x-mcp: {name: mcp_alone}
            responses: {"200": {description: ok}}
        /a:
          get:
            x-agentify: from_agentify
            x-mcp: from_mcp
            operationId: fromOperationId
            responses: {"200": {description: ok}}
        /b:
          get:
            x-mcp: {name: from_mcp_object}
            operationId: fromOperationId2
            responses: {"200": {description: ok}}
        /c:
          get:
            x-agentify: agentify_over_mcp
            x-mcp: {name: mcp_under_agentify}
            responses: {"200": {description: ok}}
      """
    Then each name source that names a tool on its own also wins over the later ones:
      | alone          | with later sources | alone, by      |
      | agentify_alone | from_agentify      | TC-NAME-001    |
      | agentify_alone | agentify_over_mcp  | TC-NAME-001    |
      | mcp_alone      | from_mcp_object    | TC-NAME-003    |

  @TC-NAME-005
  Scenario: The operationId is the name when there is no extension
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
            operationId: pets.create-v2
            responses: {"201": {description: created}}
      """
    Then the gateway lists the tools:
      | listPets       |
      | pets.create-v2 |

  @TC-NAME-006
  Scenario: Without any name, the method and path make one
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets/{petId}:
          get:
            parameters: [{name: petId, in: path, required: true, schema: {type: string}}]
            responses: {"200": {description: ok}}
        /stores/{storeId}/orders:
          post:
            parameters: [{name: storeId, in: path, required: true, schema: {type: string}}]
            responses: {"201": {description: created}}
        /v1.2/health-check:
          head:
            responses: {"200": {description: ok}}
      """
    Then the gateway lists the tools:
      | get__pets__petId_             |
      | post__stores__storeId__orders |
      | head__v1.2_health-check       |

  @TC-NAME-007
  Scenario Outline: Each character outside the allowed set becomes one underscore: <case>
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Names, version: "1"}
      paths:
        /things:
          get:
            operationId: "<operationId>"
            responses: {"200": {description: ok}}
      """
    Then the tools are, in order:
      | <name> |

    Examples:
      | case                         | operationId        | name               |
      | a two-byte letter            | café               | caf_               |
      | a four-byte emoji            | pets🐶list         | pets_list          |
      | several multi-byte in a row  | 日本語             | ___                |
      | spaces and punctuation       | list pets, please! | list_pets__please_ |
      | slashes, colons, braces      | a/b:c{d}           | a_b_c_d_           |
      | an exclamation mark          | list!              | list_              |
      | a question mark              | list?              | list_              |
      | allowed punctuation stays    | v1.pets_list-all   | v1.pets_list-all   |

  @TC-NAME-007
  Scenario: The character rule applies to extension names too
    Each operation has an operationId as well: a gateway that passes over
    an extension (its own rule's matter) names the tool by the operationId,
    and that tool tells nothing about the character rule.
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Names, version: "1"}
      paths:
        /a:
          get:
            x-agentify: "find café"
            operationId: fallbackA
            responses: {"200": {description: ok}}
        /b:
          get:
            x-mcp: {name: "mcp/tool"}
            operationId: fallbackB
            responses: {"200": {description: ok}}
      """
    Then each tool named by its extension is named, after the character rule:
      | operationId | name      |
      | fallbackA   | find_caf_ |
      | fallbackB   | mcp_tool  |

  @TC-NAME-008 @recommended
  Scenario: Equal names: the first keeps it, later ones get _2, _3 in list order
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Twins, version: "1"}
      paths:
        /pets:
          get: {operationId: list, responses: {"200": {description: ok}}}
        /owners:
          get: {operationId: list, responses: {"200": {description: ok}}}
        /vets:
          get: {operationId: list, responses: {"200": {description: ok}}}
      """
    Then the tools are, in order:
      | list   |
      | list_2 |
      | list_3 |

  @TC-NAME-009 @recommended
  Scenario: A name over 128 characters is shortened, stays unique, and comes out the same every time
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Long, version: "1"}
      paths:
        /a:
          get:
            operationId: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_one
            responses: {"200": {description: ok}}
        /b:
          get:
            operationId: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_two
            responses: {"200": {description: ok}}
        /c:
          get:
            operationId: short
            responses: {"200": {description: ok}}
      """
    Then every tool name is at most 128 characters long
    And the 3 tool names are all different
    And the tool "short" has "/name" equal to "short"
    And the tool names are the same after a restart

  @TC-NAME-011 @recommended
  Scenario: A shortened name keeps the start of the long one, and two long names differ on their own
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Long, version: "1"}
      paths:
        /a:
          get:
            operationId: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_one
            responses: {"200": {description: ok}}
        /b:
          get:
            operationId: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_two
            responses: {"200": {description: ok}}
      """
    Then 2 tool names start with "a" repeated 100 times
    And no tool name ends in "_2"
    And the 2 tool names are all different

  @TC-NAME-010
  Scenario: Deprecated operations are not tools
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /pets:
          get:
            operationId: listPets
            deprecated: false
            responses: {"200": {description: ok}}
          post:
            operationId: createPetOld
            deprecated: true
            responses: {"201": {description: created}}
        /legacy:
          get:
            operationId: legacyList
            deprecated: true
            responses: {"200": {description: ok}}
      """
    Then the tools are, in order:
      | listPets |
