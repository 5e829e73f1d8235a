package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps its failures instead of failing the
// test that runs Check.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.failures = append(r.failures, fmt.Sprint(args...))
	runtime.Goexit()
}

// check runs Check in its own goroutine, since a fatal failure ends it.
func check(t *testing.T, path string, got []byte) []string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
	return r.failures
}

func TestCheckAcceptsEqualBytes(t *testing.T) {
	t.Setenv(UpdateEnv, "")
	path := filepath.Join(t.TempDir(), "report.txt")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if failures := check(t, path, []byte("a\nb\n")); len(failures) != 0 {
		t.Fatalf("equal bytes failed: %v", failures)
	}
}

func TestCheckNamesTheRegenerateCommand(t *testing.T) {
	t.Setenv(UpdateEnv, "")
	dir := t.TempDir()
	path := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failures := check(t, path, []byte("a\nc\n"))
	if len(failures) != 1 || !strings.Contains(failures[0], Command) || !strings.Contains(failures[0], "line 2:") {
		t.Fatalf("a difference was reported as %q, want one failure naming %s and the line", failures, Command)
	}
	failures = check(t, filepath.Join(dir, "missing.txt"), []byte("a\n"))
	if len(failures) != 1 || !strings.Contains(failures[0], Command) {
		t.Fatalf("a missing file was reported as %q, want one failure naming %s", failures, Command)
	}
}

func TestCheckRewritesWhenUpdating(t *testing.T) {
	t.Setenv(UpdateEnv, "1")
	path := filepath.Join(t.TempDir(), "scenario", "report.txt")
	if failures := check(t, path, []byte("new\n")); len(failures) != 0 {
		t.Fatalf("updating failed: %v", failures)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new\n" {
		t.Fatalf("wrote %q, %v", got, err)
	}
}

func TestPathIsUnderTheRepositoryTestdata(t *testing.T) {
	if _, err := os.Stat(filepath.Join(Root(), "go.mod")); err != nil {
		t.Fatalf("Root %s holds no go.mod: %v", Root(), err)
	}
	want := filepath.Join(Root(), "testdata", "golden", "demo", "report.json")
	if got := Path("demo", "report.json"); got != want {
		t.Fatalf("Path = %s, want %s", got, want)
	}
}

func TestMessagesNameFilesFromTheRoot(t *testing.T) {
	if got, want := rel(Path("demo", "report.json")), filepath.Join("testdata", "golden", "demo", "report.json"); got != want {
		t.Errorf("rel = %s, want %s", got, want)
	}
	outside := filepath.Join(t.TempDir(), "x.txt")
	if got := rel(outside); got != outside {
		t.Errorf("a file outside the repository is named %s, want %s", got, outside)
	}
}

func TestNormalizePorts(t *testing.T) {
	got := string(NormalizePorts([]byte("GET http://127.0.0.1:41234/orders and 127.0.0.1:8")))
	if got != "GET http://127.0.0.1:PORT/orders and 127.0.0.1:PORT" {
		t.Fatalf("got %q", got)
	}
}
