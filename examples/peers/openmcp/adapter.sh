#!/usr/bin/env bash
# Launch adapter: openmcp 1.0.10 (npm) under the harness. Stdio only (its
# `run` command serves MCP on stdio alone).
#
#   adapter.sh --openapi {openapi} --base-url {base_url}
#
# The peer is configured the way its README tells a user: an `openmcp.json`
# file (what `openmcp install` writes after its prompts) holding one
# server of `type: openapi` with the document (`openapi`), the base URL
# (`serverUrl`), the credential as `headers` or `query` that refer to
# `{{KEY}}` variables, and `tools: []` (every tool), run with
# `openmcp run --config openmcp.json`. The file is written beside the
# document. The server is named `api`, and the variables are the ones
# `install` makes for it (API_BEARER_TOKEN, API_BASIC_AUTH, API_API_KEY),
# left empty in `configs`, which the README says makes openmcp read them
# from the environment: so the credential is in no file and on no command
# line.
#
# Where the credential goes (HOSTED_MCP_CREDENTIAL_IN, from the harness), as
# `install` writes it for each kind of security scheme:
#   bearer       headers: {Authorization: "Bearer {{API_BEARER_TOKEN}}"}
#   basic        headers: {Authorization: "Basic {{API_BASIC_AUTH}}"}, the
#                variable holding base64 of user:password (install stores
#                the base64 too); a credential without ':' is the user name
#                with an empty password (harness/LAUNCH.md)
#   header:NAME  headers: {NAME: "{{API_API_KEY}}"}
#   query:NAME   query: {NAME: "{{API_API_KEY}}"}
#   absent       the peer reads no security scheme at run time (only
#                `install` does, by asking), so the credential goes as a
#                bearer token
#
# Plumbing: DN_CONFIGDIR (the peer's folder for its state and its log file,
# openmcp-cli-server.log) is set to target/peers/openmcp/config, so that
# hundreds of launches do not write into the home folder. Everything else
# stays at the peer's defaults.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir="$root/target/peers/openmcp"
cli="$dir/node_modules/openmcp/bin/index.js"

openapi= base_url=
while [ $# -gt 0 ]; do
  case "$1" in
    --openapi) openapi=$2; shift 2 ;;
    --base-url) base_url=$2; shift 2 ;;
    *) echo "adapter.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$openapi" ] || [ -z "$base_url" ]; then
  echo "usage: adapter.sh --openapi FILE --base-url URL" >&2
  exit 2
fi

# JSON strings, for the config file.
quoted() { node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' "$1"; }

credential=${HOSTED_MCP_CREDENTIAL-}
place=${HOSTED_MCP_CREDENTIAL_IN:-bearer}
case "$place" in
  bearer)
    key=API_BEARER_TOKEN value=$credential
    client="\"headers\": {\"Authorization\": \"Bearer {{$key}}\"}"
    ;;
  basic)
    pair=$credential
    [[ $pair == *:* ]] || pair="$pair:"
    key=API_BASIC_AUTH value=$(printf '%s' "$pair" | base64 -w0)
    client="\"headers\": {\"Authorization\": \"Basic {{$key}}\"}"
    ;;
  header:*)
    key=API_API_KEY value=$credential
    client="\"headers\": {$(quoted "${place#header:}"): \"{{$key}}\"}"
    ;;
  query:*)
    key=API_API_KEY value=$credential
    client="\"query\": {$(quoted "${place#query:}"): \"{{$key}}\"}"
    ;;
  *) echo "adapter.sh: HOSTED_MCP_CREDENTIAL_IN: unknown place '$place'" >&2; exit 2 ;;
esac
export "$key=$value"

config="$(dirname "$openapi")/openmcp.json"
cat >"$config" <<EOF
{
  "configs": {"api": {"$key": ""}},
  "servers": {
    "api": {
      "type": "openapi",
      "openapi": $(quoted "$openapi"),
      "serverUrl": $(quoted "$base_url"),
      $client,
      "tools": []
    }
  }
}
EOF

export DN_CONFIGDIR="$dir/config"
exec node "$cli" run --config "$config"
