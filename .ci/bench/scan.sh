#!/usr/bin/env bash
# Scan throughput: the whole pipeline (crawl, planned probes, every check,
# grading) against HAL fixtures of ~2,000 and ~10,000 resources served on
# 127.0.0.1. Prints resources/s, requests/s and the peak heap sampled during
# the scan. Usage: .ci/bench/scan.sh [count]   (default 3 runs of each size)
set -euo pipefail
cd "$(dirname "$0")/../.."
count="${1:-3}"
go test -run '^$' -bench 'BenchmarkScan$' -benchtime 1x -count "$count" ./internal/scan | tee /dev/stderr |
  awk '/^BenchmarkScan/ {
         split($1, name, "/"); size = name[2]; sub(/-[0-9]+$/, "", size)
         for (i = 2; i <= NF; i++) { if ($(i+1) == "resources/s") r[size] += $i; if ($(i+1) == "requests/s") q[size] += $i; if ($(i+1) == "peak-heap-MiB" && $i > m[size]) m[size] = $i }
         n[size]++
       }
       END { printf "\n%-18s %14s %14s %14s\n", "fixture", "resources/s", "requests/s", "peak heap MiB";
             for (s in n) printf "%-18s %14.0f %14.0f %14.1f\n", s, r[s]/n[s], q[s]/n[s], m[s] }'
