//go:build unix

package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// supported: process groups exist here.
const supported = true

var errUnsupported error

// waitDelay bounds how long Wait waits for the output pipes once the main
// process has exited: a child that daemonized may hold them open, and the
// group is killed anyway.
const waitDelay = 2 * time.Second

func command(o Options, out io.Writer) *exec.Cmd {
	adoptOrphans()
	cmd := exec.Command("/bin/sh", "-c", o.Command)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: the terminal's Ctrl-C does not reach it
	// directly, and one signal reaches everything it spawned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = waitDelay
	return cmd
}

// stopGroup sends SIGTERM to the group, waits up to grace for it to be gone,
// then sends SIGKILL and waits again.
func stopGroup(pgid int, grace time.Duration, exited <-chan struct{}) error {
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("stop the app (SIGTERM to process group %d): %w", pgid, err)
	}
	if waitGone(pgid, grace, exited) {
		return nil
	}
	return killGroup(pgid, grace, exited)
}

// killGroup sends SIGKILL to the group and waits up to d for it to be gone.
func killGroup(pgid int, d time.Duration, exited <-chan struct{}) error {
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop the app (SIGKILL to process group %d): %w", pgid, err)
	}
	if waitGone(pgid, d, exited) {
		return nil
	}
	return fmt.Errorf("process group %d is still there after SIGKILL", pgid)
}

// waitGone polls until no process of the group is left and the main process
// has been reaped, or d has passed.
func waitGone(pgid int, d time.Duration, exited <-chan struct{}) bool {
	deadline := time.Now().Add(d)
	for {
		reaped := false
		select {
		case <-exited:
			reaped = true
		default:
		}
		if reaped {
			reapGroup(pgid)
		}
		if reaped && GroupGone(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// GroupGone reports whether no process of the group is left.
func GroupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}
