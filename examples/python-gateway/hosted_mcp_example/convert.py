"""From the document to tools: names, descriptions, hints, input schemas, and
for each tool the plan of the request a call sends.

Everything here runs once at start-up; `tools/list` serves the result.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from .breaks import broken
from .load import Document, deref, is_missing, resolve_pointer

#: Methods in the order tools are listed within a path.
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

#: Headers no argument may set, compared in lower case.
DENIED_HEADERS = frozenset(
    name.lower()
    for name in (
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "Host",
        "Content-Length", "Content-Type", "Accept", "Accept-Encoding", "Connection",
        "Transfer-Encoding", "X-Api-Key", "Api-Key", "X-Forwarded-For", "Forwarded",
        "X-Request-Id", "Traceparent", "Tracestate", "User-Agent", "X-Real-Ip", "X-Payment",
    )
)
DENIED_PREFIXES = ("x-agentify-", "mcp-", "payment-")

#: MCP's limit on tool names; longer ones keep this many characters, then a hash.
NAME_LIMIT = 128
NAME_KEEP = 100

#: OpenAPI-only keywords that are not JSON Schema.
OPENAPI_ONLY = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example"})
#: Keywords whose value is one schema, a list of schemas, or a map of schemas.
ONE_SCHEMA = frozenset({
    "items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema",
})
SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
SCHEMA_MAP = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"})
#: Numeric bounds, published as floats (JSON Schema compares numbers by value).
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def defs_keyword() -> str:
    """Where referenced schemas travel in the input schema. Read per launch,
    not at import: the fork server imports this module once for every
    variant."""
    return "definitions" if broken("TC-SCHEMA-002") else "$defs"


@dataclass
class Param:
    """One parameter that is an argument."""

    name: str
    location: str  # path, query or header
    argument: str
    required: bool
    #: The args:grouped variant: the object argument it is a member of.
    group: str | None = None


@dataclass
class Plan:
    """What a call of one tool sends."""

    tool: str
    operation_id: str | None
    method: str
    path: str
    params: list[Param]
    has_body: bool = False
    body_required: bool = False
    content_type: str | None = None
    #: The TC-ARG-003 variant: the arguments that make up an object body.
    body_arguments: list[str] = field(default_factory=list)

    def flat(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments under the rules' names: the args:grouped variant
        takes some inside objects of their place, and the body as `data`."""
        if not broken("args:grouped"):
            return arguments
        out = {key: value for key, value in arguments.items() if key not in (*GROUPS.values(), GROUPED_BODY)}
        for param in self.params:
            group = arguments.get(param.group) if param.group else None
            if isinstance(group, dict) and param.name in group:
                out[param.argument] = group[param.name]
        if GROUPED_BODY in arguments:
            out["body"] = arguments[GROUPED_BODY]
        return out


@dataclass
class Tool:
    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    annotations: dict[str, bool]
    plan: Plan

    def published_schema(self) -> dict[str, Any]:
        """The input schema as the tool list shows it (the checker reads
        `input_schema` itself)."""
        if broken("TC-SCHEMA-002+dangling"):
            # As some gateways do: the references stay, what they name goes.
            return {key: value for key, value in self.input_schema.items() if key != "$defs"}
        return self.input_schema


def tools(document: Document) -> list[Tool]:
    """Every tool of the document, in document order."""
    built: list[Tool] = []
    paths = document.get("paths") or {}
    ordered = sorted(paths.items()) if broken("TC-PROTO-006") else list(paths.items())
    for path, raw_item in ordered:
        item = deref(document, raw_item)
        if not isinstance(item, dict):
            continue
        methods = [key for key in item if key in METHODS] if broken("TC-PROTO-006+methods") else METHODS
        for method in methods:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            if operation.get("deprecated") is True and not broken("TC-NAME-010"):
                continue
            if method == "patch" and broken("TC-PROTO-006+patch"):
                continue
            built.append(_tool(document, str(path), method, item, operation))
    _make_names_unique(built)
    return built


# --- names -----------------------------------------------------------------

_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_.\-]")


def _source_name(path: str, method: str, operation: dict[str, Any]) -> str:
    extensions = ("x-mcp", "x-agentify") if broken("TC-NAME-004") else ("x-agentify", "x-mcp")
    if broken("TC-NAME-003"):
        extensions = ("x-agentify",)
    for extension in extensions:
        value = operation.get(extension)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]:
            return value["name"]
    operation_id = operation.get("operationId")
    if isinstance(operation_id, str) and operation_id:
        return operation_id
    return f"{method.upper() if broken('TC-NAME-006') else method} {path}"


