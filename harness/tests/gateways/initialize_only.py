"""A stdio gateway that answers the handshake of the initialize era only.

It answers `initialize` and `tools/list` (no tools) and every other request
with JSON-RPC error -32601, `server/discover` included, as gateways built
on SDKs that predate the 2026-07-28 revision do. It exits when its stdin
closes. A client of the 2026-07-28 revision is answered, wrongly: the
gateway started, and TC-PROTO-003 fails on what it said.

Usage: initialize_only.py OPENAPI BASE_URL (both ignored). Standard library only.
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message.get("method") == "initialize":
        answer = {
            "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "initialize-only", "version": "0"},
            }
        }
    elif message.get("method") == "tools/list":
        answer = {"result": {"tools": []}}
    else:
        answer = {"error": {"code": -32601, "message": "Method not found"}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}), flush=True)
