//go:build !unix

package harness

import (
	"errors"
	"io"
	"os/exec"
	"time"
)

// supported is false: without process groups the app's children could
// outlive the scan, so Start refuses instead.
const supported = false

var errUnsupported = errors.New("starting the app (--start) needs process groups, which this platform does not have; start the app yourself and scan its URL")

func command(o Options, out io.Writer) *exec.Cmd { return nil }

func stopGroup(int, time.Duration, <-chan struct{}) error { return errUnsupported }

func killGroup(int, time.Duration, <-chan struct{}) error { return errUnsupported }

// GroupGone is always true where there are no process groups.
func GroupGone(int) bool { return true }
