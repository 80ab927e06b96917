# FastMCP 4.2.3 (PyPI) run as an MCP resource server: the same install and
# adapter as examples/peers/fastmcp, its RemoteAuthProvider and JWTVerifier
# trusting the harness's authorization server (`--client-auth oauth`).
# Streamable HTTP only: over stdio there is no token to check, and the
# fastmcp peer judges that form.
name="FastMCP+JWTVerifier 4.2.3 (resource server)"
install() {
  mkdir -p "$dir"
  local peer=fastmcp dir="$root/target/peers/fastmcp"
  python_peer
}
http_command="$(q "$root/target/peers/fastmcp/venv/bin/python") $(q "$here/fastmcp/adapter.py") --openapi {openapi} --base-url {base_url} --port {port} --issuer {issuer} --jwks-uri {jwks_uri} --resource {resource}"
options=(--client-auth oauth)
