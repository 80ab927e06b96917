"""A stdio gateway that answers a tool call wrongly, then logs for a
moment and crashes, as a gateway whose error path fails on its way out.

It answers `initialize`, and `tools/list` with the petstore's `getPet`
and `listPets`; every other request gets JSON-RPC error -32601, a tool
call included (where a tool error is due). After that answer to a tool
call it writes a line on stderr every 50 ms for 300 ms, then a last one,
and exits with status 1. The answer came before the crash: the scenario
judges it, and its report keeps the lines written after it.

Usage: crashes_after_its_answer.py OPENAPI BASE_URL (both ignored).
Standard library only.
"""

import json
import sys
import time

TOOL_SCHEMA = {"type": "object", "properties": {"petId": {"type": "string"}}}

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        answer = {
            "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "crashes-after-its-answer", "version": "0"},
            }
        }
    elif method == "tools/list":
        tools = [{"name": name, "inputSchema": TOOL_SCHEMA} for name in ("getPet", "listPets")]
        answer = {"result": {"tools": tools}}
    else:
        answer = {"error": {"code": -32601, "message": "Method not found"}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}), flush=True)
    if method == "tools/call":
        for tick in range(6):
            print(f"still cleaning up after the call ({tick})", file=sys.stderr, flush=True)
            time.sleep(0.05)
        print("crashed on the way out of an error", file=sys.stderr, flush=True)
        sys.exit(1)
