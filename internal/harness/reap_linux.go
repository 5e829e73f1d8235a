package harness

import (
	"sync"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

var subreaperOnce sync.Once

// adoptOrphans makes this process the subreaper of its descendants: when the
// app's shell or `go run` exits before the server it started, the server is
// re-parented here instead of to PID 1. Containers often run a PID 1 that
// never reaps, and an unreaped zombie would keep the process group alive
// forever; here reapGroup collects it.
func adoptOrphans() {
	subreaperOnce.Do(func() {
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// reapGroup collects every exited process of the group that was re-parented
// here. It must run only after os/exec has reaped the main process, which
// it would otherwise steal.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
