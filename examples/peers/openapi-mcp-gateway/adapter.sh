#!/usr/bin/env bash
# Launch adapter: openapi-mcp-gateway 0.8.0 (PyPI) under the harness.
#
#   adapter.sh --openapi {openapi} --base-url {base_url} --port {port}
#   adapter.sh --openapi {openapi} --base-url {base_url} --stdio
#
# The peer is configured the way its README tells a user: a config file
# (`--config servers.yml`, one server named `api`, which is what `--spec`
# makes too) holding the document, `base_url`, the transport, host and port,
# and the upstream credential under `auth`. The README asks for a config
# file as soon as the header name is not X-API-Key, so one is used for every
# place. It is written beside the document, and names the credential as
# `${HOSTED_MCP_CREDENTIAL}` (resolved by the peer at request time), so the
# credential is in no file and on no command line. The peer serves MCP at
# /{name}/mcp: the harness is given `--endpoint /api/mcp`.
#
# Where the credential goes (HOSTED_MCP_CREDENTIAL_IN, from the harness):
#   bearer       auth: {type: bearer}
#   header:NAME  auth: {type: api_key, api_key_header: NAME}
#   basic        the peer has no basic auth, and refuses Authorization among
#   query:NAME   its static headers; it cannot put a credential in a query.
#                The harness is told so (`--credential-in bearer,header`), and
#                runs no scenario that wants either.
#   absent       the peer reads no security scheme for a fixed credential,
#                so it goes as a bearer token
#
# Nothing else is changed: timeouts, exposure (`static`, a tool per
# operation) and mode (`tool_only`) stay at the peer's defaults.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
gateway="$root/target/peers/openapi-mcp-gateway/venv/bin/openapi-mcp-gateway"

openapi= base_url= port= stdio=
while [ $# -gt 0 ]; do
  case "$1" in
    --openapi) openapi=$2; shift 2 ;;
    --base-url) base_url=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --stdio) stdio=1; shift ;;
    *) echo "adapter.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$openapi" ] || [ -z "$base_url" ] || { [ -z "$port" ] && [ -z "$stdio" ]; }; then
  echo "usage: adapter.sh --openapi FILE --base-url URL (--port N | --stdio)" >&2
  exit 2
fi

# YAML's double-quoted scalars take JSON strings as they are.
quoted() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$1"; }

place=${HOSTED_MCP_CREDENTIAL_IN:-bearer}
case "$place" in
  bearer) auth='{type: bearer, token: "${HOSTED_MCP_CREDENTIAL}"}' ;;
  header:*) auth="{type: api_key, token: \"\${HOSTED_MCP_CREDENTIAL}\", api_key_header: $(quoted "${place#header:}")}" ;;
  *) echo "adapter.sh: openapi-mcp-gateway cannot put a credential at $place" >&2; exit 2 ;;
esac

config="$(dirname "$openapi")/servers.yml"
{
  echo "transport: $([ -n "$stdio" ] && echo stdio || echo streamable-http)"
  echo "host: 127.0.0.1"
  [ -n "$port" ] && echo "port: $port"
  echo "servers:"
  echo "  - name: api"
  echo "    spec: $(quoted "$openapi")"
  echo "    base_url: $(quoted "$base_url")"
  echo "    auth: $auth"
} >"$config"
exec "$gateway" --config "$config"
