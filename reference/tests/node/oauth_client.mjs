// The official MCP TypeScript SDK client (v2) doing the whole MCP
// authorization flow with the client-credentials grant, then listing the
// tools and calling one. The SDK does every step itself: the first request
// gets 401, it reads resource_metadata (and scope) from WWW-Authenticate,
// fetches the protected-resource metadata, discovers the authorization server
// (RFC 8414, then OpenID discovery), asks its token endpoint for a token with
// `resource` = the metadata's resource (client_secret_basic when the server
// offers it), and retries with the bearer token.
//
// Usage:
//   node oauth_client.mjs MCP_URL CLIENT_ID CLIENT_SECRET SCOPE TOOL ARGS_JSON [EXPECTED_ISSUER]
//
// SCOPE is the provider's scope, which the SDK uses only when neither the
// 401's WWW-Authenticate scope nor the metadata's scopes_supported names one.
// EXPECTED_ISSUER pins the authorization server the secret may be sent to
// (without it the SDK warns on stderr and trusts the metadata).
// Prints {"tools": [names], "result": CallToolResult, "protocol": version};
// on any failure the error goes to stderr and the exit status is non-zero.

import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, clientId, clientSecret, scope, tool, argsJson, expectedIssuer] = process.argv.slice(2);
const authProvider = new ClientCredentialsProvider({
  clientId,
  clientSecret,
  scope: scope || undefined,
  ...(expectedIssuer ? { expectedIssuer } : {}),
});
const client = new Client({ name: "hosted-mcp-kit-oauth-test", version: "1.0.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  const protocol = client.getNegotiatedProtocolVersion?.() ?? null;
  process.stdout.write(JSON.stringify({ tools, result, protocol }) + "\n");
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await client.close().catch(() => {});
}
