#!/usr/bin/env bash
# Launch adapter: @twilio-alpha/openapi-mcp-server 0.7.0 (npm) under the
# harness. Stdio only (the peer has no other transport).
#
#   adapter.sh --openapi {openapi} --base-url {base_url}
#
# The peer is configured the way its README tells a user: its CLI
# (`openapi-mcp-server`, build/simple.js) with `--apiPath DIR`, a folder of
# OpenAPI YAML files, one per service (the file's name), `--services NAME`
# to pick one of them, and `--authorization TYPE/...` for the upstream
# credential. It has no flag for the base URL: it takes it from each path
# item's `servers[0].url` (build/utils/loadTools.js), and sends a path item
# without one to a relative URL, which fails.
#
# Plumbing, and why (nothing else of the document is changed):
#   - The peer reads only `.yaml`/`.yml` files of a folder, so the harness's
#     document is written as YAML, as `api.yaml`, in the document's own
#     folder, so that the files it $refs resolve exactly as they would from
#     the document, and `--services api` picks that file alone (the README's
#     way to choose one service of a folder; without it, every other YAML
#     file beside the document, split documents' parts, would be read as a
#     service of its own). A JSON document is converted; YAML is read with
#     the schema the peer's own parser uses (js-yaml's JSON_SCHEMA, the
#     peer's copy) and written back. A document that does not parse is
#     handed over unchanged, under that name, so that what the peer says
#     about it is its own.
#   - The base URL is written where the peer reads it: `servers:
#     [{url: BASE_URL}]` on every path item (replacing any there, as the
#     launch contract says to ignore the document's servers).
#   The peer's tools are then named `Api--<operationId>` (the service name,
#   capitalised, two dashes, the operationId).
#
# Where the credential goes (HOSTED_MCP_CREDENTIAL_IN, from the harness): the
# README's `--authorization`, the only way the peer takes one (so it is on
# the command line, in the process list):
#   bearer       --authorization "Bearer/<credential>"
#   basic        --authorization "Basic/<user>:<password>"; a credential
#                without ':' is the user name with an empty password
#                (harness/LAUNCH.md), which the peer refuses at start-up
#   header:NAME  --authorization "ApiKey/NAME:<credential>"
#   query:NAME   the peer has no way to put a credential in a query: the
#                harness is told so (`--credential-in bearer,basic,header`)
#   absent       the peer reads no security schemes, so the credential goes
#                as a bearer token
#
# Everything else stays at the peer's defaults (no --tags filter).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
modules="$root/target/peers/twilio-openapi-mcp-server/node_modules"
cli="$modules/@twilio-alpha/openapi-mcp-server/build/simple.js"

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

folder=$(dirname "$openapi")
NODE_PATH="$modules" node -e '
const fs = require("fs");
const yaml = require("js-yaml");
const [file, out, baseUrl] = process.argv.slice(1);
const text = fs.readFileSync(file, "utf8");
let doc;
try {
  doc = file.endsWith(".json") ? JSON.parse(text) : yaml.load(text, { schema: yaml.JSON_SCHEMA });
} catch (e) {
  fs.writeFileSync(out, text); // does not parse: the peer says what it says
  process.exit(0);
}
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
if (isObject(doc) && isObject(doc.paths)) {
  for (const item of Object.values(doc.paths)) {
    if (isObject(item)) item.servers = [{ url: baseUrl }];
  }
}
fs.writeFileSync(out, yaml.dump(doc, { schema: yaml.JSON_SCHEMA, lineWidth: -1, noRefs: true }));
' "$openapi" "$folder/api.yaml" "$base_url"

credential=${HOSTED_MCP_CREDENTIAL-}
place=${HOSTED_MCP_CREDENTIAL_IN:-bearer}
case "$place" in
  bearer) authorization="Bearer/$credential" ;;
  basic)
    pair=$credential
    [[ $pair == *:* ]] || pair="$pair:"
    authorization="Basic/$pair"
    ;;
  header:*) authorization="ApiKey/${place#header:}:$credential" ;;
  *) echo "adapter.sh: twilio openapi-mcp-server cannot put a credential at $place" >&2; exit 2 ;;
esac

exec node "$cli" --apiPath "$folder" --services api --authorization "$authorization"
