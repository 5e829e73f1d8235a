#!/usr/bin/env bash
# A whole scan next to a bare crawler: serves the paginated HAL API of
# fixtures/large (pages as query strings and as paths) on 127.0.0.1 and, at
# each size, runs the real binary and a minimal crawler (8 workers, one
# keep-alive client, every body parsed as JSON, every `_links` href followed)
# against it, one after the other, each as its own process. Prints
# requests/s of both and their ratio, the scan's wall time and peak RSS, and
# CPU time per resource (from each process's rusage).
# Usage: .ci/bench/crawl.sh [sizes]   (default 1000,10000,50000; 100000 takes
# minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="${1:-1000,10000,50000}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/agentready" ./cmd/agentready
go build -o "$tmp/crawl" ./internal/bench/crawl
"$tmp/crawl" -agentready "$tmp/agentready" -sizes "$sizes"