def _renamed(path: str, method: str, name: str) -> str:
    """The name a renaming variant gives instead of `name` (see breaks.py)."""
    if broken("names:method-path"):
        words = [f"by_{part[1:-1]}" if part.startswith("{") else part for part in path.split("/") if part]
        return re.sub(r"[^a-z0-9]+", "_", "_".join([method, *words]).lower()).strip("_")
    if broken("names:snake-case"):
        return re.sub(r"[^a-z0-9]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower())
    return name


def clean_name(name: str) -> str:
    """The character rule: anything else becomes one `_` per character."""
    if broken("TC-NAME-007"):
        return _NOT_ALLOWED.sub("_", name.encode("utf-8").decode("latin-1"))
    return _NOT_ALLOWED.sub("_", name)


def _shorten(name: str) -> str:
    # The start stays readable; a hash of the whole name keeps long names
    # that share it apart, whatever order they come in.
    if len(name) <= NAME_LIMIT:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]
    return f"{name[:NAME_KEEP]}-{digest}"


def _make_names_unique(built: list[Tool]) -> None:
    seen: set[str] = set()
    first = 1 if broken("names:method-path") else 2
    for tool in built:
        name = _shorten(tool.name)
        candidate, n = name, first - 1
        while candidate in seen:
            n += 1
            candidate = f"{name}_{n}"
        seen.add(candidate)
        tool.name = tool.plan.tool = candidate


# --- one operation -----------------------------------------------------------


def _tool(document: Document, path: str, method: str, item: dict[str, Any], operation: dict[str, Any]) -> Tool:
    name = _renamed(path, method, clean_name(_source_name(path, method, operation)))
    summary = operation.get("summary") if isinstance(operation.get("summary"), str) else None
    details = operation.get("description") if isinstance(operation.get("description"), str) else None
    schema_builder = SchemaBuilder(document)

    parameters = _parameters(document, item, operation)
    body = deref(document, operation.get("requestBody"))
    has_body = isinstance(body, dict) and isinstance(body.get("content"), dict)
    names = [p["name"] for p in parameters] + (["body"] if has_body else [])

    properties: dict[str, Any] = {}
    required: list[str] = []
    params: list[Param] = []
    for parameter in parameters:
        pname, location = parameter["name"], parameter["in"]
        clash = names.count(pname) > 1 or (pname == "body" and has_body)
        if broken("TC-ARG-002") and pname != "body":
            # Only a name seen before this parameter counts as a clash.
            clash = pname in [p["name"] for p in parameters[: parameters.index(parameter)]]
        argument = f"{location}_{pname}" if clash else pname
        schema = schema_builder.convert(_parameter_schema(parameter))
        description = parameter.get("description")
        if isinstance(description, str) and isinstance(schema, dict) and "description" not in schema:
            schema["description"] = description
        properties[argument] = schema
        is_required = parameter.get("required") is True or location == "path"
        if is_required:
            required.append(argument)
        params.append(Param(pname, location, argument, is_required))

    plan = Plan(name, operation.get("operationId"), method, path, params)
    if has_body:
        content: dict[str, Any] = body["content"]
        media = _pick_media_type(list(content))
        media_object = content.get(media) if media else None
        raw_schema = media_object.get("schema", {}) if isinstance(media_object, dict) else {}
        plan.has_body, plan.content_type = True, media
        plan.body_required = body.get("required") is True
        flat = deref(document, raw_schema) if broken("TC-ARG-003") else None
        if isinstance(flat, dict) and isinstance(flat.get("properties"), dict) and flat["properties"]:
            # As some gateways do: the body's properties become arguments
            # (those whose names a parameter took are left out).
            body_required = flat.get("required") if isinstance(flat.get("required"), list) else []
            for member, subschema in flat["properties"].items():
                if member in properties or schema_builder._read_only(subschema):
                    continue
                properties[member] = schema_builder.convert(subschema, request_body=True)
                plan.body_arguments.append(member)
                if plan.body_required and member in body_required:
                    required.append(member)
        else:
            properties["body"] = schema_builder.convert(raw_schema, request_body=True)
            if plan.body_required:
                required.append("body")

    if broken("args:grouped"):
        properties, required = _grouped(properties, required, params)

    input_schema: dict[str, Any] = {"type": "object"}
    if not broken("TC-SCHEMA-001"):
        input_schema["additionalProperties"] = False
    input_schema["properties"] = properties
    if required:
        input_schema["required"] = required
    if schema_builder.defs:
        input_schema[defs_keyword()] = schema_builder.defs

    return Tool(
        name=name,
        title=_title(summary),
        description=_description(summary, details),
        input_schema=input_schema,
        annotations={
            "readOnlyHint": method in ("get", "head", "options"),
            "destructiveHint": method in (("delete", "put") if broken("TC-HINT-003") else ("delete", "put", "patch")),
            "idempotentHint": method not in (("post", "patch", "put") if broken("TC-HINT-004") else ("post", "patch")),
        },
        plan=plan,
    )


