# openmcp 1.0.10 (npm), its CLI (`openmcp run --config openmcp.json`)
# through adapter.sh. Stdio only: `run` has no other transport.
name="openmcp 1.0.10"
install() { node_peer; }
stdio_command="$(q "$here/openmcp/adapter.sh") --openapi {openapi} --base-url {base_url}"
