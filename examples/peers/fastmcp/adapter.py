"""Launch adapter: FastMCP 4.2.3 as an OpenAPI-to-MCP gateway under the harness.

The harness starts one gateway per scenario from a command template
(harness/LAUNCH.md). FastMCP has no command line of its own for this: its
documentation has the user write a few lines of Python that read the
document, make an httpx2.AsyncClient that points at the API and carries the
credential, and hand both to FastMCP.from_openapi(). This file is those lines,
nothing more:

    python adapter.py --openapi {openapi} --base-url {base_url} --port {port}
    python adapter.py --openapi {openapi} --base-url {base_url} --stdio
    python adapter.py ... --port {port} --issuer {issuer} --jwks-uri {jwks_uri} --resource {resource}

Choices, each the way FastMCP's documentation has a user do it:

- The credential comes from HOSTED_MCP_CREDENTIAL and goes on the client:
  HOSTED_MCP_CREDENTIAL_IN says where (`bearer`, `basic`, `header:NAME`,
  `query:NAME`). `basic` splits the credential at its first colon into
  httpx2's BasicAuth (no colon: the user name, with an empty password). When the variable is absent the scenario wants the
  place derived from the document's security schemes; FastMCP does not read
  them, so the credential goes as a bearer token.
- The client's timeout is 15 seconds, the spec's limit (httpx2's own default
  is 5 seconds per read); redirects are not followed (httpx2's default).
- The server runs with FastMCP's defaults otherwise: Streamable HTTP on
  127.0.0.1:{port} at /mcp, or stdio; no banner.
- Its own clients: where the harness shows one (`--client-auth bearer`,
  which hands the token over in HOSTED_MCP_CLIENT_CREDENTIAL), FastMCP lets
  in only that bearer token, with its own StaticTokenVerifier, the way its
  documentation has a user let in known tokens. Run as a resource server
  instead (`--issuer`, `--jwks-uri`, `--resource`, from the harness's
  `--client-auth oauth`), it lets in the JWTs of that authorization server:
  its JWTVerifier checks each token's signature against the issuer's JWKS,
  its issuer, and the resource as its audience, and its RemoteAuthProvider
  serves the RFC 9728 metadata naming the issuer, as FastMCP's "Remote OAuth"
  documentation has a user do. Without either, anyone.
- The adapter only reads the file (JSON, else YAML): a file that does not
  parse is reported on one line with the parser's own position. Whatever
  FastMCP itself does with a document, a bad one included, is left as it is:
  nothing here rewrites tools, checks arguments or masks answers.
"""

import argparse
import json
import os
import sys

import httpx2
import yaml
from fastmcp import FastMCP


def read_document(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        if path.endswith(".json"):
            return json.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as e:
        sys.exit(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        problem = getattr(e, "problem", None) or str(e)
        sys.exit(f"{where}: not YAML: {problem}")


def client_for(base_url):
    credential = os.environ.get("HOSTED_MCP_CREDENTIAL", "")
    place = os.environ.get("HOSTED_MCP_CREDENTIAL_IN", "bearer")
    options = {"base_url": base_url, "timeout": 15.0}
    if place == "bearer":
        options["headers"] = {"Authorization": f"Bearer {credential}"}
    elif place == "basic":
        user, _, password = credential.partition(":")
        options["auth"] = httpx2.BasicAuth(user, password)
    elif place.startswith("header:"):
        options["headers"] = {place[len("header:") :]: credential}
    elif place.startswith("query:"):
        options["params"] = {place[len("query:") :]: credential}
    else:
        sys.exit(f"HOSTED_MCP_CREDENTIAL_IN: unknown place {place!r}")
    return httpx2.AsyncClient(**options)


def clients_let_in(args):
    if args.issuer:
        return resource_server(args)
    token = os.environ.get("HOSTED_MCP_CLIENT_CREDENTIAL")
    if not token:
        return None
    from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

    return StaticTokenVerifier(tokens={token: {"client_id": "conformance-harness", "scopes": []}})


def resource_server(args):
    from urllib.parse import urlsplit

    from fastmcp.server.auth import RemoteAuthProvider
    from fastmcp.server.auth.providers.jwt import JWTVerifier

    verifier = JWTVerifier(jwks_uri=args.jwks_uri, issuer=args.issuer, audience=args.resource)
    resource = urlsplit(args.resource)
    return RemoteAuthProvider(
        token_verifier=verifier,
        authorization_servers=[args.issuer],
        base_url=f"{resource.scheme}://{resource.netloc}",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openapi", required=True)
    parser.add_argument("--base-url", required=True)
    served = parser.add_mutually_exclusive_group(required=True)
    served.add_argument("--port", type=int)
    served.add_argument("--stdio", action="store_true")
    parser.add_argument("--issuer")
    parser.add_argument("--jwks-uri")
    parser.add_argument("--resource")
    args = parser.parse_args()
    if args.issuer and not (args.port and args.jwks_uri and args.resource):
        parser.error("--issuer needs --port, --jwks-uri and --resource")

    spec = read_document(args.openapi)
    mcp = FastMCP.from_openapi(
        openapi_spec=spec, client=client_for(args.base_url), auth=clients_let_in(args)
    )
    if args.stdio:
        mcp.run(transport="stdio", show_banner=False)
    else:
        mcp.run(
            transport="http",
            host="127.0.0.1",
            port=args.port,
            path="/mcp",
            show_banner=False,
        )


if __name__ == "__main__":
    main()
