"""List a gateway's tools with the official MCP Python SDK and print them as JSON.

Usage:
  list_tools.py http URL [handshake|discover]
  list_tools.py stdio COMMAND [ARG ...]

Prints {"protocol": ..., "tools": [{"name", "title", "annotations", "inputSchema"}...]}
on stdout; any failure raises, so the exit status is non-zero.
"""

import asyncio
import json
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


async def list_with(read, write, era):
    async with ClientSession(read, write) as session:
        if era == "discover":
            await session.discover()
        else:
            await session.initialize()
        protocol = session.protocol_version
        listed = await session.list_tools()
        tools = [
            tool.model_dump(mode="json", by_alias=True, exclude_none=True)
            for tool in listed.tools
        ]
        return {"protocol": str(protocol), "tools": tools}


async def main(argv):
    transport = argv[1]
    if transport == "http":
        era = argv[3] if len(argv) > 3 else "handshake"
        async with streamable_http_client(argv[2]) as (read, write):
            out = await list_with(read, write, era)
    elif transport == "stdio":
        params = StdioServerParameters(
            command=argv[2], args=argv[3:], env=dict(os.environ)
        )
        async with stdio_client(params) as (read, write):
            out = await list_with(read, write, "handshake")
    else:
        raise SystemExit(f"unknown transport {transport!r}")
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
