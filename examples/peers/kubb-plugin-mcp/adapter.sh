#!/usr/bin/env bash
# Launch adapter: @kubb/plugin-mcp 4.39.2 (npm) under the harness. Kubb is
# a code generator: it turns each document into an MCP server of its own
# (TypeScript, stdio), so the harness builds once per document
# (`--prepare`) and launches what was built:
#
#   adapter.sh prepare --openapi {openapi} --prepared {prepared}
#   adapter.sh serve --prepared {prepared} --base-url {base_url} --openapi {openapi}
#
# prepare makes {prepared} the project Kubb's docs describe, and runs
# `kubb generate` in it:
#   - kubb.config.ts as the plugin's docs show it (pluginOas, pluginTs,
#     pluginZod, pluginMcp, all at their defaults; output ./src/gen), with
#     the document as input.path. pluginMcp gets no `client.baseURL`: the
#     docs' example fixes one there, but the harness's base URL is known
#     only at launch, so it is set at run time instead (see main.ts).
#   - node_modules and package.json are links to the one pinned install in
#     target/peers/kubb-plugin-mcp/ (so a document costs seconds, not an npm
#     install). package.json is there because Kubb reads the project's
#     dependencies to pick the Zod API it writes (zod 4 here: `zod/v4`).
#   - main.ts (beside this file), the entry file Kubb's docs show: it
#     configures Kubb's client (`client.setConfig({ baseURL, headers })`)
#     and calls the generated startServer().
#   Kubb's progress goes to stderr; a document Kubb cannot generate from
#   ends the step with its status and messages, which the harness takes as
#   the refusal of the document.
#
# serve runs the entry file with tsx (the generated .mcp.json runs the
# server with `npx tsx`), with API_BASE_URL={base_url}. The credential is
# read by main.ts from HOSTED_MCP_CREDENTIAL(_IN), so it is in no file and
# on no command line; see main.ts for where it goes. The peer speaks stdio
# only.
#
# Nothing else is changed: the generated tools, their schemas, the calls
# and the answers are Kubb's own.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
install="$root/target/peers/kubb-plugin-mcp"

usage() {
  echo "usage: adapter.sh prepare --openapi FILE --prepared DIR" >&2
  echo "       adapter.sh serve --prepared DIR --base-url URL [--openapi FILE]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
mode=$1
shift
openapi= prepared= base_url=
while [ $# -gt 0 ]; do
  case "$1" in
    --openapi) openapi=$2; shift 2 ;;
    --prepared) prepared=$2; shift 2 ;;
    --base-url) base_url=$2; shift 2 ;;
    *) echo "adapter.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

case "$mode" in
  prepare)
    { [ -n "$openapi" ] && [ -n "$prepared" ]; } || usage
    # A JSON string is a TypeScript string literal.
    input=$(node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' "$openapi")
    ln -sfn "$install/node_modules" "$prepared/node_modules"
    ln -sfn "$install/package.json" "$prepared/package.json"
    cp "$here/main.ts" "$prepared/main.ts"
    cat >"$prepared/kubb.config.ts" <<EOF
import { defineConfig } from '@kubb/core'
import { pluginOas } from '@kubb/plugin-oas'
import { pluginTs } from '@kubb/plugin-ts'
import { pluginMcp } from '@kubb/plugin-mcp'
import { pluginZod } from '@kubb/plugin-zod'

export default defineConfig({
  input: {
    path: $input,
  },
  output: {
    path: './src/gen',
  },
  plugins: [
    pluginOas(),
    pluginTs(),
    pluginZod(),
    pluginMcp(),
  ],
})
EOF
    cd "$prepared"
    exec node_modules/.bin/kubb generate --config kubb.config.ts >&2
    ;;
  serve)
    { [ -n "$prepared" ] && [ -n "$base_url" ]; } || usage
    cd "$prepared"
    API_BASE_URL=$base_url exec node_modules/.bin/tsx main.ts
    ;;
  *) usage ;;
esac
