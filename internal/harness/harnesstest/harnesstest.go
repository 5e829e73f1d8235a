//go:build unix

// Package harnesstest helps tests start the demo API as a real child
// process (Serve, in the test binary itself or as internal/harness/testserver)
// and prove that its process group is gone.
package harnesstest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// serveArg, first among a test binary's arguments, makes Main serve the
// demo as the test server (Serve) in place of running the tests: the tests
// start their own binary so, as an app in a process of its own, and no
// build of the server apart costs them a run of the go command.
const serveArg = "-harnesstest.serve"

// self is the test binary, which Main found.
var self string

// Main runs the tests, or, in a process that a command of ServerCommand
// started, the test server: call it from TestMain as
// os.Exit(harnesstest.Main(m)).
func Main(m *testing.M) int {
	if len(os.Args) > 1 && os.Args[1] == serveArg {
		return Serve(os.Args[2:])
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "find the test binary to start as the test server:", err)
		return 1
	}
	self = exe
	return m.Run()
}

// ServerCommand returns the command that starts the test server, for a
// shell: flags of Serve may follow it. The package's TestMain must call Main.
func ServerCommand(t testing.TB) string {
	t.Helper()
	if self == "" {
		t.Fatal("the test server needs harnesstest.Main in the package's TestMain")
	}
	return self + " " + serveArg
}

// FreeAddr returns a 127.0.0.1 address that was free a moment ago, for apps
// that must be told their port in advance.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

var (
	listenLine = regexp.MustCompile(`listening on (http://\S+)`)
	pgidLine   = regexp.MustCompile(`(?m)^pgid (\d+)$`)
)

// ListenURL reads the URL the test server printed from its log.
func ListenURL(t testing.TB, logPath string) string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	m := listenLine.FindSubmatch(b)
	if m == nil {
		t.Fatalf("no 'listening on' line in %s:\n%s", logPath, b)
	}
	return string(m[1])
}

// PgidFromLog reads the process group the test server printed.
func PgidFromLog(logPath string) (int, error) {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return 0, err
	}
	m := pgidLine.FindSubmatch(b)
	if m == nil {
		return 0, fmt.Errorf("no pgid line in %s:\n%s", logPath, b)
	}
	return strconv.Atoi(string(m[1]))
}

// AssertGroupGone fails unless signalling the group reports that no process
// of it is left (ESRCH). Stop returns only once that holds, so no waiting
// is needed; a short grace covers a kernel that is slow to release a group.
func AssertGroupGone(t testing.TB, pgid int) {
	t.Helper()
	if pgid <= 1 {
		t.Fatalf("bad pgid %d", pgid)
	}
	err := syscall.Kill(-pgid, 0)
	for i := 0; i < 50 && !errors.Is(err, syscall.ESRCH); i++ {
		time.Sleep(20 * time.Millisecond)
		err = syscall.Kill(-pgid, 0)
	}
	if !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process group %d is still there: kill(-pgid, 0) = %v", pgid, err)
	}
}

// ProcessGone reports whether no process has this pid.
func ProcessGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
