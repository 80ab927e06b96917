# FastMCP 4.2.3 (PyPI), through the few lines its documentation has a user
# write (adapter.py). Both transports; over HTTP it lets in only the
# harness's client, by a bearer token (its StaticTokenVerifier).
name="FastMCP 4.2.3"
install() { python_peer; }
launch="$(q "$dir/venv/bin/python") $(q "$here/fastmcp/adapter.py") --openapi {openapi} --base-url {base_url}"
http_command="$launch --port {port}"
stdio_command="$launch --stdio"
options=(--client-auth bearer)
