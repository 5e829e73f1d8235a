package main

import (
	"os"
	"testing"
)

// runMain, set to 1 in a process's environment, makes the test binary run
// agentready's main instead of its tests: the signal tests start it so, as
// agentready in a process of its own that their signals reach, with no
// build of the command apart. It is taken out of the environment first, so
// that the command and the apps it starts see the environment the test gave.
const runMain = "AGENTREADY_TEST_BINARY_RUNS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		os.Unsetenv(runMain)
		main()
	}
	os.Exit(m.Run())
}
