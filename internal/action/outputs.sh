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

# add_mask VALUE hides VALUE in the rest of the log. The runner undoes %0D,
# %0A and %25 in a command's data, so they are escaped first: a credential
# holding the text %0A is masked as written, not as a line break.
add_mask() {
  local data=${1//'%'/%25}
  data=${data//$'\r'/%0D}
  data=${data//$'\n'/%0A}
  echo "::add-mask::$data"
}
