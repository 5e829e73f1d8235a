# shellcheck shell=bash
# Sourced by the scan step of action.yml: which repository file SARIF
# results that have no place in the OpenAPI document point at. GitHub shows
# a code-scanning alert only on a file the repository has; action.yml is
# the action's, not the repository's.

# repo_file PATH succeeds when PATH is a file of the working directory (the
# checkout) named without leaving it, and sets repo_file to its path
# relative to it.
repo_file() {
  local p=$1
  [ -n "$p" ] || return 1
  case "$p" in
    *://*) return 1 ;;
    "$PWD"/*) p=${p#"$PWD"/} ;;
    /*) return 1 ;;
  esac
  case "/$p/" in
    */../*) return 1 ;;
  esac
  [ -f "$p" ] || return 1
  repo_file=$p
}

# sarif_anchor sets sarif_anchor to the first of: the sarif-anchor input;
# the openapi input when it is a file of the checkout; the configuration
# file (the config input, else .agentready.yaml in the working directory,
# where agentready looks first); the workflow file that runs the action,
# from GITHUB_WORKFLOW_REF (owner/repo/.github/workflows/f.yml@ref). It is
# empty when none applies, and agentready then picks its own default.
sarif_anchor() {
  sarif_anchor=${INPUT_SARIF_ANCHOR:-}
  [ -n "$sarif_anchor" ] && return
  if repo_file "${INPUT_OPENAPI:-}" || repo_file "${INPUT_CONFIG:-.agentready.yaml}"; then
    sarif_anchor=$repo_file
    return
  fi
  local workflow=${GITHUB_WORKFLOW_REF:-}
  workflow=${workflow%%@*}
  workflow=${workflow#"${GITHUB_REPOSITORY:-}"/}
  if [[ "$workflow" =~ ^\.github/workflows/[^/]+\.ya?ml$ ]]; then
    sarif_anchor=$workflow
  fi
}
