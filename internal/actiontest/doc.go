// Package actiontest runs the composite GitHub Action (action.yml at the
// repository root) the way a runner would, without GitHub: its tests read
// action.yml and run each step in order.
//
// What the runner provides is recreated: GITHUB_OUTPUT (a file per step,
// parsed into steps.<id>.outputs), GITHUB_STEP_SUMMARY, GITHUB_ACTION_PATH
// (the repository root), GITHUB_EVENT_PATH, GITHUB_SERVER_URL,
// GITHUB_RUN_ID, GITHUB_WORKFLOW_REF, RUNNER_TEMP, RUNNER_OS and
// RUNNER_ARCH; run: steps execute with `bash --noprofile --norc -eo pipefail
// FILE`, GitHub's command for shell: bash. A test can add to that
// environment: a stub gh first on PATH, the event of a pull request, a
// stub release server in AGENTREADY_RELEASE_BASE_URL.
//
// Expressions are evaluated for the subset action.yml may use, and the test
// fails on anything else, so the action cannot drift outside what is tested:
// ${{ inputs.NAME }}, ${{ steps.ID.outputs.NAME }}, ${{ github.action_path }},
// ${{ github.token }} and ${{ runner.temp }} in env:, with: and outputs; and
// in if: conditions always(), && and comparisons of those references with
// '...' literals. A step without always() runs only while no step failed.
//
// The shim for uses: steps:
//   - actions/setup-go is satisfied by the go on PATH, which is checked;
//   - actions/cache/restore restores nothing new: cache-hit is "true"
//     exactly when the cached path already exists (an earlier run in the
//     same RUNNER_TEMP built or downloaded it), which is what a warm cache
//     looks like to later steps;
//   - actions/cache/save checks that the path it would save holds
//     something (the release's archive, or the source build), so that no
//     step saves an empty or failed install.
//
// Any other uses: fails the test.
package actiontest
