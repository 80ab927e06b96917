"""Deliberately broken variants, for proving the conformance harness.

`EXAMPLE_GATEWAY_BREAK=<rule ID>` breaks exactly one required rule (one
hosted variant a recommended one), the way a real implementer plausibly would. Each break is one `if broken(...)` in the
module where its rule lives. A second variant of the same rule is keyed
`<rule ID>+<what>`. `python -m hosted_mcp_example --list-breaks` prints the
variants as JSON for the test that runs every variant: what each does wrong,
and the verdicts it must leave on other rules (`ALSO`). The variants of a
gateway that checks its clients (`--client-token-env`) are listed apart
(`--list-breaks --hosted`): only a run with the client's credential sees them;
so are those of one that checks access tokens (`--oauth-issuer`,
`--list-breaks --oauth`), which only a run with the harness's authorization
server sees.
"""

import os

#: Rule ID -> what the variant does wrong.
BREAKS: dict[str, str] = {
    "TC-PROTO-004": "an unknown tool is a tool result with isError, not JSON-RPC error -32602",
    "TC-PROTO-005": "arguments that are not an object send bytes that are no HTTP request upstream",
    "TC-PROTO-005+plain": "a failed check is answered in a result not marked as an error",
    "TC-PROTO-006": "tools are listed with their paths sorted alphabetically",
    "TC-PROTO-006+methods": "a path's methods are listed in the order the document writes them",
    "TC-PROTO-006+patch": "patch operations are no tools",
    "TC-LOAD-002": "only OpenAPI 3.0.x is accepted; 3.1 documents are refused",
    "TC-LOAD-003": "a $ref in an operation's parameter list is skipped, not resolved",
    "TC-LOAD-005": "path-item parameters are ignored; only the operation's own count",
    "TC-LOAD-006": "a $ref to nothing becomes an empty schema instead of a load error",
    "TC-NAME-003": "the x-mcp extension is passed over",
    "TC-NAME-004": "x-mcp wins over x-agentify",
    "TC-NAME-006": "the method of a method-and-path name is kept in upper case (GET__pets)",
    "TC-NAME-007": "a multi-byte character becomes one '_' per UTF-8 byte",
    "TC-NAME-010": "deprecated operations are listed too",
    "TC-DESC-001": "summary and description are joined by one line break, not a blank line",
    "TC-DESC-005": "a summary of up to 100 characters is the title",
    "TC-HINT-003": "patch is not marked destructive",
    "TC-HINT-004": "put is not marked idempotent",
    "TC-ARG-002": "on a clash only the later parameters get their location prefix",
    "TC-ARG-003": "the properties of an object body are arguments of their own, not one body argument",
    "TC-ARG-005": "cookie parameters become arguments",
    "TC-ARG-006": "denied header names are compared case-sensitively",
    "TC-SCHEMA-001": "the input schema has no additionalProperties: false at the top",
    "TC-SCHEMA-002": "referenced schemas are carried under definitions (draft-07), not $defs",
    "TC-SCHEMA-002+dangling": "the tool list leaves $defs out, so each $ref names nothing",
    "TC-SCHEMA-003": "nullable is left out of enums: null is in the type but not the enum",
    "TC-SCHEMA-004": "OpenAPI 3.0 boolean exclusiveMinimum/exclusiveMaximum are copied as they are",
    "TC-SCHEMA-004+maximum": "maximum is left out of every schema",
    "TC-CHECK-004": "keywords written beside a $ref are ignored by the checker",
    "TC-CHECK-005": "enum members are compared without regard to case",
    "TC-CHECK-007": "minLength/maxLength count UTF-8 bytes",
    "TC-CHECK-011": "values are checked at any depth",
    "TC-CHECK-014": "a failed check shows the value it refused",
    "TC-CHECK-015": "the request is sent even when the check fails",
    "TC-REQ-002": "'/' in a path argument is left as it is",
    "TC-REQ-004": "an operation path that climbs out of the base URL's path is sent",
    "TC-REQ-005": "query arrays are joined with commas instead of exploded",
    "TC-REQ-010": "X-Agentify-Operation carries the operationId, not the tool's name",
    "TC-REQ-014": "a basic credential without ':' is sent as the base64 of the credential alone",
    "TC-REQ-016": "an argument named like the credential's header is sent beside it",
    "TC-SEND-001": "a 5xx answer is retried once",
    "TC-SEND-003": "redirects are followed",
    "TC-SEND-005": "the 15 s deadline applies to each read, not the whole exchange",
    "TC-ANS-001": "a text body's final line break is trimmed",
    "TC-ANS-002": "JSON bodies come back as they are, not pretty-printed",
    "TC-ANS-003": "a body of exactly 1,048,576 bytes gets a note that it was cut",
    "TC-ANS-004": "the cut falls on a byte, and the broken character is decoded as U+FFFD",
    "TC-ANS-007": "a redirect's error does not name its Location",
    "TC-ANS-009": "the whole body is read before it is cut",
    "TC-MASK-002": "error bodies are not masked",
    "TC-MASK-003": "the Location of a redirect is not masked",
    "TC-MASK-004": "each chunk of the stream is masked on its own",
    "TC-MASK-007": "the gateway's own delivery errors show the request it sent, URL and headers, unmasked",
}

#: Rule ID -> what the variant does wrong, for the variants that only a stdio
#: client can see (`--list-breaks --stdio` prints them).
STDIO_BREAKS: dict[str, str] = {
    "TC-PROTO-001": "a banner line goes to stdout before the first message",
}

