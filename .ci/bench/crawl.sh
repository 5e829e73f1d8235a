#!/usr/bin/env bash
# A whole scan next to a bare crawler: serves the paginated HAL API of
# fixtures/large (pages as query strings and as paths) on 127.0.0.1 and, at
# each size, runs the minimal crawler (8 workers, one keep-alive client, every
# body parsed as JSON, every `_links` href followed) and the real binary
# against it, each as its own process, three rounds. Prints the medians of
# requests/s of both and their ratio (with its range over the rounds), the
# scan's wall time and peak RSS, and CPU time per resource (from each
# process's rusage).
# Usage: .ci/bench/crawl.sh [sizes] [revision]
#   sizes     default 1000,10000,50000; 100000 takes minutes on 2 cores
#   revision  also build that git revision and measure it in the same rounds,
#             paired with the same crawler runs (before and after)
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="${1:-1000,10000,50000}"
revision="${2:-}"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/crawl" ./internal/bench/crawl
binaries="$tmp/current"
if [ -n "$revision" ]; then
  mkdir "$tmp/src"
  git archive "$revision" | tar -x -C "$tmp/src"
  (cd "$tmp/src" && go build -o "$tmp/$revision" ./cmd/agentready)
  binaries="$tmp/$revision,$binaries"
fi
go build -o "$tmp/current" ./cmd/agentready
"$tmp/crawl" -agentready "$binaries" -sizes "$sizes"