#: The args:grouped variant: the object argument of each place, as Kubb
#: names them (path parameters stay arguments of their own).
GROUPS = {"query": "params", "header": "headers"}
#: ... and the request body's argument.
GROUPED_BODY = "data"


def _grouped(properties: dict[str, Any], required: list[str], params: list[Param]) -> tuple[dict[str, Any], list[str]]:
    """The args:grouped variant's arguments: query and header parameters as
    members, under their own names, of one object per place; the body as
    `data`. Each object takes no other members."""
    out: dict[str, Any] = {}
    out_required: list[str] = []
    for param in params:
        group = GROUPS.get(param.location)
        if group is None:
            out[param.argument] = properties[param.argument]
            if param.argument in required:
                out_required.append(param.argument)
            continue
        param.group = group
        holder = out.setdefault(group, {"type": "object", "additionalProperties": False, "properties": {}})
        holder["properties"][param.name] = properties[param.argument]
        if param.argument in required:
            holder.setdefault("required", []).append(param.name)
            if group not in out_required:
                out_required.append(group)
    for name, schema in properties.items():
        if name not in {p.argument for p in params}:  # the body, or its members (TC-ARG-003 variant)
            key = GROUPED_BODY if name == "body" else name
            out[key] = schema
            if name in required:
                out_required.append(key)
    return out, out_required


def _title(summary: str | None) -> str | None:
    limit = 100 if broken("TC-DESC-005") else 80
    if summary and "\n" not in summary and "\r" not in summary and len(summary) <= limit:
        return summary
    return None


def _description(summary: str | None, details: str | None) -> str | None:
    if summary and details:
        return f"{summary}\n{details}" if broken("TC-DESC-001") else f"{summary}\n\n{details}"
    return summary or details or None


def _parameters(document: Document, item: dict[str, Any], operation: dict[str, Any]) -> list[dict[str, Any]]:
    """The path item's parameters, each replaced by the operation's own of the
    same name and location, then the operation's others; cookies and denied
    headers left out."""

    def resolved(raw: Any) -> list[dict[str, Any]]:
        out = []
        for entry in raw if isinstance(raw, list) else []:
            if broken("TC-LOAD-003") and isinstance(entry, dict) and "$ref" in entry:
                continue
            parameter = deref(document, entry)
            if isinstance(parameter, dict) and isinstance(parameter.get("name"), str) and parameter.get("in"):
                out.append(parameter)
        return out

    own = resolved(operation.get("parameters"))
    inherited = [] if broken("TC-LOAD-005") else resolved(item.get("parameters"))
    keys = {(p["name"], p["in"]) for p in own}
    merged = [p for p in inherited if (p["name"], p["in"]) not in keys] + own
    return [p for p in merged if _is_argument(p)]


def _is_argument(parameter: dict[str, Any]) -> bool:
    location = parameter["in"]
    if location == "cookie":
        return broken("TC-ARG-005")
    if location == "header":
        name = parameter["name"] if broken("TC-ARG-006") else parameter["name"].lower()
        return name not in DENIED_HEADERS and not name.startswith(DENIED_PREFIXES)
    return location in ("path", "query")


def _parameter_schema(parameter: dict[str, Any]) -> Any:
    if "schema" in parameter:
        return parameter["schema"]
    content = parameter.get("content")
    if isinstance(content, dict) and content:
        first = next(iter(content.values()))
        if isinstance(first, dict):
            return first.get("schema", {})
    return {}


def is_json_media_type(media: str) -> bool:
    essence = media.split(";")[0].strip().lower()
    return essence == "application/json" or essence.endswith("+json")


def _pick_media_type(listed: list[str]) -> str | None:
    for media in listed:
        if is_json_media_type(media):
            return media
    return listed[0] if listed else None


# --- schemas -------------------------------------------------------------------


