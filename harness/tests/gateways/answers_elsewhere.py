"""A gateway that breaks the Streamable HTTP transport one way only.

It stands in front of a correct gateway (the reference) and relays every
message, except that it answers each POST carrying a `tools/call` request
with `202 Accepted` and sends the result on the session's GET stream. The
transport forbids that (a request is answered on its own POST response):
TC-PROTO-008 must fail, and only it: the official Python SDK's client fails
such a call, but the TypeScript SDK's takes the result from the GET stream,
and the other rules are judged on it.

Usage: answers_elsewhere.py GATEWAY_BINARY --openapi PATH --base-url URL --port N
Standard library only.
"""

import http.client
import json
import os
import queue
import socket
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_inner(binary, openapi, base_url):
    port = free_port()
    subprocess.Popen(
        [binary, "serve", "--openapi", openapi, "--base-url", base_url,
         "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return port
        except OSError:
            time.sleep(0.05)
    sys.exit("the inner gateway did not start")


def answer_of(body, content_type):
    """The JSON-RPC message in a JSON body or the first data event of an SSE one."""
    text = body.decode()
    if "text/event-stream" in (content_type or ""):
        for event in text.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(l[5:].lstrip() for l in event.split("\n") if l.startswith("data:"))
            if data.strip():
                return json.loads(data)
        return None
    return json.loads(text) if text.strip() else None


def main(argv):
    binary = argv[1]
    args = dict(zip(argv[2::2], argv[3::2]))
    inner = start_inner(binary, args["--openapi"], args["--base-url"])
    streams = {}  # session id -> queue of messages for its GET stream

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def relay(self, method, body=None):
            connection = http.client.HTTPConnection("127.0.0.1", inner, timeout=60)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            connection.request(method, "/mcp", body=body, headers=headers)
            response = connection.getresponse()
            return response, response.read()

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            message = json.loads(body)
            response, payload = self.relay("POST", body)
            session = response.getheader("Mcp-Session-Id") or self.headers.get("Mcp-Session-Id")
            if message.get("method") == "tools/call" and response.status == 200:
                result = answer_of(payload, response.getheader("Content-Type"))
                streams.setdefault(session, queue.Queue()).put(result)
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            # Everything else is relayed as it came.
            self.send_response(response.status)
            for name in ("Mcp-Session-Id", "Content-Type"):
                if response.getheader(name):
                    self.send_header(name, response.getheader(name))
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            session = self.headers.get("Mcp-Session-Id")
            messages = streams.setdefault(session, queue.Queue())
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            try:
                while True:
                    try:
                        message = messages.get(timeout=15)
                        self.wfile.write(f"data: {json.dumps(message)}\n\n".encode())
                    except queue.Empty:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except OSError:
                pass

        def do_DELETE(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", int(args["--port"])), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv)
