"""Loading the document: JSON or YAML, OpenAPI 3.0 or 3.1, every `$ref` checked.

A document that cannot be used raises `LoadError` with a message that says
where it is wrong: the line of a syntax error, or the JSON pointer of a
reference to nothing. Nothing is ever fetched: a reference to another file
or a URL is refused like a dangling one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml

from .breaks import broken

try:  # The C loader is several times faster on large documents.
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _YamlLoader = yaml.SafeLoader

Document = dict[str, Any]


class LoadError(Exception):
    """The document cannot be used; the message names where."""


def load(path: str) -> Document:
    """Reads, parses and checks the document at `path`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LoadError(f"{path}: cannot read the document: {error}") from None
    document = _parse(path, text)
    _check_version(path, document)
    if not broken("TC-LOAD-006"):
        _check_refs(path, text, document, document, "#")
    return document


def _parse(path: str, text: str) -> Any:
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise LoadError(
                f"{path}:{error.lineno}:{error.colno}: not valid JSON "
                f"(line {error.lineno}, column {error.colno}): {error.msg}"
            ) from None
    try:
        return yaml.load(text, Loader=_YamlLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown line"
        raise LoadError(f"{path}: not valid YAML at {where}: {error.problem or error}") from None
    except yaml.YAMLError as error:
        raise LoadError(f"{path}: not valid YAML: {error}") from None


def _check_version(path: str, document: Any) -> None:
    if not isinstance(document, dict):
        raise LoadError(f"{path}: not an OpenAPI document: expected an object with an `openapi` field")
    if "swagger" in document and "openapi" not in document:
        raise LoadError(f"{path}: Swagger {document['swagger']} is not supported; the `openapi` field must say 3.0 or 3.1")
    version = document.get("openapi")
    if not isinstance(version, str):
        raise LoadError(f"{path}: not an OpenAPI document: the `openapi` field is missing or not a string")
    accepted = ("3.0.",) if broken("TC-LOAD-002") else ("3.0.", "3.1.")
    if not version.startswith(accepted):
        raise LoadError(f"{path}: #/openapi: version {version} is not supported (3.0.x and 3.1.x are)")
    if not isinstance(document.get("paths", {}), dict):
        raise LoadError(f"{path}: #/paths: expected an object")


def _check_refs(path: str, text: str, document: Document, node: Any, pointer: str) -> None:
    """Fails on the first `$ref` that does not point inside the document,
    naming the line where that reference is first written."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            where = f"{path}:{_line_of(text, ref)}: {pointer}"
            if not ref.startswith("#"):
                raise LoadError(f"{where}: the reference {ref} is outside the document; it is never fetched")
            if resolve_pointer(document, ref) is _MISSING:
                raise LoadError(f"{where}: the reference {ref} points at nothing")
        for key, value in node.items():
            _check_refs(path, text, document, value, f"{pointer}/{_escape(str(key))}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _check_refs(path, text, document, value, f"{pointer}/{index}")


def _line_of(text: str, ref: str) -> int:
    """The line (from 1) where `ref` is first written; 1 if not found as written."""
    at = text.find(ref)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class _Missing:
    pass


_MISSING: Any = _Missing()


def resolve_pointer(document: Document, ref: str) -> Any:
    """The value a local reference (`#/a/b`) names, or `MISSING`."""
    here: Any = document
    fragment = unquote(ref[1:])
    if fragment == "":
        return here
    if not fragment.startswith("/"):
        return _MISSING
    for raw in fragment[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(here, dict) and token in here:
            here = here[token]
        elif isinstance(here, list) and token.isdigit() and int(token) < len(here):
            here = here[int(token)]
        else:
            return _MISSING
    return here


def is_missing(value: Any) -> bool:
    return value is _MISSING


def deref(document: Document, node: Any, hops: int = 32) -> Any:
    """Follows `$ref` chains of a parameter, request body or path item.

    A reference to nothing (only possible in the TC-LOAD-006 variant) gives
    an empty object.
    """
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and hops > 0:
        target = resolve_pointer(document, node["$ref"])
        node = {} if is_missing(target) else target
        hops -= 1
    return node
