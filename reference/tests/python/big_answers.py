"""List a gateway's tools and call one with the official MCP Python SDK, in
every era and transport, and print what came back as JSON.

Usage:
  big_answers.py URL TOOL ARGUMENTS_JSON -- COMMAND [ARG ...]

Over Streamable HTTP at URL, once with the initialize handshake and once
with server/discover, and over stdio with COMMAND launched by the SDK: lists
the tools and calls TOOL with ARGUMENTS_JSON. Prints
{"http handshake": {"protocol", "tools", "is_error", "text"}, "http discover": ...,
 "stdio handshake": ...} on stdout, "tools" being the listed names and
"text" the call's text content. The SDK refuses what it cannot read (an SSE
event over 1 MiB, say), which raises, so the exit status is non-zero.
"""

import asyncio
import json
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


async def list_and_call(read, write, era, tool, arguments):
    async with ClientSession(read, write) as session:
        if era == "discover":
            await session.discover()
        else:
            await session.initialize()
        listed = await session.list_tools()
        result = await session.call_tool(tool, arguments)
        return {
            "protocol": str(session.protocol_version),
            "tools": [t.name for t in listed.tools],
            "is_error": bool(result.is_error),
            "text": "".join(block.text for block in result.content if block.type == "text"),
        }


async def main(argv):
    split = argv.index("--")
    url, tool, arguments = argv[1], argv[2], json.loads(argv[3])
    command = argv[split + 1 :]
    seen = {}
    for era in ("handshake", "discover"):
        async with streamable_http_client(url) as (read, write):
            seen[f"http {era}"] = await list_and_call(read, write, era, tool, arguments)
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        seen["stdio handshake"] = await list_and_call(read, write, "handshake", tool, arguments)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
