#!/usr/bin/env bash
# Launch adapter: rmcp-openapi-server 0.32.1 (crates.io; Rust, on the
# official SDK rmcp and actix-web) under the harness.
#
#   adapter.sh --openapi {openapi} --base-url {base_url} --port {port}
#
# The peer is run the way its README and --help show: the document as its
# first argument, `--base-url`, `--port`, `--bind-address 127.0.0.1`, and
# the upstream credential as a `--header "Name: value"` added to every
# request. It serves Streamable HTTP at /mcp; it has no stdio transport.
#
# One piece of plumbing: the peer reads JSON documents only (its spec
# loader parses files with serde_json), and many of the harness's
# documents are YAML. A document that is not JSON but is YAML is handed
# over as the same document written as JSON, beside the original (the
# files it references stay where they are); one that is neither is handed
# over as it is, so what the peer says about it is its own answer.
#
# Where the credential goes (HOSTED_MCP_CREDENTIAL_IN, from the harness):
#   bearer       --header "Authorization: Bearer CREDENTIAL"
#   basic        --header "Authorization: Basic BASE64(CREDENTIAL)", the
#                credential being user:password, or a user name alone
#                (then with an empty password: BASE64(CREDENTIAL:))
#   header:NAME  --header "NAME: CREDENTIAL"
#   query:NAME   the peer has no way to add a query parameter: the harness
#                is told so (`--credential-in bearer,basic,header`)
#   absent       the peer reads no security scheme for a fixed credential,
#                so it goes as a bearer token
# The header is on the peer's command line because that is its only way
# to take one; the harness's credential is made per run.
#
# Everything else stays at its defaults: stateless sessions, the
# `compliant` authorization mode (the agent's Authorization is not passed
# on), descriptions kept, TLS verified.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
server="$root/target/peers/rmcp-openapi-server/bin/rmcp-openapi-server"

openapi= base_url= port=
while [ $# -gt 0 ]; do
  case "$1" in
    --openapi) openapi=$2; shift 2 ;;
    --base-url) base_url=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    *) echo "adapter.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$openapi" ] || [ -z "$base_url" ] || [ -z "$port" ]; then
  echo "usage: adapter.sh --openapi FILE --base-url URL --port N" >&2
  exit 2
fi

# A YAML document as JSON, beside it; anything else as it is.
document=$openapi
as_json="${openapi%.*}.as-json.json"
if python3 - "$openapi" "$as_json" <<'PY'
import json, sys
import yaml
source, target = sys.argv[1], sys.argv[2]
text = open(source, encoding="utf-8").read()
try:
    json.loads(text)
    sys.exit(1)  # already JSON
except ValueError:
    pass
try:
    document = yaml.safe_load(text)
except yaml.YAMLError:
    sys.exit(1)  # neither: the peer's to refuse
if not isinstance(document, dict):
    sys.exit(1)
with open(target, "w", encoding="utf-8") as out:
    json.dump(document, out, default=str)
PY
then
  document=$as_json
fi

credential=${HOSTED_MCP_CREDENTIAL:-}
headers=()
if [ -n "$credential" ]; then
  place=${HOSTED_MCP_CREDENTIAL_IN:-bearer}
  case "$place" in
    bearer) headers=(--header "Authorization: Bearer $credential") ;;
    basic)
      # user:password; without a colon it is the user name, password empty.
      pair=$credential
      case "$pair" in *:*) ;; *) pair="$pair:" ;; esac
      headers=(--header "Authorization: Basic $(printf '%s' "$pair" | base64 -w0)") ;;
    header:*) headers=(--header "${place#header:}: $credential") ;;
    *) echo "adapter.sh: rmcp-openapi-server cannot put a credential at $place" >&2; exit 2 ;;
  esac
fi

exec "$server" "$document" --base-url "$base_url" --port "$port" \
  --bind-address 127.0.0.1 "${headers[@]}"
