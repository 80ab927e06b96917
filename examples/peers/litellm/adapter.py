"""Launch adapter: LiteLLM's MCP gateway (PyPI `litellm[proxy]`) under the harness.

LiteLLM's proxy serves MCP tools at /mcp, and an entry of its config's
`mcp_servers` with a `spec_path` turns each operation of an OpenAPI document
into a tool, sent to the server's `url` ("MCP from OpenAPI Specs" in its
docs). This file writes that config beside the document, the way those docs
show a user, and runs the proxy's own command on it:

    python adapter.py --openapi {openapi} --base-url {base_url} --port {port}

Choices, each the way LiteLLM's documentation has a user do it:

- One server, `api`: `url` is the harness's base URL, `spec_path` the
  document. LiteLLM names each tool after its server (`api-listpets`).
- The upstream credential (HOSTED_MCP_CREDENTIAL) is read by the proxy from
  its environment (`os.environ/HOSTED_MCP_CREDENTIAL` in the config, its
  documented way to keep secrets out of the file): `auth_type:
  bearer_token` for a bearer token, `basic` for basic credentials
  (`user:password`, which it base64-encodes), and a `static_headers` entry
  for a named header. It has no way to put a credential in a query
  parameter, so the harness is told so (`--credential-in
  bearer,basic,header`). Without HOSTED_MCP_CREDENTIAL_IN it is a bearer
  token: LiteLLM reads no security schemes.
- Its own clients: with a client credential from the harness
  (`--client-auth bearer`, HOSTED_MCP_CLIENT_CREDENTIAL) it is the proxy's
  `master_key`, the one key a proxy without a database lets in
  (`Authorization: Bearer`). Without one, the proxy lets in anyone.
- Everything else stays at its defaults: no database, no models, the
  proxy's own server (uvicorn) on 127.0.0.1.

One piece of plumbing: the proxy reads a local spec_path with json.load
(openapi_to_mcp_generator.load_openapi_spec_async), and many of the
harness's documents are YAML. A document that is not JSON but is YAML is
handed over as the same document written as JSON, beside the original
(the files it references stay where they are); one that is neither is
handed over as it is, so what the proxy says about it is its own answer.
"""

import argparse
import json
import os
import sys

import yaml

CREDENTIAL = "os.environ/HOSTED_MCP_CREDENTIAL"


def as_json(path, port):
    """The document, written as JSON beside it when it is YAML."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        json.loads(text)
        return path
    except ValueError:
        pass
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return path
    if not isinstance(document, dict):
        return path
    stem, _ = os.path.splitext(path)
    copy = f"{stem}.litellm-{port}.json"
    with open(copy, "w", encoding="utf-8") as out:
        json.dump(document, out, default=str)
    return copy


def upstream_auth():
    """The server's settings for the upstream credential."""
    if not os.environ.get("HOSTED_MCP_CREDENTIAL"):
        return {}
    place = os.environ.get("HOSTED_MCP_CREDENTIAL_IN", "bearer")
    if place == "bearer":
        return {"auth_type": "bearer_token", "auth_value": CREDENTIAL}
    if place == "basic":
        return {"auth_type": "basic", "auth_value": CREDENTIAL}
    if place.startswith("header:"):
        return {"static_headers": {place[len("header:") :]: CREDENTIAL}}
    sys.exit(f"adapter.py: LiteLLM cannot put a credential at {place}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openapi", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    server = {"url": args.base_url, "spec_path": as_json(args.openapi, args.port)}
    server.update(upstream_auth())
    config = {"model_list": [], "mcp_servers": {"api": server}}
    if os.environ.get("HOSTED_MCP_CLIENT_CREDENTIAL"):
        config["general_settings"] = {"master_key": "os.environ/HOSTED_MCP_CLIENT_CREDENTIAL"}
    folder = os.path.dirname(os.path.abspath(args.openapi))
    config_file = os.path.join(folder, f"litellm-{args.port}.yaml")
    with open(config_file, "w", encoding="utf-8") as out:
        yaml.safe_dump(config, out)

    litellm = os.path.join(os.path.dirname(sys.executable), "litellm")
    os.execv(
        litellm,
        [litellm, "--config", config_file, "--host", "127.0.0.1", "--port", str(args.port)],
    )


if __name__ == "__main__":
    main()
