# openapi-mcp-gateway 0.8.0 (PyPI), its CLI with a config file through
# adapter.sh. Both transports.
name="openapi-mcp-gateway 0.8.0"
install() { python_peer; }
launch="$(q "$here/openapi-mcp-gateway/adapter.sh") --openapi {openapi} --base-url {base_url}"
http_command="$launch --port {port}"
stdio_command="$launch --stdio"
# It serves MCP at /{server name}/mcp, and has no basic or query credential.
options=(--endpoint /api/mcp --credential-in bearer,header)
