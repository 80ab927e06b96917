"""Arguments are checked against the tool's input schema before anything is sent.

Only the keywords the spec names are checked, values deeper than 8 levels are
not, and a problem is reported by its JSON Pointer and what is wrong, never
by the value that was sent.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from .breaks import broken
from .convert import GROUPS

#: The arguments object is depth 0; values at this depth or less are checked.
MAX_DEPTH = 8

Problem = tuple[str, str]  # (JSON Pointer, what is wrong)


def check(arguments: dict[str, Any], schema: dict[str, Any]) -> list[Problem]:
    """Every problem of `arguments` against the input `schema`, in order."""
    problems: list[Problem] = []
    _Checker(schema, problems).value(arguments, schema, 0, "")
    return problems


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: 1 == 1.0, but true != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _is_type(value: Any, kind: str) -> bool:
    actual = json_type(value)
    if kind == "number":
        return actual in ("integer", "number")
    if kind == "integer":
        return actual == "integer" or (actual == "number" and float(value).is_integer())
    return actual == kind


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class _Checker:
    def __init__(self, root: dict[str, Any], problems: list[Problem]) -> None:
        self.root = root
        self.problems = problems

    def report(self, pointer: str, what: str) -> None:
        self.problems.append((pointer, what))

    def value(self, value: Any, schema: Any, depth: int, pointer: str) -> None:
        if depth > MAX_DEPTH and not broken("TC-CHECK-011"):
            return
        if schema is False:
            self.report(pointer, "not allowed here")
            return
        if not isinstance(schema, dict):
            return
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target = self._resolve(ref)
            if target is not None:
                self.value(value, target, depth, pointer)
            if broken("TC-CHECK-004"):
                return
        before = len(self.problems)
        self._type(value, schema, pointer)
        if len(self.problems) > before:
            return  # the other keywords say nothing useful about a value of the wrong type
        self._enum_const(value, schema, pointer)
        if isinstance(value, str):
            self._string(value, schema, pointer)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self._number(value, schema, pointer)
        elif isinstance(value, list):
            self._array(value, schema, depth, pointer)
        elif isinstance(value, dict):
            self._object(value, schema, depth, pointer)

    def _resolve(self, ref: str) -> Any:
        here: Any = self.root
        for raw in ref[2:].split("/"):
            token = raw.replace("~1", "/").replace("~0", "~")
            if not isinstance(here, dict) or token not in here:
                return None
            here = here[token]
        return here

    def _type(self, value: Any, schema: dict[str, Any], pointer: str) -> None:
        kind = schema.get("type")
        kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
        if kinds and not any(_is_type(value, k) for k in kinds if isinstance(k, str)):
            expected = " or ".join(str(k) for k in kinds)
            self.report(pointer, f"wrong type: expected {expected}, got {json_type(value)}")

    def _enum_const(self, value: Any, schema: dict[str, Any], pointer: str) -> None:
        enum = schema.get("enum")
        if isinstance(enum, list):
            if broken("TC-CHECK-005") and isinstance(value, str):
                allowed = any(isinstance(m, str) and m.lower() == value.lower() for m in enum)
            else:
                allowed = any(json_equal(value, member) for member in enum)
            if not allowed:
                self.report(pointer, f"not one of the {len(enum)} allowed values")
        if "const" in schema and not json_equal(value, schema["const"]):
            self.report(pointer, "not the one allowed value")

    def _string(self, value: str, schema: dict[str, Any], pointer: str) -> None:
        length = len(value.encode("utf-8")) if broken("TC-CHECK-007") else len(value)
        low, high = schema.get("minLength"), schema.get("maxLength")
        if isinstance(low, (int, float)) and length < low:
            self.report(pointer, f"too short: at least {int(low)} characters")
        if isinstance(high, (int, float)) and length > high:
            self.report(pointer, f"too long: at most {int(high)} characters")
        kind = schema.get("format")
        checker = FORMATS.get(kind) if isinstance(kind, str) else None
        if checker and not checker(value):
            self.report(pointer, f"not a valid {kind}")

    def _number(self, value: float, schema: dict[str, Any], pointer: str) -> None:
        def bound(key: str) -> float | None:
            b = schema.get(key)
            return b if isinstance(b, (int, float)) and not isinstance(b, bool) else None

        if (b := bound("minimum")) is not None and value < b:
            self.report(pointer, f"below the minimum {b}")
        if (b := bound("maximum")) is not None and value > b:
            self.report(pointer, f"above the maximum {b}")
        if (b := bound("exclusiveMinimum")) is not None and value <= b:
            self.report(pointer, f"not above the exclusive minimum {b}")
        if (b := bound("exclusiveMaximum")) is not None and value >= b:
            self.report(pointer, f"not below the exclusive maximum {b}")

    def _array(self, value: list[Any], schema: dict[str, Any], depth: int, pointer: str) -> None:
        low, high = schema.get("minItems"), schema.get("maxItems")
        if isinstance(low, (int, float)) and len(value) < low:
            self.report(pointer, f"too few items: at least {int(low)}")
        if isinstance(high, (int, float)) and len(value) > high:
            self.report(pointer, f"too many items: at most {int(high)}")
        items = schema.get("items")
        if items is None or items is True:
            return
        prefix = schema.get("prefixItems")
        start = len(prefix) if isinstance(prefix, list) else 0  # `items` covers what follows
        for index in range(start, len(value)):
            self.value(value[index], items, depth + 1, f"{pointer}/{index}")

    def _object(self, value: dict[str, Any], schema: dict[str, Any], depth: int, pointer: str) -> None:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        for name in required if isinstance(required, list) else []:
            if isinstance(name, str) and name not in value:
                self.report(f"{pointer}/{_escape(name)}", "missing (required)")
        patterns = schema.get("patternProperties")
        patterns = list(patterns) if isinstance(patterns, dict) else []
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            here = f"{pointer}/{_escape(name)}"
            if name in properties:
                # The args:grouped variant's object of a place stands for
                # the arguments object: its members are arguments.
                grouped = depth == 0 and broken("args:grouped") and name in GROUPS.values()
                self.value(item, properties[name], depth if grouped else depth + 1, here)
            elif any(_search(p, name) for p in patterns):
                continue  # patternProperties decide; they are not checked themselves
            elif extra is False:
                self.report(here, "not allowed (no such property)")
            elif isinstance(extra, dict):
                self.value(item, extra, depth + 1, here)


def _search(pattern: str, name: str) -> bool:
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False


# --- formats -----------------------------------------------------------------------

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-]([0-9]{2}):([0-9]{2}))")
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+")
# RFC 5321's Quoted-string: printable ASCII but `"` and `\`, or either after `\`.
_QUOTED_LOCAL = re.compile(r'"(?:[ !#-\[\]-~]|\\[ -~])*"')
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?")


def _is_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if not match:
        return False
    try:
        date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    day, sep, time = text.partition("T") if "T" in text else text.partition("t")
    if not sep or not _is_date(day):
        return False
    match = _TIME.fullmatch(time)
    if not match:
        return False
    hour, minute, second = int(match[1]), int(match[2]), int(match[3])
    if hour > 23 or minute > 59 or second > 60:  # 60: a leap second
        return False
    if match[6] is not None and (int(match[6]) > 23 or int(match[7]) > 59):
        return False
    return True


def _is_email(text: str) -> bool:
    local, at, domain = text.rpartition("@")
    if not at:
        return False
    dot_atom = _LOCAL.fullmatch(local) and not (local.startswith(".") or local.endswith(".") or ".." in local)
    if not dot_atom and not _QUOTED_LOCAL.fullmatch(local):
        return False
    labels = domain.split(".")
    return len(labels) >= 2 and all(_LABEL.fullmatch(label) for label in labels)


FORMATS = {
    "date-time": _is_date_time,
    "date": _is_date,
    "email": _is_email,
    "uuid": lambda text: _UUID.fullmatch(text) is not None,
}
