#!/usr/bin/env bash
# Static-pass speed and memory. On each description, in the same run:
#   agentready lint                      (everything `lint` does)
#   the floor: libopenapi parse + model  (BenchmarkLoad/file/floor in
#                                         internal/spec/, same library
#                                         configuration as lint)
#   vacuum lint, redocly lint            (GitHub's files only; vacuum when a
#                                         binary can be had)
# Descriptions: GitHub's REST description, which the npm package
# @octokit/openapi ships (installed in a temporary directory, never
# committed), its largest dereferenced form, and two generated ones
# (internal/bench/specgen): a 30 MB synthetic description and 50,000
# operations sharing one operationId.
# Wall and CPU times come from hyperfine when installed (apt-get install -y
# hyperfine), else from a loop of runs; peak resident memory from GNU time
# (/usr/bin/time), one run each. Usage: .ci/bench/lint.sh [runs]   (default 5)
# Environment: VACUUM=/path/to/vacuum to use an existing vacuum binary;
# SPEC=/path/to/description to skip the npm install and measure that file.
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
go build -o "$tmp/specgen" ./internal/bench/specgen
go test -c -o "$tmp/spec.test" ./internal/spec
"$tmp/specgen" synthetic 30000000 >"$tmp/synthetic-30MB.json"
"$tmp/specgen" duplicates 50000 >"$tmp/duplicates-50k.json"

vacuum="${VACUUM:-}"
if [ -z "$vacuum" ] && GOBIN="$tmp" go install "github.com/daveshanley/vacuum@$vacuum_version" 2>/dev/null; then
  vacuum="$tmp/vacuum"
fi

gnutime=""
if [ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
  gnutime=/usr/bin/time
fi

# peak prints the peak resident memory of one run of a command, in MiB.
peak() {
  if [ -z "$gnutime" ]; then
    echo "-"
    return
  fi
  "$gnutime" -f %M -o "$tmp/peak.txt" bash -c "$*" >/dev/null 2>&1 || true
  echo "$(( $(tail -1 "$tmp/peak.txt") / 1024 ))"
}

measure() { # name command...
  local name="$1"; shift
  local mib
  mib="$(peak "$*")"
  if command -v hyperfine >/dev/null; then
    hyperfine --runs "$runs" --warmup 1 -i --export-json "$tmp/$name.json" --command-name "$name" "$*" >&2
    python3 - "$tmp/$name.json" "$name" "$mib" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f'{sys.argv[2]} {r["mean"]:.3f} {r["user"] + r["system"]:.3f} {sys.argv[3]}')
PY
  else
    local start end
    start=$(date +%s.%N)
    for _ in $(seq "$runs"); do eval "$*" >/dev/null 2>&1 || true; done
    end=$(date +%s.%N)
    echo "$name $(echo "($end - $start) / $runs" | bc -l) - $mib"
  fi
}

for file in "$SPEC" "$canonical" "$tmp/synthetic-30MB.json" "$tmp/duplicates-50k.json"; do
  [ -f "$file" ] || continue
  size="$(stat -c %s "$file")"
  echo "== $(basename "$file") ($(du -h "$file" | cut -f1))" >&2
  {
    # The cap is raised to the file's size: the dereferenced description is
    # larger than the default.
    measure agentready-lint "$tmp/agentready lint -q --fail-on none --max-spec-size $size '$file'"
    measure floor-parse "AGENTREADY_BENCH_SPEC='$file' $tmp/spec.test -test.run '^\$' -test.bench 'BenchmarkLoad/file/floor' -test.benchtime 1x"
    case "$file" in "$tmp"/*) ;; *)
      if [ -n "$vacuum" ]; then
        measure vacuum-lint "$vacuum lint '$file'"
      fi
      if [ -x "$redocly" ]; then
        measure redocly-lint "$redocly lint '$file'"
      fi
    esac
  } > "$tmp/results.txt"
  awk -v file="$(basename "$file")" '
    { wall[$1] = $2; cpu[$1] = $3; rss[$1] = $4; order[NR] = $1 }
    END {
      printf "\n%s\n%-16s %10s %10s %10s %14s %14s\n", file, "tool", "wall s", "cpu s", "peak MiB", "wall / floor", "peak / floor"
      for (i = 1; i <= NR; i++) {
        n = order[i]
        ratio = (rss[n] == "-" || rss["floor-parse"] == "-") ? "-" : sprintf("%.2f", rss[n] / rss["floor-parse"])
        printf "%-16s %10.3f %10s %10s %14.2f %14s\n", n, wall[n], cpu[n], rss[n], wall[n] / wall["floor-parse"], ratio
      }
    }' "$tmp/results.txt"
done
if [ -z "$vacuum" ]; then
  echo "vacuum: not measured (no binary: set VACUUM, or allow go install github.com/daveshanley/vacuum@$vacuum_version)" >&2
fi
