"""Call a gateway's tool many times with the official MCP Python SDK.

Usage:
  call_tools.py URL handshake|discover CALLS

Calls `showPetById` CALLS times over Streamable HTTP, each with its own
`petId`, and prints {"protocol", "answered", "wrong"} as JSON on stdout:
`answered` counts tool results that are not errors and carry their own
call's id, `wrong` lists the others (at most ten). A failed request raises,
so the exit status is non-zero.
"""

import asyncio
import json
import sys

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url, era, calls):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            if era == "discover":
                await session.discover()
            else:
                await session.initialize()
            answered, wrong = 0, []
            for call in range(calls):
                pet = f"lb-{call}-7d1e"
                result = await session.call_tool("showPetById", {"petId": pet})
                text = result.content[0].text if result.content else ""
                if not result.is_error and pet in text:
                    answered += 1
                elif len(wrong) < 10:
                    wrong.append({"call": call, "is_error": result.is_error, "text": text[:300]})
            return {"protocol": str(session.protocol_version), "answered": answered, "wrong": wrong}


if __name__ == "__main__":
    url, era, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print(json.dumps(asyncio.run(main(url, era, calls))))
