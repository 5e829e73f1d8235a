#!/usr/bin/env bash
# Static-pass speed on GitHub's public OpenAPI description, which the npm
# package @octokit/openapi ships (installed in a temporary directory, never
# committed). Compares, on the same file and in the same run:
#   agentready lint                      (everything `lint` does)
#   the floor: libopenapi parse + model  (BenchmarkParseGitHub in spec/)
#   vacuum lint                          (when a vacuum binary can be had)
#   redocly lint                         (a whole-document linter from npm)
# Uses hyperfine when installed (apt-get install -y hyperfine), else a loop of
# `time`. Usage: .ci/bench/lint.sh [runs]   (default 5)
# Environment: VACUUM=/path/to/vacuum to use an existing vacuum binary;
# SPEC=/path/to/description to skip the npm install.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-5}"
octokit_version=23.0.2
redocly_version=2.77.0
vacuum_version=v0.25.9

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [ -z "${SPEC:-}" ]; then
  npm install --prefix "$tmp/npm" --no-save --silent "@octokit/openapi@$octokit_version" "@redocly/cli@$redocly_version" >/dev/null
  # The largest api.github.com description (the dereferenced JSON), and the
  # canonical one with $refs.
  SPEC="$(ls -S "$tmp"/npm/node_modules/@octokit/openapi/generated/api.github.com*.json | head -1)"
fi
canonical="$(dirname "$SPEC")/api.github.com.json"
redocly="$tmp/npm/node_modules/.bin/redocly"

go build -o "$tmp/agentready" ./cmd/agentready
go test -c -o "$tmp/spec.test" ./internal/spec

vacuum="${VACUUM:-}"
if [ -z "$vacuum" ] && GOBIN="$tmp" go install "github.com/daveshanley/vacuum@$vacuum_version" 2>/dev/null; then
  vacuum="$tmp/vacuum"
fi

measure() { # name command...
  local name="$1"; shift
  if command -v hyperfine >/dev/null; then
    hyperfine --runs "$runs" --warmup 1 -i --export-json "$tmp/$name.json" --command-name "$name" "$*" >&2
    python3 - "$tmp/$name.json" "$name" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f'{sys.argv[2]} {r["mean"]:.3f} {r["user"] + r["system"]:.3f}')
EOF
  else
    local start end
    start=$(date +%s.%N)
    for _ in $(seq "$runs"); do eval "$*" >/dev/null 2>&1 || true; done
    end=$(date +%s.%N)
    echo "$name $(echo "($end - $start) / $runs" | bc -l) -"
  fi
}

for file in "$SPEC" "$canonical"; do
  [ -f "$file" ] || continue
  echo "== $(basename "$file") ($(du -h "$file" | cut -f1))" >&2
  {
    measure agentready-lint "$tmp/agentready lint -q --fail-on none '$file'"
    measure floor-parse "AGENTREADY_BENCH_SPEC='$file' $tmp/spec.test -test.run '^\$' -test.bench BenchmarkParseGitHub -test.benchtime 1x"
    if [ -n "$vacuum" ]; then
      measure vacuum-lint "$vacuum lint '$file'"
    fi
    if [ -x "$redocly" ]; then
      measure redocly-lint "$redocly lint '$file'"
    fi
  } > "$tmp/results.txt"
  if [ -z "$vacuum" ]; then
    echo "vacuum: not measured (no binary: set VACUUM, or allow go install github.com/daveshanley/vacuum@$vacuum_version)" >&2
  fi
  awk -v file="$(basename "$file")" '
    { wall[$1] = $2; cpu[$1] = $3; order[NR] = $1 }
    END {
      printf "\n%s\n%-16s %10s %12s %14s %14s\n", file, "tool", "wall s", "cpu s", "wall / floor", "wall / lint"
      for (i = 1; i <= NR; i++) {
        n = order[i]
        printf "%-16s %10.3f %12s %14.2f %14.2f\n", n, wall[n], cpu[n], wall[n] / wall["floor-parse"], wall[n] / wall["agentready-lint"]
      }
    }' "$tmp/results.txt"
done
