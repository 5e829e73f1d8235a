//go:build unix && !linux

package harness

// adoptOrphans does nothing where there is no child subreaper: orphans go to
// PID 1, which reaps them on these systems.
func adoptOrphans() {}

func reapGroup(int) {}
