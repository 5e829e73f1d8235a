#!/usr/bin/env bash
# Lint every workflow with actionlint (which also checks `uses: ./` against
# action.yml's inputs). Any finding fails. The version is pinned here and
# fetched through the Go module proxy like any other module.
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

shopt -s nullglob
# The examples under docs/examples/github-actions are workflows users copy: they
# are linted like the repository's own.
workflows=(.github/workflows/*.yml .github/workflows/*.yaml docs/examples/github-actions/*.yml)
if [ ${#workflows[@]} -eq 0 ]; then
  echo "no workflows to lint"; exit 1
fi
# shellcheck and pyflakes are used by actionlint when they are installed;
# the run: scripts are checked by them only then.
go run "$ACTIONLINT" -no-color "${workflows[@]}"
echo "actionlint: ${#workflows[@]} workflow(s) clean"
