# openapi-mcp-generator 4.0.1 (npm), a code generator: prepare.sh generates
# and builds a server project per document (the harness's --prepare, once
# per distinct document), adapter.sh runs it. Both transports. The
# generated server has its document built in: {openapi} is in the launch
# templates because every template must name it, and the adapter reads it
# not.
name="openapi-mcp-generator 4.0.1"
install() { node_peer; }
launch="$(q "$here/openapi-mcp-generator/adapter.sh") --prepared {prepared} --openapi {openapi} --base-url {base_url}"
http_command="$launch --port {port}"
stdio_command="$launch --stdio"
options=(--prepare "$(q "$here/openapi-mcp-generator/prepare.sh") {openapi} {prepared}")
