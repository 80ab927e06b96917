"""MCP authorization: the gateway as an OAuth 2.1 resource server.

With `--oauth-issuer URL`, every HTTP request must show an access token of
that authorization server as `Authorization: Bearer` (RFC 6750): a JWT
signed with RS256 by a key of the issuer's JWKS (found through its RFC 8414
metadata, else OpenID discovery), for this endpoint's resource (`aud`,
RFC 8707), within `exp` and `nbf`. A request without one gets 401 and a
challenge whose `resource_metadata` is this endpoint's protected-resource
metadata (RFC 9728), served here too. With `--oauth-scope`, a token must
carry that scope, else 403 `insufficient_scope`. A token in the query
string is refused (400). The token stays here: nothing of it is passed to
the API.

Keys: a token naming a key not held makes the JWKS be fetched again (at
most once per 2 s), so a rotation is seen at once; keys older than 10 s are
fetched again before use, so a withdrawn key stops letting tokens in.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import jwt

from .breaks import broken

#: What RFC 9728 puts before a resource's path for its metadata.
METADATA_PREFIX = "/.well-known/oauth-protected-resource"
#: Seconds between two fetches for a key not held, at least.
UNKNOWN_KID_INTERVAL = 2.0
#: Seconds after which held keys are fetched again before use.
KEYS_MAX_AGE = 10.0
#: Seconds allowed for clocks either way (`exp`, `nbf`).
LEEWAY = 30


class Unavailable(Exception):
    """The authorization server's keys cannot be had now."""


