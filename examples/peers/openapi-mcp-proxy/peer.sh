# openapi-mcp-proxy 1.0.4 (PyPI, command `openapi-mcp`), configured by the
# environment variables its README shows, through adapter.py. Both transports.
name="openapi-mcp-proxy 1.0.4"
install() { python_peer; }
launch="$(q "$dir/venv/bin/python") $(q "$here/openapi-mcp-proxy/adapter.py") --openapi {openapi} --base-url {base_url}"
http_command="$launch --port {port}"
stdio_command="$launch --stdio"
# It serves Streamable HTTP at /mcp (the default); it adds headers only, so
# no credential in a query.
options=(--credential-in bearer,basic,header)
