#!/usr/bin/env bash
# Time and peak memory of a whole scan of the hostile link flood: every page
# is 1.96 MB and links to 90,000 URLs over 10,000 path shapes. Builds the
# real binary, serves the flood on 127.0.0.1 and scans it under /usr/bin/time.
# Usage: .ci/bench/linkflood.sh [budget] [-html]   (default 30s; -html serves the
# flood as HTML anchors instead of HAL)
set -euo pipefail
cd "$(dirname "$0")/../.."
budget="${1:-30s}"
format="${2:-}"

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/agentready" ./cmd/agentready
go build -o "$tmp/linkflood" ./internal/bench/linkflood
"$tmp/linkflood" $format >"$tmp/url" &
server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url="$(head -1 "$tmp/url")"

code=0
/usr/bin/time -v -o "$tmp/time" "$tmp/agentready" scan "$url" --budget "$budget" \
  --format json -o "text=$tmp/report.txt" >"$tmp/report.json" || code=$?
awk -F': ' '/Elapsed \(wall clock\)/ {print "elapsed        " $2}
            /Maximum resident set size/ {printf "peak RSS       %.0f MiB\n", $2/1024}' "$tmp/time"
echo "exit code      $code"
echo "notes:"
python3 -c 'import json,sys; [print("  -", n) for n in json.load(open(sys.argv[1])).get("notes", [])]' "$tmp/report.json"
