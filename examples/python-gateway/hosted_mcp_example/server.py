"""The MCP side: the official Python SDK's low-level server, over Streamable
HTTP at /mcp or over stdio, for clients of both protocol eras.

This is the only module that knows MCP. A call goes check -> request ->
deliver -> answer; only an unknown tool is a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
from urllib.parse import urlsplit
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from . import __version__
from .answer import Masker, render
from .breaks import broken
from .check import check
from .convert import Tool
from .deliver import DeliveryFailed, send
from .request import Placement, Refused, build


RAW_CALL = "hosted-mcp-example/tools-call"


async def _route_raw_calls(ctx: Any, call_next: Any) -> Any:
    params = ctx.params
    if (
        ctx.method == "tools/call"
        and isinstance(params, dict)
        and params.get("arguments") is not None
        and not isinstance(params["arguments"], dict)
    ):
        ctx = dataclasses.replace(ctx, method=RAW_CALL)
    return await call_next(ctx)


class CallParams(types.CallToolRequestParams):
    """tools/call params whose `arguments` may be any JSON value."""

    arguments: Any = None


class Gateway:
    """The tools of one document, and how to call them."""

    def __init__(self, tools: list[Tool], base_url: str, credential: str, where: Placement) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.base_url = base_url
        self.credential = credential
        self.where = where
        self.mask = Masker(credential, where)
        # Built once: every tools/list serves the same list.
        self.listed = types.ListToolsResult(tools=[_mcp_tool(tool) for tool in tools])

    async def list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return self.listed

    async def call_tool(self, ctx: Any, params: CallParams) -> types.CallToolResult:
        tool = self.tools.get(params.name)
        if tool is None:
            if broken("TC-PROTO-004"):
                return _error(f"There is no tool named {params.name}.")
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        arguments = params.arguments if params.arguments is not None else {}
        if not isinstance(arguments, dict):
            if broken("TC-PROTO-005"):
                await _send_garbage(self.base_url)
            # TC-PROTO-005: still the tool's call, so a tool error.
            return _error(f"The arguments of {tool.name} must be an object; nothing was sent.")
        problems = check(arguments, tool.input_schema)
        if problems:
            if broken("TC-CHECK-014"):
                problems = [(pointer, f"{what} (got {_value_at(arguments, pointer)})") for pointer, what in problems]
            if broken("TC-CHECK-015"):
                try:  # sent anyway, as a gateway that checks and sends side by side would
                    await send(build(tool.plan, arguments, self.base_url, self.credential, self.where))
                except (Refused, DeliveryFailed):
                    pass
            lines = "\n".join(f"- {pointer or '/'}: {what}" for pointer, what in problems)
            refusal = f"The arguments of {tool.name} do not fit its input schema; nothing was sent.\n{lines}"
            if broken("TC-PROTO-005+plain"):
                return types.CallToolResult(content=[types.TextContent(text=refusal)], is_error=False)
            return _error(refusal)
        arguments = tool.plan.flat(arguments)
        try:
            outgoing = build(tool.plan, arguments, self.base_url, self.credential, self.where)
            if broken("TC-REQ-021"):
                shown = _client_authorization(ctx)
                if shown is not None:
                    outgoing.headers = [("Authorization", shown), *outgoing.headers]
            is_error, text = render(await send(outgoing), self.mask)
        except Refused as refusal:
            return _error(f"Refused, nothing was sent: {refusal}.")
        except DeliveryFailed as failure:
            if broken("TC-MASK-007"):  # the request it sent, URL and headers, as it was
                return _error(f"{failure}\nSent with: {dict(outgoing.headers)}")
            text = self.mask(str(failure))
            return _error(text)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)

    def server(self) -> Server[Any]:
        server = Server(
            "hosted-mcp-example-python",
            version=__version__,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )
        # The SDK refuses a tools/call whose arguments are not an object with
        # a JSON-RPC error before any handler runs; such a call goes to
        # call_tool under a method of our own instead (TC-PROTO-005).
        server.add_request_handler(RAW_CALL, CallParams, self.call_tool)
        server.middleware.append(_route_raw_calls)
        return server


def _value_at(arguments: Any, pointer: str) -> str:
    """The TC-CHECK-014 variant: the value at `pointer`, as JSON."""
    here = arguments
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(here, dict) and token in here:
            here = here[token]
        elif isinstance(here, list) and token.isdigit() and int(token) < len(here):
            here = here[int(token)]
        else:
            return "nothing"
    return json.dumps(here, ensure_ascii=False)


async def _send_garbage(base_url: str) -> None:
    """Bytes that are no HTTP request, written to the upstream's address."""
    url = urlsplit(base_url)
    try:
        _, writer = await asyncio.open_connection(url.hostname, url.port or 80)
        writer.write(b"\x00\x01 arguments were not an object \xff\r\n\r\n")
        await writer.drain()
        writer.close()
        await writer.wait_closed()
    except OSError:
        pass


def _client_authorization(ctx: Any) -> str | None:
    """The Authorization header of the HTTP request that carried this call,
    if any (for the TC-REQ-021 variant alone: nothing of the client's
    request is ever sent on)."""
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    return headers.get("authorization") if headers is not None else None


def _only_with_bearer(app: Any, token: str) -> Any:
    """The ASGI app, letting in only HTTP requests that show `token` as a
    bearer token (a hosted gateway's own clients); the rest get 401."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"www-authenticate", b"Bearer"), (b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"a client of this gateway must show its bearer token"})
            return
        await app(scope, receive, send)

    return guarded


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def _mcp_tool(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.published_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.annotations["readOnlyHint"],
            destructive_hint=tool.annotations["destructiveHint"],
            idempotent_hint=tool.annotations["idempotentHint"],
        ),
    )


async def serve_stdio(gateway: Gateway) -> None:
    from mcp.server.stdio import stdio_server

    server = gateway.server()
    if broken("TC-PROTO-001"):
        print("hosted_mcp_example: serving MCP on stdio", flush=True)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    gateway: Gateway,
    listener: socket.socket,
    path: str = "/mcp",
    client_token: str | None = None,
    resource_server: Any = None,
) -> None:
    import uvicorn

    # Our freedoms: JSON answers instead of SSE streams, and no sessions in
    # the initialize era either. The SDK guards Host and Origin on loopback.
    host = listener.getsockname()[0]
    app = gateway.server().streamable_http_app(
        json_response=True, stateless_http=True, host=host, streamable_http_path=path
    )
    if client_token is not None and not broken("TC-PROTO-010"):
        app = _only_with_bearer(app, client_token)
    if resource_server is not None:
        app = resource_server.guard(app)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[listener])
