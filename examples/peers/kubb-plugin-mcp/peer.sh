# @kubb/plugin-mcp 4.39.2 (npm), Kubb's MCP server generator, through
# adapter.sh: built once per document (`--prepare`: kubb generate into
# {prepared}), then the generated server started by the entry file Kubb's
# docs show, with tsx. Stdio only.
name="@kubb/plugin-mcp 4.39.2"
install() { node_peer; }
adapter=$(q "$here/kubb-plugin-mcp/adapter.sh")
stdio_command="$adapter serve --prepared {prepared} --base-url {base_url} --openapi {openapi}"
# The build per document; Kubb's client takes a credential in headers only
# (no query parameter).
options=(--prepare "$adapter prepare --openapi {openapi} --prepared {prepared}"
  --credential-in bearer,basic,header)
