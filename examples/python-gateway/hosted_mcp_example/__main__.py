"""`python -m hosted_mcp_example`: serve an OpenAPI document as MCP tools.

    python -m hosted_mcp_example --openapi DOC --base-url URL --port PORT [--host 127.0.0.1] [--path /mcp] [--client-token-env VAR]
    python -m hosted_mcp_example --openapi DOC --base-url URL --port PORT --oauth-issuer URL --resource URL [--oauth-scope SCOPE]
    python -m hosted_mcp_example --openapi DOC --base-url URL --stdio
    python -m hosted_mcp_example --list-breaks [--stdio | --hosted | --oauth]

The credential comes from HOSTED_MCP_CREDENTIAL, never the command line. A
document that cannot be used ends the process at once with status 2 and one
line on stderr saying where it is wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hosted_mcp_example", description=__doc__.split("\n")[0])
    parser.add_argument("--openapi", help="the OpenAPI 3.0 or 3.1 document, JSON or YAML")
    parser.add_argument("--base-url", help="the API's base URL; every operation's path is appended to it")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--port", type=int, help="serve Streamable HTTP at http://HOST:PORT/mcp")
    transport.add_argument("--stdio", action="store_true", help="speak MCP on stdin and stdout")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--path", default="/mcp", help="the HTTP path MCP is served at (default /mcp)")
    parser.add_argument(
        "--client-token-env",
        metavar="VAR",
        help="over HTTP, let in only clients that show the value of this variable as a bearer token",
    )
    parser.add_argument(
        "--oauth-issuer",
        metavar="URL",
        help="over HTTP, let in only clients that show an access token of this authorization server "
        "(MCP authorization); needs --resource",
    )
    parser.add_argument("--resource", metavar="URL", help="this endpoint's URL, the audience its tokens are for")
    parser.add_argument("--oauth-scope", metavar="SCOPE", help="a scope every token must carry")
    parser.add_argument(
        "--list-breaks",
        action="store_true",
        help="print the broken variants as JSON and exit (with --stdio, those judged over stdio; "
        "with --hosted, those of a gateway that checks its clients; with --oauth, those of one that "
        "checks access tokens)",
    )
    parser.add_argument("--hosted", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--oauth", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.list_breaks:
        from .breaks import listing

        print(json.dumps(listing(stdio=args.stdio, hosted=args.hosted, oauth=args.oauth), indent=2))
        return 0
    if not args.openapi or not args.base_url or (args.port is None and not args.stdio):
        parser.error("--openapi, --base-url and one of --port or --stdio are needed")
    if args.oauth_issuer and not args.resource:
        parser.error("--oauth-issuer needs --resource, the URL agents reach this endpoint at")

    # The document first, before the SDK is imported: a bad one fails fast.
    from .convert import tools
    from .load import LoadError, load
    from .request import placement

    try:
        document = load(args.openapi)
        built = tools(document)
        where = placement(document)
    except (LoadError, ValueError) as error:
        print(f"hosted_mcp_example: {error}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"hosted_mcp_example: {args.openapi}: the document nests too deeply", file=sys.stderr)
        return 2

    listener = None
    if not args.stdio:
        # The port is bound before the SDK is imported (most of the start-up
        # time), so no other process can take it meanwhile; it listens, and
        # so counts as started, only once the server is ready to answer.
        listener = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((args.host, args.port))
        except OSError as error:
            print(f"hosted_mcp_example: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
            return 1

    import anyio

    from .server import Gateway, serve_http, serve_stdio

    client_token = None
    if args.client_token_env:
        client_token = os.environ.get(args.client_token_env)
        if not client_token:
            print(f"hosted_mcp_example: --client-token-env: {args.client_token_env} is not set", file=sys.stderr)
            return 2
    resource_server = None
    if args.oauth_issuer:
        from .authorization import ResourceServer

        resource_server = ResourceServer(args.oauth_issuer, args.resource, args.path, args.oauth_scope)
    gateway = Gateway(built, args.base_url, os.environ.get("HOSTED_MCP_CREDENTIAL", ""), where)
    try:
        if listener is None:
            anyio.run(serve_stdio, gateway)
        else:
            anyio.run(serve_http, gateway, listener, args.path, client_token, resource_server)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
