"""The one request a call sends, built from the tool's plan, the checked
arguments and the stored credential only.

Refusals (a dot segment, a path that leaves the base URL, a header value
that would split the header) raise `Refused` before anything is sent.
"""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from .breaks import broken
from .convert import DENIED_HEADERS, DENIED_PREFIXES, Plan
from .load import Document, deref

USER_AGENT = "hosted-mcp-example-python/0.1"
ACCEPT = "application/json, text/plain;q=0.9, */*;q=0.8"

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP header name
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class Refused(Exception):
    """The call cannot be sent; the message says why, never with the value."""


@dataclass(frozen=True)
class Placement:
    """Where the credential goes: `bearer`, `basic`, `header` or `query`."""

    kind: str
    name: str = ""


@dataclass
class Outgoing:
    method: str
    url: str
    headers: list[tuple[str, str]]
    body: bytes | None


def placement(document: Document) -> Placement:
    """`HOSTED_MCP_CREDENTIAL_IN` if set, else the document's security (TC-REQ-017)."""
    configured = os.environ.get("HOSTED_MCP_CREDENTIAL_IN", "").strip()
    if configured:
        kind, _, name = configured.partition(":")
        if kind in ("bearer", "basic") and not name:
            return Placement(kind)
        if kind in ("header", "query") and name:
            return Placement(kind, name)
        raise ValueError(f"HOSTED_MCP_CREDENTIAL_IN={configured!r}: expected bearer, basic, header:NAME or query:NAME")
    components = document.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    schemes = schemes if isinstance(schemes, dict) else {}
    # The top-level requirements in order, then every declared scheme.
    names: list[str] = []
    for requirement in document.get("security") or []:
        if isinstance(requirement, dict):
            names.extend(str(n) for n in requirement)
    names.extend(str(n) for n in schemes)
    for name in names:
        found = _usable(deref(document, schemes.get(name)))
        if found:
            return found
    return Placement("bearer")


def _usable(scheme: Any) -> Placement | None:
    if not isinstance(scheme, dict):
        return None
    kind = scheme.get("type")
    if kind == "apiKey":
        name, where = scheme.get("name"), scheme.get("in")
        if isinstance(name, str) and name and where in ("header", "query"):
            return Placement(where, name)
        return None
    if kind == "http":
        scheme_name = str(scheme.get("scheme", "")).lower()
        return Placement(scheme_name) if scheme_name in ("bearer", "basic") else None
    if kind in ("oauth2", "openIdConnect"):
        return Placement("bearer")
    return None


