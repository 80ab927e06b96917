"""Sending the request: once, never redirected, never retried, and within one
15 second deadline over the whole exchange (connect, send, read). The body is
streamed and read up to 1,048,576 bytes and one more, so an endless body
still answers and a cut can be told from a body that fits.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
import httpx2

from .breaks import broken
from .request import Outgoing

DEADLINE_SECONDS = 15.0
#: 1 MB: the most of a body that comes back.
BODY_LIMIT = 1_048_576


@dataclass
class Answer:
    status: int
    reason: str
    content_type: str | None
    location: str | None
    body: bytes  # at most BODY_LIMIT + 1 bytes
    chunks: list[bytes]  # the body as it arrived (for the TC-MASK-004 variant)

    @property
    def cut(self) -> bool:
        return len(self.body) > BODY_LIMIT


class DeliveryFailed(Exception):
    """No answer: the message says what happened and to which request."""


async def send(outgoing: Outgoing) -> Answer:
    attempts = 2 if broken("TC-SEND-001") else 1
    for attempt in range(attempts):
        answer = await _send_once(outgoing)
        if answer.status < 500 or attempt == attempts - 1:
            return answer
    raise AssertionError("unreachable")


async def _send_once(outgoing: Outgoing) -> Answer:
    what = f"{outgoing.method} {outgoing.url}"
    if broken("TC-SEND-005"):
        # Per-operation timeouts: each read may take 15 s, so a trickle never ends.
        timeout = httpx2.Timeout(DEADLINE_SECONDS)
        deadline = float("inf")
    else:
        timeout = httpx2.Timeout(None)
        deadline = DEADLINE_SECONDS
    try:
        with anyio.fail_after(deadline):
            async with httpx2.AsyncClient(
                timeout=timeout,
                follow_redirects=broken("TC-SEND-003"),
                trust_env=False,  # no proxies from the environment
            ) as client:
                request = client.build_request(
                    outgoing.method, outgoing.url, headers=outgoing.headers, content=outgoing.body
                )
                response = await client.send(request, stream=True)
                try:
                    chunks: list[bytes] = []
                    size = 0
                    read_all = broken("TC-ANS-009")
                    async for chunk in response.aiter_raw():
                        chunks.append(chunk)
                        size += len(chunk)
                        if size > BODY_LIMIT and not read_all:
                            break  # enough to know the body is cut
                    body = b"".join(chunks)[: BODY_LIMIT + 1]
                finally:
                    await response.aclose()
    except TimeoutError:
        raise DeliveryFailed(f"{what} timed out: no complete answer within {DEADLINE_SECONDS:.0f} s") from None
    except httpx2.TimeoutException:
        raise DeliveryFailed(f"{what} timed out (a read took over {DEADLINE_SECONDS:.0f} s)") from None
    except httpx2.ConnectError as error:
        raise DeliveryFailed(f"{what} failed: could not connect, connection refused ({error})") from None
    except (httpx2.ReadError, httpx2.WriteError, httpx2.RemoteProtocolError) as error:
        raise DeliveryFailed(f"{what} failed: the connection was reset or closed before the answer was complete ({error})") from None
    except httpx2.HTTPError as error:
        raise DeliveryFailed(f"{what} failed: {error}") from None
    return Answer(
        status=response.status_code,
        reason=response.reason_phrase,
        content_type=response.headers.get("content-type"),
        location=response.headers.get("location"),
        body=body,
        chunks=chunks,
    )
