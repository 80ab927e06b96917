#!/usr/bin/env bash
# Launch adapter: @ivotoby/openapi-mcp-server 1.16.1 under the harness.
#
#   adapter.sh --openapi {openapi} --base-url {base_url} --port {port}
#   adapter.sh --openapi {openapi} --base-url {base_url} --stdio
#
# The peer is configured only through its own documented flags and
# environment (its README, `--help`): --openapi-spec, --api-base-url,
# --transport http|stdio, --host, --port, and API_HEADERS for the credential.
# This wrapper exists because the credential has to become a header value
# first, and because it must not go on the command line (where the process
# list shows it): the peer reads the same "Name:value,Name:value" list from
# API_HEADERS as from --headers.
#
# Where the credential goes (HOSTED_MCP_CREDENTIAL_IN, from the harness):
#   bearer       API_HEADERS="Authorization:Bearer <credential>"
#   basic        API_HEADERS="Authorization:Basic <base64 of user:password>"; a
#                credential without ':' is the user name, with an empty
#                password (harness/LAUNCH.md)
#   header:NAME  API_HEADERS="NAME:<credential>"
#   query:NAME   the peer has no way to add a query parameter to its requests
#                (headers are all it takes), so no credential is configured
#                and a line on stderr says so
#   absent       the peer does not read the document's security schemes, so
#                the credential goes as a bearer token
#
# Nothing else is changed: the peer's own tool list, argument handling and
# answers are what the harness sees.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
cli="$root/target/peers/openapi-mcp-server/node_modules/@ivotoby/openapi-mcp-server/bin/mcp-server.js"

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

credential=${HOSTED_MCP_CREDENTIAL-}
place=${HOSTED_MCP_CREDENTIAL_IN:-bearer}
case "$place" in
  bearer) API_HEADERS="Authorization:Bearer $credential" ;;
  basic)
    pair=$credential
    [[ $pair == *:* ]] || pair="$pair:"
    API_HEADERS="Authorization:Basic $(printf '%s' "$pair" | base64 -w0)"
    ;;
  header:*) API_HEADERS="${place#header:}:$credential" ;;
  query:*)
    API_HEADERS=
    echo "adapter.sh: openapi-mcp-server cannot send a credential in a query parameter (${place#query:}); none configured" >&2
    ;;
  *) echo "adapter.sh: HOSTED_MCP_CREDENTIAL_IN: unknown place '$place'" >&2; exit 2 ;;
esac
export API_HEADERS

if [ -n "$stdio" ]; then
  exec node "$cli" --transport stdio --openapi-spec "$openapi" --api-base-url "$base_url"
else
  exec node "$cli" --transport http --host 127.0.0.1 --port "$port" --path /mcp \
    --openapi-spec "$openapi" --api-base-url "$base_url"
fi