class Keys:
    """An issuer's signing keys, by key id, fetched when needed."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.jwks_uri: str | None = None
        self.held: dict[str, Any] = {}
        self.fetched = 0.0
        self.lock = anyio.Lock()

    async def key(self, kid: str | None) -> Any | None:
        """The key `kid` names (with none, the one key held), or None."""
        now = time.monotonic()
        stale = now - self.fetched > KEYS_MAX_AGE and not broken("TC-AUTH-007")
        if self.fetched == 0.0 or (self._pick(kid) is not None and stale):
            await self._fetch(self.fetched)
        elif self._pick(kid) is None and now - self.fetched >= UNKNOWN_KID_INTERVAL and not broken("TC-AUTH-006"):
            await self._fetch(self.fetched)
        return self._pick(kid)

    def _pick(self, kid: str | None) -> Any | None:
        if kid is None:
            return next(iter(self.held.values())) if len(self.held) == 1 else None
        return self.held.get(kid)

    async def _fetch(self, seen: float) -> None:
        async with self.lock:
            if self.fetched != seen:
                return  # fetched meanwhile
            try:
                async with httpx2.AsyncClient(timeout=5.0) as client:
                    if self.jwks_uri is None:
                        self.jwks_uri = await self._discover(client)
                    answer = await client.get(self.jwks_uri)
                    answer.raise_for_status()
                    held = {}
                    for jwk in answer.json().get("keys", []):
                        try:
                            held[jwk.get("kid", "")] = jwt.PyJWK(jwk).key
                        except jwt.PyJWTError:
                            continue  # a key this gateway cannot use
            except (httpx2.HTTPError, ValueError) as error:
                raise Unavailable(str(error)) from error
            self.held = held
            self.fetched = time.monotonic()

    async def _discover(self, client: httpx2.AsyncClient) -> str:
        """The `jwks_uri` of the issuer's metadata: RFC 8414's (the
        well-known path before the issuer's own), else OpenID discovery's."""
        parts = urlsplit(self.issuer)
        for url in (
            f"{parts.scheme}://{parts.netloc}/.well-known/oauth-authorization-server{parts.path.rstrip('/')}",
            f"{self.issuer.rstrip('/')}/.well-known/openid-configuration",
        ):
            answer = await client.get(url)
            if answer.status_code == 200:
                metadata = answer.json()
                if metadata.get("issuer") == self.issuer and metadata.get("jwks_uri"):
                    return metadata["jwks_uri"]
        raise ValueError(f"no metadata of {self.issuer} names its jwks_uri")


class ResourceServer:
    """Who may use the endpoint at `path`: the holders of `issuer`'s tokens
    for `resource`, with `scope` when one is asked."""

    def __init__(self, issuer: str, resource: str, path: str, scope: str | None) -> None:
        self.keys = Keys(issuer)
        self.issuer = issuer
        self.resource = resource
        self.scope = scope
        self.metadata_path = METADATA_PREFIX + (path if path != "/" else "")
        parts = urlsplit(resource)
        self.metadata_url = f"{parts.scheme}://{parts.netloc}{self.metadata_path}"

    def metadata(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "resource": self.resource,
            "bearer_methods_supported": ["header"],
        }
        if not broken("TC-AUTH-003"):
            document["authorization_servers"] = [self.issuer]
        if self.scope:
            document["scopes_supported"] = [self.scope]
        return document

    def challenge(self, error: str | None = None) -> str:
        if broken("TC-AUTH-001") and error is None:
            return 'Bearer realm="mcp"'
        pointed = self.metadata_path if broken("TC-AUTH-002") else self.metadata_url
        parts = [f'resource_metadata="{pointed}"']
        if self.scope:
            parts.append(f'scope="{self.scope}"')
        if error:
            parts.append(f'error="{error}"')
        return "Bearer " + ", ".join(parts)

    async def check(self, token: str) -> tuple[int, str | None, str]:
        """The status a request showing `token` gets (200: let in), its
        challenge's error, and why."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return 401, "invalid_token", "not a JWT"
        if header.get("alg") != "RS256":
            return 401, "invalid_token", "not signed with RS256"
        try:
            key = await self.keys.key(header.get("kid"))
        except Unavailable:
            return 503, None, "the authorization server's keys cannot be had"
        if key is None:
            return 401, "invalid_token", "signed by a key the issuer does not publish"
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=["RS256"],
                audience=self.resource,
                issuer=self.issuer,
                leeway=LEEWAY,
                options={"require": ["exp", "iss", "aud"], "verify_aud": not broken("TC-AUTH-004")},
            )
        except jwt.PyJWTError as error:
            return 401, "invalid_token", str(error)
        granted = str(claims.get("scope", "")).split()
        if self.scope and self.scope not in granted and not broken("TC-AUTH-008"):
            return 403, "insufficient_scope", f"the token lacks the scope {self.scope}"
        return 200, None, ""

    def guard(self, app: Any) -> Any:
        """The ASGI app behind the token check, with the metadata beside it."""

        async def guarded(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            if scope["path"] == self.metadata_path and scope["method"] == "GET":
                await _answer(send, 200, json.dumps(self.metadata()).encode(), [(b"content-type", b"application/json")])
                return
            headers = dict(scope["headers"])
            shown = headers.get(b"authorization", b"").decode("latin-1")
            in_query = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("access_token")
            if in_query and not broken("TC-AUTH-005"):
                await _refuse(send, 400, self.challenge("invalid_request"), "access tokens go in the Authorization header, never the URL")
                return
            token = shown[len("Bearer "):] if shown[:7].lower() == "bearer " else None
            if token is None and in_query:
                token = in_query[0]
            if token is None:
                await _refuse(send, 401, self.challenge(), "this endpoint takes an access token")
                return
            status, error, why = await self.check(token)
            if status == 503:
                await _answer(send, 503, why.encode(), [(b"retry-after", b"2"), (b"content-type", b"text/plain")])
                return
            if status != 200:
                await _refuse(send, status, self.challenge(error), f"the token was refused: {why}")
                return
            await app(scope, receive, send)

        return guarded


async def _refuse(send: Any, status: int, challenge: str, text: str) -> None:
    await _answer(send, status, text.encode(), [(b"www-authenticate", challenge.encode()), (b"content-type", b"text/plain")])


async def _answer(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
