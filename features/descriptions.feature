Feature: Title and description
  A tool's description joins the operation's summary and description with a
  blank line between them, or is whichever of the two exists, or is absent.
  Its title is the summary, but only a summary of one line of at most 80
  characters.

  Background:
    Given the OpenAPI document:
      """
      openapi: 3.0.3
      info: {title: Pets, version: "1"}
      paths:
        /both:
          get:
            operationId: both
            summary: List pets
            description: |-
              Pets come back in pages of 20.
              Use the cursor for the next page.
            responses: {"200": {description: ok}}
        /summary-only:
          get:
            operationId: summaryOnly
            summary: Show one pet
            responses: {"200": {description: ok}}
        /description-only:
          get:
            operationId: descriptionOnly
            description: Removes every pet that has left the shop.
            responses: {"200": {description: ok}}
        /neither:
          get:
            operationId: neither
            responses: {"200": {description: ok}}
        /eighty:
          get:
            operationId: eighty
            summary: "Summary of exactly eighty characters, which is the longest a title may be......."
            responses: {"200": {description: ok}}
        /eighty-one:
          get:
            operationId: eightyOne
            summary: "Summary of eighty-one characters, which is one more than a title may ever be....."
            description: Too long to be a title.
            responses: {"200": {description: ok}}
        /two-lines:
          get:
            operationId: twoLines
            summary: "Find pets\nby tag"
            responses: {"200": {description: ok}}
      """

  @TC-DESC-001
  Scenario: Summary and description are joined by a blank line
    Then the tool "both" has the description:
      """
      List pets

      Pets come back in pages of 20.
      Use the cursor for the next page.
      """
    And the tool "eightyOne" has the description:
      """
      Summary of eighty-one characters, which is one more than a title may ever be.....

      Too long to be a title.
      """

  @TC-DESC-002
  Scenario: A summary alone is the description
    Then the tool "summaryOnly" has the description "Show one pet"

  @TC-DESC-002
  Scenario: A description alone is the description
    Then the tool "descriptionOnly" has the description "Removes every pet that has left the shop."

  @TC-DESC-002
  Scenario: A summary over two lines, alone, is the description
    Then the tool "twoLines" has the description:
      """
      Find pets
      by tag
      """

  @TC-DESC-003
  Scenario: Without summary and description there is no description
    Then the tool "neither" has no description

  @TC-DESC-004
  Scenario: A short one-line summary is the title
    Then the tool "both" has the title "List pets"
    And the tool "summaryOnly" has the title "Show one pet"

  @TC-DESC-004
  Scenario: A summary of exactly 80 characters is still the title
    Then the tool "eighty" has the title "Summary of exactly eighty characters, which is the longest a title may be......."

  @TC-DESC-004
  Scenario: A description alone gives no title
    Then the tool "descriptionOnly" has no title

  @TC-DESC-005
  Scenario: A summary of 81 characters gives no title
    Then the tool "eightyOne" has no title

  @TC-DESC-005
  Scenario: A summary over two lines gives no title
    Then the tool "twoLines" has no title
