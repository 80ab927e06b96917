# FastMCP 4.2.3 (PyPI), through the few lines its documentation has a user
# write (adapter.py). Both transports.
name="FastMCP 4.2.3"
install() { python_peer; }
launch="$(q "$dir/venv/bin/python") $(q "$here/fastmcp/adapter.py") --openapi {openapi} --base-url {base_url}"
http_command="$launch --port {port}"
stdio_command="$launch --stdio"