#: Rule ID -> what the variant does wrong, for the variants of a gateway that
#: checks its clients (`--client-token-env`), judged with the harness's
#: `--client-auth bearer` (`--list-breaks --hosted` prints them). The one of
#: TC-PROTO-010 misses a recommended rule, so it fails no run.
HOSTED_BREAKS: dict[str, str] = {
    "TC-REQ-021": "the client's Authorization is passed on to the API, in front of the request's "
    "own headers, as a gateway that forwards its clients' headers does",
    "TC-PROTO-010": "its clients are not checked: --client-token-env is read, and every request "
    "is let in",
}

#: Rule ID -> what the variant does wrong, for the variants of a gateway that
#: checks access tokens (`--oauth-issuer`, MCP authorization), judged with the
#: harness's `--client-auth oauth` (`--list-breaks --oauth` prints them).
OAUTH_BREAKS: dict[str, str] = {
    "TC-AUTH-001": "a request without a token gets a Bearer challenge that names no resource_metadata",
    "TC-AUTH-002": "the challenge names its metadata by a path, not an absolute URL",
    "TC-AUTH-003": "the protected-resource metadata names no authorization server",
    "TC-AUTH-004": "a token's audience is not checked, so a token for another resource gets in",
    "TC-AUTH-005": "a token in the query string is taken when no header shows one",
    "TC-AUTH-006": "a token naming a key not held is refused without fetching the keys again",
    "TC-AUTH-007": "keys held are never fetched again, so a withdrawn key still lets tokens in",
    "TC-AUTH-008": "scopes are not checked: a token without the scope gets in",
}

#: Variant -> how it names every tool, for the variants that break the naming
#: rules as a whole, as many gateways do. Each is run over the whole suite: it
#: must fail naming rules only, and every other rule must be judged as on the
#: unbroken gateway (scenarios find their tool by what it is).
RENAMINGS: dict[str, str] = {
    "names:method-path": "every tool is named from its method and path in lower case, a path "
    "parameter after `by` (get_shops_by_shopid_items), clashes numbered from _1",
    "names:snake-case": "every name is put in snake case (listPets becomes list_pets, "
    "pets.create-v2 becomes pets_create_v2)",
}

#: Variant -> how it takes every argument, for the variants that break the
#: argument rules of names and places (TC-ARG-001 to TC-ARG-004) as a whole,
#: as several gateways do. Each is run over the whole suite like a renaming
#: variant: only those rules may fail, and every other rule must be judged
#: as on the unbroken gateway (scenarios find each argument where it is).
REGROUPINGS: dict[str, str] = {
    "args:grouped": "query arguments are members of one object `params`, header arguments of "
    "`headers`, and the request body is `data`, as Kubb takes them",
}

#: Variant -> {rule ID: the status it must have}, for other rules (in any
#: section) whose scenarios rely on what the variant breaks: they must see
#: their own matter only ("passed"), or say they cannot ("not_judged").
ALSO: dict[str, dict[str, str]] = {
    "TC-NAME-003": {"TC-NAME-004": "not_judged"},
    "TC-PROTO-005+plain": {
        "TC-CHECK-002": "not_judged",
        "TC-CHECK-003": "not_judged",
        "TC-CHECK-013": "not_judged",
    },
    "TC-PROTO-006+patch": {"TC-CHECK-013": "not_judged"},
    "TC-SCHEMA-002+dangling": {
        "TC-SCHEMA-003": "not_judged",
        "TC-SCHEMA-007": "not_judged",
        "TC-SCHEMA-008": "not_judged",
    },
    "TC-SCHEMA-004+maximum": {"TC-LOAD-005": "passed"},
    "TC-SEND-003": {"TC-ANS-007": "not_judged", "TC-MASK-003": "not_judged"},
    # Its challenge names no metadata, so whether it names it absolutely
    # cannot be seen.
    "TC-AUTH-001": {"TC-AUTH-002": "not_judged"},
    # Each scenario of these finds the client's Authorization beside what it
    # looks for, and leaves it to TC-REQ-021.
    "TC-REQ-021": {
        "TC-REQ-009": "not_judged",
        "TC-REQ-012": "not_judged",
        "TC-REQ-013": "not_judged",
        "TC-REQ-014": "not_judged",
        "TC-REQ-015": "not_judged",
        "TC-REQ-017": "not_judged",
    },
}


def listing(stdio: bool = False, hosted: bool = False, oauth: bool = False) -> dict[str, dict]:
    """Every variant judged over HTTP (or, with `stdio`, over stdio; with
    `hosted`, those of a gateway that checks its clients; with `oauth`, those
    of one that checks access tokens), as `--list-breaks` prints it; a
    renaming variant says `"renames": true`, a regrouping one
    `"regroups": true`."""
    if oauth:
        return {key: {"what": what, "also": ALSO.get(key, {})} for key, what in OAUTH_BREAKS.items()}
    if stdio:
        return {key: {"what": what, "also": ALSO.get(key, {})} for key, what in STDIO_BREAKS.items()}
    if hosted:
        return {key: {"what": what, "also": ALSO.get(key, {})} for key, what in HOSTED_BREAKS.items()}
    listed = {key: {"what": what, "also": ALSO.get(key, {})} for key, what in BREAKS.items()}
    listed.update({key: {"what": what, "renames": True} for key, what in RENAMINGS.items()})
    listed.update({key: {"what": what, "regroups": True} for key, what in REGROUPINGS.items()})
    return listed


def broken(rule: str) -> bool:
    """Whether this process runs the variant keyed `rule`."""
    return os.environ.get("EXAMPLE_GATEWAY_BREAK") == rule
