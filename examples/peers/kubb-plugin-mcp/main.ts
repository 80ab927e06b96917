// The entry file that starts the server @kubb/plugin-mcp generated, copied
// beside the generated code by adapter.sh. Nothing here is the peer's
// behaviour: it is the few lines Kubb's documentation has a user write.
//
// - Starting: the generated src/gen/mcp/server.ts exports startServer() (a
//   StdioServerTransport) but does not call it; Kubb's docs start it from a
//   file of the user's: `import { startServer } from './src/gen/mcp/server'`
//   and `startServer()`.
// - The base URL and the credential: the generated handlers call Kubb's
//   default client (@kubb/plugin-client/clients/axios), which merges the
//   config set with `client.setConfig({ baseURL, headers })` into every
//   request; that is how Kubb's docs ("Handling Authentication", the
//   troubleshooting page's base URL) configure it. pluginMcp is given no
//   `client.baseURL`, so no handler carries a base URL of its own and the
//   one set here, per launch, is the one used.
//
// API_BASE_URL is the harness's {base_url}, set by adapter.sh;
// HOSTED_MCP_CREDENTIAL and HOSTED_MCP_CREDENTIAL_IN come from the harness
// (harness/LAUNCH.md). The credential becomes a header, as Kubb's docs set
// one: Authorization: Bearer, Authorization: Basic (base64 of user:password,
// a credential without ':' being the user with an empty password), or a
// named header. Kubb's client has no place for a query credential (each
// call's own `params` replace the configured ones), so the harness is run
// with `--credential-in bearer,basic,header`. Without
// HOSTED_MCP_CREDENTIAL_IN: bearer, as the generated code reads no security
// scheme.
import { client } from '@kubb/plugin-client/clients/axios'
import { startServer } from './src/gen/mcp/server.ts'

const credential = process.env.HOSTED_MCP_CREDENTIAL
const place = process.env.HOSTED_MCP_CREDENTIAL_IN || 'bearer'
const headers: Record<string, string> = {}
if (credential !== undefined) {
  if (place === 'bearer') {
    headers.Authorization = `Bearer ${credential}`
  } else if (place === 'basic') {
    const pair = credential.includes(':') ? credential : `${credential}:`
    headers.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`
  } else if (place.startsWith('header:')) {
    headers[place.slice('header:'.length)] = credential
  } else {
    console.error(`main.ts: Kubb's client cannot put a credential at ${place}; none configured`)
  }
}

client.setConfig({ baseURL: process.env.API_BASE_URL, headers })

startServer()
