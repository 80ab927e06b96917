#!/usr/bin/env bash
# Build step (the harness's --prepare): openapi-mcp-generator 4.0.1 (npm)
# turns one document into a server project, built as its README says.
#
#   prepare.sh {openapi} {prepared}
#
# Run once per distinct document. It does what the peer's README has a user
# do, for both transports the peer generates:
#
#   openapi-mcp-generator --input {openapi} --output {prepared}/http --transport streamable-http
#   openapi-mcp-generator --input {openapi} --output {prepared}/stdio          (stdio, the default)
#   npm install && npm run build                                   (in each project)
#
# The generated code is not touched. What differs from the README is
# plumbing only:
#
# - No --port. The README: "The port resolves from --port, then the PORT env
#   var, then 3000": without --port the generated server reads PORT at start
#   (`Number(process.env.PORT) || 3000`), so adapter.sh gives it the harness's
#   {port}, which is new for each launch while this step runs once.
# - No --base-url: the generated server reads API_BASE_URL at start, ahead of
#   anything baked in (README, "Configuring the API base URL at runtime"), and
#   adapter.sh sets it to {base_url}.
# - `npm install` is one shared install instead of one per project: each
#   project's node_modules is a link to target/peers/openapi-mcp-generator/
#   node_modules, installed from this folder's package.json and lock, which
#   pin the versions the generated package.json's ranges resolve to, except
#   @modelcontextprotocol/sdk, held at 1.23.0, within the range ^1.10.0:
#   with the newest the range takes (1.32.2 on 2026-12-05) the generated
#   HTTP server dies on its second request ("TypeError [ERR_INVALID_STATE]:
#   Invalid state: ReadableStream is locked", from fetch-to-node, an
#   uncaught exception), so it could serve one request and no session.
# - `npm run build` is `tsc && shx chmod 755 build/index.js`: the chmod is
#   left out (the server is run with node), and both projects are compiled
#   by one `tsc -b` (the same compiler and tsconfig; one process instead of
#   two halves the time). tsc's output goes to stderr, where the harness
#   reads a step's answer.
# - The document's security schemes are written to schemes.tsv, one line
#   each: the place the scheme puts a credential (bearer, basic, header:NAME,
#   query:NAME, cookie:NAME) and the variable(s) the generated server reads
#   for it (by the generator's own getEnvVarName: API_KEY_<SCHEME>,
#   BEARER_TOKEN_<SCHEME>, BASIC_USERNAME_/BASIC_PASSWORD_<SCHEME>,
#   OAUTH_TOKEN_<SCHEME>, OPENID_TOKEN_<SCHEME>), for adapter.sh to know
#   which variable takes the harness's credential.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
modules="$root/target/peers/openapi-mcp-generator/node_modules"

[ $# -eq 2 ] || { echo "usage: prepare.sh OPENAPI PREPARED" >&2; exit 2; }
openapi=$1 prepared=$2

"$modules/.bin/openapi-mcp-generator" --input "$openapi" --output "$prepared/http" --transport streamable-http
"$modules/.bin/openapi-mcp-generator" --input "$openapi" --output "$prepared/stdio"
ln -s "$modules" "$prepared/http/node_modules"
ln -s "$modules" "$prepared/stdio/node_modules"
"$modules/.bin/tsc" -b "$prepared/http" "$prepared/stdio" >&2

# The schemes, read as the generator reads the document (its own parser and
# its own variable names).
cd "$modules/openapi-mcp-generator/dist"
node --input-type=module - "$openapi" >"$prepared/schemes.tsv" <<'EOF'
import { parseSpecSecurely } from './utils/parser-security.js';
import { getEnvVarName } from './utils/security.js';
const api = await parseSpecSecurely(process.argv[2], false);
for (const [name, s] of Object.entries(api.components?.securitySchemes ?? {})) {
  let line = null;
  if (s.type === 'apiKey') line = [`${s.in}:${s.name}`, getEnvVarName(name, 'API_KEY')];
  else if (s.type === 'http' && s.scheme?.toLowerCase() === 'bearer') line = ['bearer', getEnvVarName(name, 'BEARER_TOKEN')];
  else if (s.type === 'http' && s.scheme?.toLowerCase() === 'basic')
    line = ['basic', getEnvVarName(name, 'BASIC_USERNAME'), getEnvVarName(name, 'BASIC_PASSWORD')];
  else if (s.type === 'oauth2') line = ['bearer', getEnvVarName(name, 'OAUTH_TOKEN')];
  else if (s.type === 'openIdConnect') line = ['bearer', getEnvVarName(name, 'OPENID_TOKEN')];
  if (line) console.log(line.join('\t'));
}
EOF
