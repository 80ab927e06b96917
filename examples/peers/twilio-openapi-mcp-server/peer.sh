# @twilio-alpha/openapi-mcp-server 0.7.0 (npm), its CLI through adapter.sh.
# Stdio only: the peer has no HTTP transport.
name="@twilio-alpha/openapi-mcp-server 0.7.0"
install() { node_peer; }
stdio_command="$(q "$here/twilio-openapi-mcp-server/adapter.sh") --openapi {openapi} --base-url {base_url}"
# It takes no credential in a query (its --authorization is Basic, Bearer or
# ApiKey, a header).
options=(--credential-in bearer,basic,header)
