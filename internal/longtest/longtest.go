// Package longtest marks the tests that take too long for the suite a
// developer runs on every change (`go test ./...`): each waits out a budget,
// feeds a bound megabytes, or sweeps every fixture. They run where
// AGENTREADY_LONG=1 is set, as .ci/run sets it in its long-tests step, so CI
// still runs every test; TestEveryLongTestRunsInCI holds that step to
// naming each of them.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that turns the long tests on when it is "1".
const Env = "AGENTREADY_LONG"

// Enabled reports whether the long tests run: Env is "1" and -short is not
// given.
func Enabled() bool { return os.Getenv(Env) == "1" && !testing.Short() }

// Skip skips t unless the long tests run. why says what makes it long,
// for whoever wonders where the test went.
func Skip(t testing.TB, why string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("long (%s): runs with %s=1, as .ci/run sets it", why, Env)
	}
}
