// Lists a gateway's tools and calls one with the official MCP TypeScript
// SDK client (v2), in both eras over Streamable HTTP and over stdio, and
// prints what came back as JSON.
//
// Usage:
//   node big_answers.mjs URL TOOL ARGUMENTS_JSON -- COMMAND [ARG ...]
//
// Prints {"http legacy": {"protocol", "tools", "isError", "text"},
// "http 2026-07-28": ..., "stdio legacy": ..., "stdio 2026-07-28": ...}.
// Anything the SDK cannot read throws, so the exit status is non-zero.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const ERAS = {
  legacy: { mode: "legacy" },
  "2026-07-28": { mode: { pin: "2026-07-28" } },
};

async function listAndCall(transport, era, tool, args) {
  const client = new Client(
    { name: "hosted-mcp-kit-test", version: "1.0.0" },
    { versionNegotiation: ERAS[era] },
  );
  await client.connect(transport);
  try {
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    const result = await client.callTool({ name: tool, arguments: args });
    const text = result.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("");
    return {
      protocol: client.getNegotiatedProtocolVersion?.() ?? null,
      tools,
      isError: Boolean(result.isError),
      text,
    };
  } finally {
    await client.close();
  }
}

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [url, tool, argsJson] = argv.slice(0, split);
const [command, ...commandArgs] = argv.slice(split + 1);
const args = JSON.parse(argsJson);
const seen = {};
for (const era of Object.keys(ERAS)) {
  seen[`http ${era}`] = await listAndCall(
    new StreamableHTTPClientTransport(new URL(url)),
    era,
    tool,
    args,
  );
  seen[`stdio ${era}`] = await listAndCall(
    new StdioClientTransport({ command, args: commandArgs, env: process.env, stderr: "ignore" }),
    era,
    tool,
    args,
  );
}
process.stdout.write(JSON.stringify(seen) + "\n");
