"""Call one tool of a gateway with the official MCP Python SDK, showing the
access token it was given, as an agent whose token came from elsewhere does.

Usage:
  call_with_token.py URL TOKEN TOOL ARGS_JSON

Prints {"protocol", "tools", "is_error", "text"} as JSON on stdout: the
negotiated version, the listed tools' names, and the call's result. A
refused request raises, so the exit status is non-zero.
"""

import asyncio
import json
import sys

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url, token, tool, arguments):
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                result = await session.call_tool(tool, arguments)
                text = result.content[0].text if result.content else ""
                return {
                    "protocol": str(session.protocol_version),
                    "tools": [t.name for t in listed.tools],
                    "is_error": result.is_error,
                    "text": text,
                }


if __name__ == "__main__":
    url, token, tool, arguments = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    print(json.dumps(asyncio.run(main(url, token, tool, arguments))))
