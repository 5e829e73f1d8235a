# shellcheck shell=bash disable=SC2154
# Shared by servers.sh and matrix/matrix.sh, which source it: what starting
# and stopping servers of others on loopback needs whatever the servers.
# The sourcing script sets say (its own prefix) and pidfile.

# give_up reports a missing piece: fatal in CI, a skipped server elsewhere.
give_up() {
  say "$*"
  if [ "${CI:-}" = true ]; then exit 1; fi
  return 1
}

# stop ends the servers of the last start, by the PIDs recorded.
stop() {
  if [ ! -f "$pidfile" ]; then return; fi
  local pid name
  while read -r pid name _; do
    # Each server leads its own process group (setsid): end the group.
    if kill -- "-$pid" 2>/dev/null; then say "stopped $name ($pid)"; fi
  done <"$pidfile"
  rm -f "$pidfile"
}

# running FILE reports whether every server of the last start still runs
# and FILE, what that start wrote for its users, is there: a second start
# (another shell, another test run) then reuses them instead of killing
# them under its feet.
running() {
  [ -s "$pidfile" ] && [ -s "$1" ] || return 1
  local pid
  while read -r pid _; do
    kill -0 "$pid" 2>/dev/null || return 1
  done <"$pidfile"
}
