#!/bin/sh
# The reference gateway letting in only the harness's client, the way an
# operator would: a keys file made with `agent-key` from the run's client
# credential (HOSTED_MCP_CLIENT_CREDENTIAL, which `--client-auth` sets),
# beside the scenario's document, and `serve --agent-keys` over HTTP.
#
#   reference-agent-keys.sh GATEWAY OPENAPI BASE_URL PORT
set -eu
gateway=$1 openapi=$2 base_url=$3 port=$4
keys="$(dirname "$openapi")/agent-keys"
printf '%s\n' "$HOSTED_MCP_CLIENT_CREDENTIAL" |
  "$gateway" agent-key --stdin --label conformance 2>"$keys" >/dev/null
exec "$gateway" serve --openapi "$openapi" --base-url "$base_url" \
  --listen "127.0.0.1:$port" --agent-keys "$keys"
