#!/usr/bin/env bash
# What a big document costs the gateway, for the table of docs/gateway.md:
# start-up until it serves, resident memory once serving and after a
# tools/list, and the tools/list answer's size and time (the median of 5,
# over HTTP in the initialize era, read with curl).
#
# Usage: benches/big-documents.sh GATEWAY DOCUMENT...
#   GATEWAY   a release build: target/release/hosted-mcp-gateway
#   DOCUMENT  OpenAPI documents, e.g. ../shared/corpus/stripe__spec3.yaml
# Prints one Markdown table row per document. Needs curl; Linux (/proc).
set -euo pipefail
gateway=$1
shift
port=18931
url="http://127.0.0.1:$port/mcp"
accept='Accept: application/json, text/event-stream'
json='Content-Type: application/json'

rss_mb() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }

echo "| document | tools | start-up | memory serving | after tools/list | tools/list | answered in |"
echo "|---|---|---|---|---|---|---|"
for document in "$@"; do
  log=$(mktemp)
  started=$(date +%s%N)
  HOSTED_MCP_CREDENTIAL=measure-only-credential "$gateway" serve --openapi "$document" \
    --base-url http://127.0.0.1:9 --listen "127.0.0.1:$port" 2>"$log" &
  pid=$!
  until grep -q "serving over HTTP" "$log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.005
  done
  up_ms=$(( ($(date +%s%N) - started) / 1000000 ))
  tools=$(sed -n 's/.*serving over HTTP tools=\([0-9]*\).*/\1/p' "$log")
  serving=$(rss_mb "$pid")
  headers=$(mktemp)
  curl -s -D "$headers" -o /dev/null -H "$accept" -H "$json" "$url" -d \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"measure","version":"1"}}}'
  session=$(tr -d '\r' <"$headers" | sed -n 's/^mcp-session-id: //Ip')
  with_session=(-H "$accept" -H "$json" -H "Mcp-Session-Id: $session" -H "MCP-Protocol-Version: 2025-11-25")
  curl -s -o /dev/null "${with_session[@]}" "$url" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  times=()
  for _ in 1 2 3 4 5; do
    times+=("$(curl -s -o /tmp/tools-list.json -w '%{time_total}' "${with_session[@]}" "$url" \
      -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}')")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  size=$(stat -c %s /tmp/tools-list.json)
  after=$(rss_mb "$pid")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  rm -f "$log" "$headers"
  printf '| %s | %s | %d ms | %s MB | %s MB | %s bytes | %.1f ms |\n' \
    "$(basename "$document")" "$tools" "$up_ms" "$serving" "$after" "$size" \
    "$(echo "$median * 1000" | bc -l)"
done
