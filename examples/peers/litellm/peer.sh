# LiteLLM 1.108.7 (PyPI `litellm[proxy]`), its proxy's MCP gateway serving an
# OpenAPI document as tools (`mcp_servers` with a `spec_path`), through
# adapter.py. Streamable HTTP only (the proxy is an HTTP server); it lets in
# only the harness's client, by its master key.
name="LiteLLM 1.108.7"
install() { python_peer; }
http_command="$(q "$dir/venv/bin/python") $(q "$here/litellm/adapter.py") --openapi {openapi} --base-url {base_url} --port {port}"
# It puts a credential in a header only (no query parameter); the proxy
# imports for about 15 s on 2 busy cores before it listens.
options=(--client-auth bearer --credential-in bearer,basic,header --start-timeout 60)
