# shellcheck shell=bash
# Sourced by the run: steps of action.yml.

# one_line NAME VALUE fails the step unless VALUE is a single line. A line
# break in anything written to GITHUB_OUTPUT starts a line of its own, which
# can set any other output (exit-code=0 turns a failed gate into a pass).
# The value itself is never printed: it could carry a workflow command.
one_line() {
  if [[ "$2" == *[$'\r\n']* ]]; then
    echo "::error title=agentready::$1: must be a single line (it contains a line break)"
    exit 2
  fi
}

# set_output NAME VALUE sets one output of the step.
set_output() {
  one_line "output $1" "$2"
  printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"
}
