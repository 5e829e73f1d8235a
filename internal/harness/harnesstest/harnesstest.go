//go:build unix

// Package harnesstest helps tests start the demo API as a real child
// process (internal/harness/testserver) and prove that its process group is gone.
package harnesstest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// built is the binary Main compiled, shared by every test of the package.
var built string

// Main builds the test server once for the whole test binary, runs the
// tests, and removes it: call it from TestMain as os.Exit(harnesstest.Main(m)).
func Main(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agentready-testserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "testserver")
	if out, err := build(bin); err != nil {
		fmt.Fprintf(os.Stderr, "build the test server: %v\n%s", err, out)
		return 1
	}
	built = bin
	return m.Run()
}

// BuildServer returns the test server binary: the one Main built, or one
// compiled into the test's temporary directory.
func BuildServer(t testing.TB) string {
	t.Helper()
	if built != "" {
		return built
	}
	bin := filepath.Join(t.TempDir(), "testserver")
	if out, err := build(bin); err != nil {
		t.Fatalf("build the test server: %v\n%s", err, out)
	}
	return bin
}

func build(bin string) ([]byte, error) {
	return exec.Command("go", "build", "-o", bin, "github.com/agentready/agentready/internal/harness/testserver").CombinedOutput()
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
