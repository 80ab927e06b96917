# rmcp-openapi-server 0.32.1 (crates.io), its binary through adapter.sh.
# Streamable HTTP only.
name="rmcp-openapi-server 0.32.1"
version=0.32.1
install() {
  if ! "$dir/bin/rmcp-openapi-server" --version 2>/dev/null | grep -q " $version\$"; then
    echo "== installing rmcp-openapi-server $version into $dir (cargo install: about 30 minutes on 2 cores, once)"
    cargo install --quiet --locked --force --version "$version" --root "$dir" rmcp-openapi-server
  fi
}
http_command="$(q "$here/rmcp-openapi-server/adapter.sh") --openapi {openapi} --base-url {base_url} --port {port}"
# A query parameter is no place it can put a credential (its --header only).
options=(--credential-in bearer,basic,header)
