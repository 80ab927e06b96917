"""What the agent gets back: the answer as text, JSON pretty-printed, cut at
1 MB on a character boundary, non-text bodies described, redirects and other
statuses as errors, and the credential masked in every text.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

from .breaks import broken
from .deliver import BODY_LIMIT, Answer
from .request import Placement, basic_pair

MASK = "[credential]"
#: How much of an error body is shown: the rules allow 100 to 1,024 bytes.
ERROR_BODY_BYTES = 512
INDENT = "    "

_TEXT_TYPES = re.compile(
    r"text/.*|application/(json|xml|javascript|ecmascript|x-javascript|yaml|x-yaml|x-www-form-urlencoded)"
    r"|application/.*\+(json|xml|yaml)"
)


class Masker:
    """Replaces the credential, and the writings an API may echo it in, by `[credential]`.

    Each character is matched in any writing a JSON encoder or a URL encoder
    may give it (plain, a two-character or `\\u` escape, percent-encoded,
    hex digits in either case), so an echo that mixes writings is masked too.
    """

    def __init__(self, credential: str, where: Placement) -> None:
        secrets = {credential}
        if where.kind == "basic":
            secrets.add(base64.b64encode(basic_pair(credential).encode("utf-8")).decode("ascii"))
            password = credential.partition(":")[2]
            if len(password) >= 4:
                secrets.add(password)
        secrets.discard("")
        # Longest first, so a secret that begins with another is masked whole.
        self._secrets = sorted(secrets, key=len, reverse=True)
        alternatives = "|".join(_written(secret) for secret in self._secrets)
        self._pattern = re.compile(alternatives) if self._secrets else None
        #: How many characters one echo can take at most: twelve a character.
        self._widest = 12 * max((len(secret) for secret in self._secrets), default=0)

    def __call__(self, text: str) -> str:
        return self._pattern.sub(MASK, text) if self._pattern else text

    def drop_partial(self, text: str) -> str:
        """`text` without a start of the credential (in any writing) at its
        end: a body cut at 1 MB must not leave half a credential behind."""
        start = max(0, len(text) - self._widest)
        tail = text[start:]
        for secret in self._secrets:
            for size in range(len(secret) - 1, 0, -1):
                found = re.search(f"(?:{_written(secret[:size])}){_HALF_ESCAPE}\\Z", tail)
                if found:
                    return text[: start + found.start()]
        return text


#: The start of an escape the cut may split: `\\`, `\\u00`, `%`, `%2`.
_HALF_ESCAPE = r"(?:\\(?:u[0-9a-fA-F]{0,3})?|%[0-9a-fA-F]?)?"

_SHORT_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}


def _written(secret: str) -> str:
    """A pattern for `secret` with each character in any of its writings."""
    return "".join(_character(c) for c in secret)


def _character(c: str) -> str:
    # Widest first: `%25` is a whole `%`, not a `%` before `25`.
    code = ord(c)
    units = [code] if code < 0x10000 else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)]
    writings = [
        "".join(r"\\u" + _either_case(f"{unit:04x}") for unit in units),
        "".join("%" + _either_case(f"{byte:02x}") for byte in c.encode("utf-8")),
    ]
    if c in _SHORT_ESCAPES:
        writings.append(re.escape("\\" + _SHORT_ESCAPES[c]))
    writings.append(re.escape(c))
    return "(?:" + "|".join(writings) + ")"


def _either_case(hex_digits: str) -> str:
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in hex_digits)


def render(answer: Answer, mask: Masker) -> tuple[bool, str]:
    """(is_error, text) for an upstream answer."""
    if answer.status in (301, 302, 303, 307, 308):
        location = answer.location or "(no Location header)"
        if broken("TC-ANS-007"):
            return True, f"The API answered with a redirect (HTTP {answer.status}); redirects are not followed."
        shown = location if broken("TC-MASK-003") else mask(location)
        return True, f"The API redirected (HTTP {answer.status}) to {shown}; redirects are not followed."
    if 200 <= answer.status < 300:
        return False, _success(answer, mask)
    return True, _failure(answer, mask)


def _success(answer: Answer, mask: Masker) -> str:
    if not answer.body:
        return f"The API answered HTTP {answer.status} with an empty body."
    text = _as_text(answer, mask)
    if text is None:
        return _describe(answer)
    if broken("TC-ANS-001"):
        text = text.rstrip("\r\n")
    if is_json(answer.content_type) and not answer.cut and not broken("TC-ANS-002"):
        text = pretty_json(text) or text
    text = _mask_whole(mask, text)
    if answer.cut:
        text = mask.drop_partial(text)
    if answer.cut or (broken("TC-ANS-003") and len(answer.body) >= BODY_LIMIT):
        text += f"\n\n[Cut: the answer is longer than the 1 MB limit ({BODY_LIMIT:,} bytes); the rest is not shown.]"
    return text


def _failure(answer: Answer, mask: Masker) -> str:
    head = f"The API answered HTTP {answer.status} {answer.reason}".rstrip()
    if not answer.body:
        return f"{head}, with an empty body."
    text = _as_text(answer, mask)
    if text is None:
        return f"{head}. {_describe(answer)}"
    if not broken("TC-MASK-002"):
        text = _mask_whole(mask, text)
    shown = _cut(text.encode("utf-8"), ERROR_BODY_BYTES).decode("utf-8")
    more = " (the start of it)" if len(shown) < len(text) else ""
    return f"{head}. Body{more}:\n{shown}"


def _mask_whole(mask: Masker, text: str) -> str:
    # The TC-MASK-004 variant masked chunk by chunk in `_as_text` instead.
    return text if broken("TC-MASK-004") else mask(text)


def _as_text(answer: Answer, mask: Masker) -> str | None:
    """The body as text, cut at 1 MB on a character boundary; None when it is not text."""
    body = answer.body
    if broken("TC-MASK-004"):
        # Each chunk masked on its own: a credential split across two slips through.
        body = b"".join(mask(c.decode("utf-8", "replace")).encode("utf-8") for c in answer.chunks)
    kept = body[:BODY_LIMIT] if broken("TC-ANS-004") else _cut(body, BODY_LIMIT)
    if answer.content_type is None:
        try:
            return kept.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not _TEXT_TYPES.fullmatch(_essence(answer.content_type)):
        return None
    return kept.decode("utf-8", "replace")


def _essence(content_type: str) -> str:
    return content_type.split(";")[0].strip().lower()


def is_json(content_type: str | None) -> bool:
    if content_type is None:
        return False
    essence = _essence(content_type)
    return essence == "application/json" or essence.endswith("+json")


def _cut(data: bytes, limit: int) -> bytes:
    """At most `limit` bytes, ending on a UTF-8 character boundary."""
    if len(data) <= limit:
        return data
    data = data[:limit]
    start = len(data) - 1
    while start > 0 and start > len(data) - 4 and data[start] & 0xC0 == 0x80:
        start -= 1
    lead = data[start]
    need = 1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
    return data if start + need <= len(data) else data[:start]


def _describe(answer: Answer) -> str:
    size = f"more than {BODY_LIMIT:,}" if answer.cut else f"{len(answer.body)}"
    kind = answer.content_type or "no content type, not UTF-8"
    return f"The API answered HTTP {answer.status} with a body that is not text: {size} bytes ({kind}), not shown."


# --- JSON, pretty-printed with every number as written -------------------------


class _Number(str):
    """A number's text as the API wrote it, so no digit is lost."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def pretty_json(text: str) -> str | None:
    try:
        value = json.loads(text, parse_float=_Number, parse_int=_Number, parse_constant=_no_constant)
    except ValueError:
        return None
    out: list[str] = []
    _write(value, "", out)
    return "".join(out)


def _write(value: Any, indent: str, out: list[str]) -> None:
    inner = indent + INDENT
    if isinstance(value, dict) and value:
        out.append("{\n")
        for i, (key, item) in enumerate(value.items()):
            out.append(f"{inner}{json.dumps(key, ensure_ascii=False)}: ")
            _write(item, inner, out)
            out.append(",\n" if i < len(value) - 1 else "\n")
        out.append(indent + "}")
    elif isinstance(value, list) and value:
        out.append("[\n")
        for i, item in enumerate(value):
            out.append(inner)
            _write(item, inner, out)
            out.append(",\n" if i < len(value) - 1 else "\n")
        out.append(indent + "]")
    elif isinstance(value, _Number):
        out.append(str.__str__(value))
    else:
        out.append(json.dumps(value, ensure_ascii=False))