def build(plan: Plan, arguments: dict[str, Any], base_url: str, credential: str, where: Placement) -> Outgoing:
    values = {p.argument: p for p in plan.params}
    by_location: dict[str, list[tuple[str, Any]]] = {"path": [], "query": [], "header": []}
    for argument, value in arguments.items():
        param = values.get(argument)
        if param is not None and value is not None:
            by_location[param.location].append((param.name, value))

    base = urlsplit(base_url)
    path = _path(base.path, plan.path, dict(by_location["path"]))
    query = "&".join(q for q in (base.query, _query(by_location["query"], credential, where)) if q)
    url = f"{base.scheme}://{base.netloc}{path}" + (f"?{query}" if query else "")  # the base URL's own query first

    headers = _headers(by_location["header"])
    headers += [
        ("Accept", ACCEPT),
        ("Accept-Encoding", "identity"),  # the 1 MB limit counts the bytes as sent
        ("User-Agent", USER_AGENT),
        ("X-Agentify-Operation", (plan.operation_id or plan.tool) if broken("TC-REQ-010") else plan.tool),
    ]
    body = None
    if plan.body_arguments:  # the TC-ARG-003 variant
        members = {name: arguments[name] for name in plan.body_arguments if name in arguments}
        if members or plan.body_required:
            body = json.dumps(members, ensure_ascii=False).encode("utf-8")
            headers.append(("Content-Type", plan.content_type or "application/json"))
    elif plan.has_body and "body" in arguments:
        body = json.dumps(arguments["body"], ensure_ascii=False).encode("utf-8")
        headers.append(("Content-Type", plan.content_type or "application/json"))
    headers = _with_credential(headers, credential, where)
    return Outgoing(plan.method.upper(), url, headers, body)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _simple(value: Any) -> str:
    """OpenAPI's simple style: arrays and objects as comma-separated lists."""
    if isinstance(value, list):
        return ",".join(_scalar(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k},{_scalar(v)}" for k, v in value.items())
    return _scalar(value)


def _path(base_path: str, template: str, values: dict[str, Any]) -> str:
    """The base path, then the template's segments with dot segments resolved
    and each placeholder replaced by its value as one encoded segment."""
    kept: list[str] = []
    for segment in template.split("/")[1:]:
        if "{" not in segment and unquote(segment) in (".", ".."):
            if unquote(segment) == "..":
                if kept:
                    kept.pop()
                elif not broken("TC-REQ-004"):
                    raise Refused(f"the operation path {template} would leave the base URL's path")
                else:
                    kept.append(segment)
            continue
        kept.append(_PLACEHOLDER.sub(lambda m: _segment(m.group(1), values), segment))
    return base_path.rstrip("/") + "/" + "/".join(kept)


def _segment(name: str, values: dict[str, Any]) -> str:
    if name not in values:
        raise Refused(f"the path argument {name} is missing")
    text = _simple(values[name])
    if text in (".", ".."):
        raise Refused(f"the path argument {name} may not be {'a dot' if text == '.' else 'two dots'}: it would change the path")
    if text == "":
        raise Refused(f"the path argument {name} is empty: it would name another resource")
    return quote(text, safe="/" if broken("TC-REQ-002") else "")


def _query(pairs: list[tuple[str, Any]], credential: str, where: Placement) -> str:
    out: list[tuple[str, str]] = []
    for name, value in pairs:
        if isinstance(value, list) and not broken("TC-REQ-005"):
            out.extend((name, _scalar(v)) for v in value)  # form style, exploded
        elif isinstance(value, list):
            out.append((name, ",".join(_scalar(v) for v in value)))
        elif isinstance(value, dict):
            out.extend((str(k), _scalar(v)) for k, v in value.items())
        else:
            out.append((name, _scalar(value)))
    if where.kind == "query":
        out = [(n, v) for n, v in out if n != where.name] + [(where.name, credential)]
    return "&".join(f"{quote(n, safe='')}={quote(v, safe='')}" for n, v in out)


def _headers(pairs: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    out = []
    for name, value in pairs:
        if broken("TC-ARG-006") and (name.lower() in DENIED_HEADERS or name.lower().startswith(DENIED_PREFIXES)):
            # The variant offers these headers as arguments (TC-ARG-006), but
            # still never sends them (TC-REQ-008 kept).
            continue
        if not _TOKEN.fullmatch(name):
            raise Refused(f"the header name {name!r} cannot be sent over HTTP")
        text = _simple(value)
        if any(c in text for c in "\r\n\0"):
            raise Refused(f"the value of the header {name} holds a line break or NUL, which would split the header")
        out.append((name, text))
    return out


def basic_pair(credential: str) -> str:
    """The `user:password` of a basic credential: without a `:`, the
    credential is the user name and the password is empty."""
    return credential if ":" in credential else f"{credential}:"


def _with_credential(headers: list[tuple[str, str]], credential: str, where: Placement) -> list[tuple[str, str]]:
    # Put on last, and alone: nothing an argument set survives in its place.
    if where.kind == "header":
        if not broken("TC-REQ-016"):
            headers = [(n, v) for n, v in headers if n.lower() != where.name.lower()]
        return headers + [(where.name, credential)]
    if where.kind == "bearer":
        return [*headers, ("Authorization", f"Bearer {credential}")]
    if where.kind == "basic":
        pair = credential if broken("TC-REQ-014") else basic_pair(credential)
        encoded = base64.b64encode(pair.encode("utf-8")).decode("ascii")
        return [*headers, ("Authorization", f"Basic {encoded}")]
    return headers