@dataclass
class SchemaBuilder:
    """Turns OpenAPI schemas into one tool's JSON Schema 2020-12.

    Referenced schemas are converted once each into `defs`, under a name made
    from the last token of the reference; names that come out alike get `-2`,
    `-3`, ... (the catalogue leaves the naming to the gateway).
    """

    document: Document
    defs: dict[str, Any] = field(default_factory=dict)
    _names: dict[tuple[str, bool], str] = field(default_factory=dict)

    def convert(self, node: Any, request_body: bool = False) -> Any:
        if isinstance(node, bool) or not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in OPENAPI_ONLY or key.startswith("x-"):
                continue
            if key == "$ref" and isinstance(value, str):
                out[key] = self._ref(value, request_body)
            elif key == "items" and isinstance(value, list):
                # The older drafts' tuple is 2020-12's prefixItems, and the
                # items after it, their additionalItems, 2020-12's items.
                out["prefixItems"] = [self.convert(v, request_body) for v in value]
                if "additionalItems" in node:
                    out["items"] = self.convert(node["additionalItems"], request_body)
            elif key == "additionalItems" and isinstance(node.get("items"), list):
                continue
            elif key in ONE_SCHEMA:
                out[key] = self.convert(value, request_body)
            elif key in SCHEMA_LIST and isinstance(value, list):
                out[key] = [self.convert(v, request_body) for v in value]
            elif key in SCHEMA_MAP and isinstance(value, dict):
                out[key] = {
                    name: self.convert(v, request_body)
                    for name, v in value.items()
                    if not (key == "properties" and request_body and self._read_only(v))
                }
            elif key == "type" and isinstance(value, list):
                out[key] = list(dict.fromkeys(value))  # a type named twice is named once
            else:
                out[key] = value
        if request_body and isinstance(out.get("required"), list):
            dropped = self._read_only_names(node, set())
            out["required"] = [n for n in out["required"] if n not in dropped]
        if "example" in node and "examples" not in node:
            out["examples"] = [node["example"]]
        self._bounds(out)
        if node.get("nullable") is True:
            return _nullable(out)
        return out

    def _read_only_names(self, node: Any, seen: set[str]) -> set[str]:
        """The read-only properties of `node`: its own, and those of the
        schemas it takes in through `$ref` and `allOf`; `seen` holds the
        references already followed, so a loop ends."""
        node = deref(self.document, node)
        if not isinstance(node, dict):
            return set()
        properties = node.get("properties")
        names = {n for n, v in properties.items() if self._read_only(v)} if isinstance(properties, dict) else set()
        for member in node.get("allOf") or []:
            ref = member.get("$ref") if isinstance(member, dict) else None
            if isinstance(ref, str):
                if ref in seen:
                    continue
                seen.add(ref)
            names |= self._read_only_names(member, seen)
        return names

    def _read_only(self, node: Any) -> bool:
        node = deref(self.document, node)
        return isinstance(node, dict) and node.get("readOnly") is True

    def _ref(self, ref: str, request_body: bool = False) -> str:
        # A request body's copy of a schema leaves its readOnly properties out
        # (TC-SCHEMA-007), so it is a definition of its own.
        key = (ref, request_body)
        if key not in self._names:
            token = ref.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            base = (_NOT_ALLOWED.sub("_", token) or "schema") + ("-in" if request_body else "")
            name, n = base, 1
            while name in self.defs:
                n += 1
                name = f"{base}-{n}"
            self._names[key] = name
            self.defs[name] = {}  # taken before converting, for recursive schemas
            target = resolve_pointer(self.document, ref)
            if is_missing(target) or self._only_loops(ref):
                target = {}  # constrains nothing, and publishes no loop
            self.defs[name] = self.convert(target, request_body)
        return f"#/{defs_keyword()}/{self._names[key]}"

    def _only_loops(self, ref: str) -> bool:
        """Whether following `$ref` after `$ref` from `ref` comes back to one
        already passed, with no other schema on the way."""
        passed: set[str] = set()
        while ref not in passed:
            passed.add(ref)
            target = resolve_pointer(self.document, ref)
            if not (isinstance(target, dict) and isinstance(target.get("$ref"), str)):
                return False
            ref = target["$ref"]
        return True

    @staticmethod
    def _bounds(out: dict[str, Any]) -> None:
        if not broken("TC-SCHEMA-004"):
            for exclusive, inclusive in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
                flag = out.get(exclusive)
                if isinstance(flag, bool):
                    del out[exclusive]
                    if flag and inclusive in out:
                        out[exclusive] = out.pop(inclusive)
        for key in BOUNDS:
            value = out.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53:
                out[key] = float(value)  # our freedom: 50 is published as 50.0
        if broken("TC-SCHEMA-004+maximum"):
            out.pop("maximum", None)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if schema.get("const", None) is not None:
        # A const admits its one value: null becomes the other branch.
        return {"anyOf": [schema, {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list):
        if "null" not in kind:
            schema["type"] = [*kind, "null"]
    elif any(k in schema for k in ("$ref", "allOf", "anyOf", "oneOf")):
        # No type to widen: null becomes the other branch.
        return {"anyOf": [schema, {"type": "null"}]}
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum and not broken("TC-SCHEMA-003"):
        schema["enum"] = [*enum, None]
    return schema
