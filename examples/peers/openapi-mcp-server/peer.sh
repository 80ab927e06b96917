# @ivotoby/openapi-mcp-server 1.16.1 (npm), its CLI through adapter.sh.
# Both transports.
name="@ivotoby/openapi-mcp-server 1.16.1"
install() { node_peer; }
launch="$(q "$here/openapi-mcp-server/adapter.sh") --openapi {openapi} --base-url {base_url}"
http_command="$launch --port {port}"
stdio_command="$launch --stdio"
