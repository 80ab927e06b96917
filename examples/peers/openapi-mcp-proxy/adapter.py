"""Launch adapter: openapi-mcp-proxy 1.0.4 (PyPI, command `openapi-mcp`) under the harness.

    python adapter.py --openapi {openapi} --base-url {base_url} --port {port}
    python adapter.py --openapi {openapi} --base-url {base_url} --stdio

The peer is configured the way its README tells a user, by environment
variables, and then this process becomes `openapi-mcp` (exec):

- OPENAPI_URL: the document, a local file (JSON, or YAML by its .yaml/.yml
  suffix).
- Over HTTP: MCP_HTTP_ENABLED=true, MCP_HTTP_HOST=127.0.0.1 (the default),
  MCP_HTTP_PORT={port}, and MCP_TRANSPORT_TYPE=http. The README documents
  the first three and a Streamable HTTP endpoint at /mcp; the variable that
  chooses Streamable HTTP over the legacy SSE transport (its default) is in
  its code only (fastmcp_server.py, main()). FastMCP serves it at /mcp.
  Over stdio: none of these (stdio is the peer's default).
- The credential goes in MCP_AUTH_HEADERS, the README's "custom
  authentication headers", as the JSON object it shows: {"Authorization":
  "Bearer ..."} (its own "Custom Bearer" example), {"Authorization": "Basic
  <base64 of user:password>"}, or {"NAME": "..."}. The environment keeps it
  off the command line and out of every file. The peer has no way to add a
  query parameter (its API_USERNAME/API_PASSWORD are a login flow that
  fetches a bearer token, not basic credentials), so for `query:NAME` this
  exits with a message, and the harness is run with `--credential-in
  bearer,basic,header` and runs no such scenario. Without
  HOSTED_MCP_CREDENTIAL_IN: bearer, as the peer reads no security scheme.
- Everything else stays at the peer's defaults: SERVER_NAME
  (`openapi_proxy_server`, the prefix of every tool name), its 30 s upstream
  timeout, its three retries with backoff, its CORS origins.

Plumbing: the peer takes the API's base URL only from the document's
`servers` (the first entry's url; OpenAPILoader.extract_server_url), and has
no setting for it. So the document is copied beside the original
(`<name>.servers.json` or `.yaml`, same folder, same suffix) with `servers`
set to [{"url": base_url}], and the peer is given the copy. The copy is read
with the parser the peer itself uses for that suffix (json, PyYAML's
safe_load) and written back with that format's own writer, so what the peer
reads from it is what it would read from the original, `servers` apart. A
document that does not parse, or is not a mapping, is handed to the peer as
it is, untouched: its refusal is its own. Nothing here rewrites tools,
checks arguments or masks answers.
"""

import argparse
import base64
import json
import os
import sys

import yaml

here = os.path.dirname(os.path.abspath(__file__))
peer = os.path.join(here, "..", "..", "..", "target", "peers", "openapi-mcp-proxy", "venv", "bin", "openapi-mcp")


def is_yaml(path):
    return path.lower().endswith((".yml", ".yaml"))


def with_servers(path, base_url):
    """The copy of the document with `servers` set to base_url, or the document itself when it does not parse."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) if is_yaml(path) else json.load(f)
    except (OSError, ValueError, yaml.YAMLError):
        return path
    if not isinstance(doc, dict):
        return path
    doc["servers"] = [{"url": base_url}]
    stem, suffix = os.path.splitext(path)
    copy = f"{stem}.servers{suffix}"
    with open(copy, "w", encoding="utf-8") as f:
        if is_yaml(path):
            yaml.safe_dump(doc, f, sort_keys=False, allow_unicode=True)
        else:
            json.dump(doc, f, ensure_ascii=False)
    return copy


def auth_headers():
    credential = os.environ.get("HOSTED_MCP_CREDENTIAL")
    if credential is None:
        return None
    place = os.environ.get("HOSTED_MCP_CREDENTIAL_IN", "bearer")
    if place == "bearer":
        return {"Authorization": f"Bearer {credential}"}
    if place == "basic":
        pair = credential if ":" in credential else f"{credential}:"
        return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
    if place.startswith("header:"):
        return {place[len("header:"):]: credential}
    sys.exit(f"adapter.py: openapi-mcp-proxy cannot put a credential at {place} (it adds headers only)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--openapi", required=True)
    parser.add_argument("--base-url", required=True)
    transport = parser.add_mutually_exclusive_group(required=True)
    transport.add_argument("--port")
    transport.add_argument("--stdio", action="store_true")
    args = parser.parse_args()

    env = dict(os.environ)
    env["OPENAPI_URL"] = with_servers(args.openapi, args.base_url)
    if args.port:
        env.update(MCP_HTTP_ENABLED="true", MCP_HTTP_HOST="127.0.0.1", MCP_HTTP_PORT=args.port, MCP_TRANSPORT_TYPE="http")
    headers = auth_headers()
    if headers:
        env["MCP_AUTH_HEADERS"] = json.dumps(headers)
    os.execve(peer, [peer], env)


if __name__ == "__main__":
    main()
