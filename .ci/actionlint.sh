#!/usr/bin/env bash
# Lint every workflow with actionlint (which also checks `uses: ./` against
# action.yml's inputs and outputs), then a workflow that uses a copy of the
# action and reads every output it sets. Any finding fails. The version is
# pinned here and fetched through the Go module proxy like any other module.
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
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install "$ACTIONLINT"
# shellcheck and pyflakes are used by actionlint when they are installed;
# the run: scripts are checked by them only then.
"$bin/actionlint" -no-color "${workflows[@]}"
echo "actionlint: ${#workflows[@]} workflow(s) clean"
# A workflow in another repository sees the action's declared outputs only.
AGENTREADY_ACTIONLINT="$bin/actionlint" go test -count=1 -run '^TestVendoredActionPassesActionlint$' ./internal/actiontest/
