package scan_test

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain lets the heap grow to five times what is live before the
// collector runs, in place of twice: these tests serve and scan small APIs
// hundreds of times over, whose garbage a small live heap would have
// collected again and again, at a cost of up to a third of the package's
// CPU time. The few hundred megabytes this holds at most are nothing to a
// test run.
func TestMain(m *testing.M) {
	debug.SetGCPercent(400)
	os.Exit(m.Run())
}
