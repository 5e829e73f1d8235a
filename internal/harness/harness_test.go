//go:build unix

package harness_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/harness"
	"github.com/agentready/agentready/internal/harness/harnesstest"
)

func TestMain(m *testing.M) { os.Exit(harnesstest.Main(m)) }

func TestStartReadyOnOutputThenStop(t *testing.T) {
	server := harnesstest.ServerCommand(t)
	logPath := filepath.Join(t.TempDir(), "app.log")
	app, err := harness.Start(context.Background(), harness.Options{
		Command: server + " -addr 127.0.0.1:0 -spawn",
		Ready:   `listening on http://`,
		LogPath: logPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	url := harnesstest.ListenURL(t, logPath)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	child := spawnedChild(t, logPath)
	if err := app.Stop(); err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, app.Pgid())
	if err := syscall.Kill(child, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the child the app spawned (pid %d) survived: %v", child, err)
	}
	if app.LogPath() != logPath {
		t.Fatalf("log path %q, want %q", app.LogPath(), logPath)
	}
}

// TestGoRunIsStoppedWithItsServer starts the server the way developers do,
// through `go run`, whose child is the real server: both must go.
func TestGoRunIsStoppedWithItsServer(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles with go run")
	}
	logPath := filepath.Join(t.TempDir(), "app.log")
	app, err := harness.Start(context.Background(), harness.Options{
		Command:      "go run github.com/agentready/agentready/internal/harness/testserver -spawn -addr 127.0.0.1:0",
		Ready:        "listening on",
		ReadyTimeout: 5 * time.Minute,
		LogPath:      logPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	child := spawnedChild(t, logPath)
	if err := app.Stop(); err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, app.Pgid())
	if !harnesstest.ProcessGone(child) {
		t.Fatalf("the server's child %d survived", child)
	}
}

func TestStartReadyOnURL(t *testing.T) {
	server := harnesstest.ServerCommand(t)
	addr := harnesstest.FreeAddr(t)
	app, err := harness.Start(context.Background(), harness.Options{
		Command: server + " -silent -addr " + addr,
		Ready:   "http://" + addr + "/",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(app.LogPath())
	if err := app.Stop(); err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, app.Pgid())
}

func TestEnvironmentReachesTheApp(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "app.log")
	app, err := harness.Start(context.Background(), harness.Options{
		Command: `echo "greeting=$GREETING"; exec sleep 60`,
		Env:     []string{"GREETING=hello from the harness"},
		Ready:   `^greeting=`,
		LogPath: logPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Stop(); err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, app.Pgid())
	b, _ := os.ReadFile(logPath)
	if !strings.Contains(string(b), "greeting=hello from the harness") {
		t.Fatalf("log %q lacks the variable", b)
	}
}

func TestTimeoutStopsTheGroupAndShowsTheLog(t *testing.T) {
	server := harnesstest.ServerCommand(t)
	logPath := filepath.Join(t.TempDir(), "app.log")
	app, err := harness.Start(context.Background(), harness.Options{
		Command:      "echo starting up; " + server + " -silent -spawn -addr 127.0.0.1:0",
		Ready:        "never printed",
		ReadyTimeout: 300 * time.Millisecond,
		LogPath:      logPath,
	})
	if app != nil || !errors.Is(err, harness.ErrNotReady) {
		t.Fatalf("got %v, %v; want ErrNotReady", app, err)
	}
	for _, want := range []string{"not ready after 300ms", "starting up", logPath} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	harnesstest.AssertGroupGone(t, pgidFromLog(t, logPath))
	if child := spawnedChild(t, logPath); !harnesstest.ProcessGone(child) {
		t.Fatalf("spawned child %d survived", child)
	}
}

func TestAppThatExitsEarlyIsReported(t *testing.T) {
	_, err := harness.Start(context.Background(), harness.Options{
		Command: `echo "fatal: port 8080 already in use" >&2; exit 3`,
		Ready:   "listening",
	})
	if !errors.Is(err, harness.ErrNotReady) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"exited first", "exit status 3", "port 8080 already in use"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestSIGKILLAfterGrace(t *testing.T) {
	server := harnesstest.ServerCommand(t)
	logPath := filepath.Join(t.TempDir(), "app.log")
	app, err := harness.Start(context.Background(), harness.Options{
		Command: "exec " + server + " -ignore-term -addr 127.0.0.1:0",
		Ready:   "listening on",
		Grace:   200 * time.Millisecond,
		LogPath: logPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Stop(); err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, app.Pgid())
}

func TestCancelWhileWaiting(t *testing.T) {
	server := harnesstest.ServerCommand(t)
	logPath := filepath.Join(t.TempDir(), "app.log")
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel as soon as the app is up but before it is "ready": the way
	// Ctrl-C arrives during a slow start.
	go func() {
		defer cancel()
		for range 500 {
			if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "pgid") {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := harness.Start(ctx, harness.Options{
		Command: server + " -silent -addr 127.0.0.1:0",
		Ready:   "never printed",
		LogPath: logPath,
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	harnesstest.AssertGroupGone(t, pgidFromLog(t, logPath))
}

func TestHostileOutputIsSanitized(t *testing.T) {
	_, err := harness.Start(context.Background(), harness.Options{
		Command: `printf 'evil \033]0;pwned\007 title\n'; exit 1`,
		Ready:   "listening",
	})
	if err == nil || strings.ContainsAny(err.Error(), "\033\007") {
		t.Fatalf("escape sequences reached the error: %q", err)
	}
}

func TestBadReadiness(t *testing.T) {
	for _, ready := range []string{"", "([unclosed"} {
		if _, err := harness.Start(context.Background(), harness.Options{Command: "true", Ready: ready}); err == nil {
			t.Errorf("ready %q accepted", ready)
		}
	}
}

var spawnedLine = regexp.MustCompile(`spawned child (\d+)`)

func spawnedChild(t *testing.T, logPath string) int {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	m := spawnedLine.FindSubmatch(b)
	if m == nil {
		t.Fatalf("no spawned child in log:\n%s", b)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	return pid
}

func pgidFromLog(t *testing.T, logPath string) int {
	t.Helper()
	pgid, err := harnesstest.PgidFromLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	return pgid
}

// TestNpmStartIsStoppedWithItsServer starts the app the way Node projects do:
// npm runs a shell, which runs the server, and all of them must go.
func TestNpmStartIsStoppedWithItsServer(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm is required in CI for the npm start harness test")
		}
		t.Skip("npm is not installed; skipping the npm start harness test")
	}
	server := harnesstest.ServerCommand(t)
	dir := t.TempDir()
	pkg := `{"name":"harness-fixture","version":"1.0.0","private":true,"scripts":{"start":` + strconv.Quote(server+" -spawn -addr 127.0.0.1:0") + `}}`
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "app.log")
	app, err := harness.Start(context.Background(), harness.Options{
		Command:      "cd " + strconv.Quote(dir) + " && npm start --silent",
		Ready:        "listening on",
		ReadyTimeout: 2 * time.Minute,
		LogPath:      logPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	url := harnesstest.ListenURL(t, logPath)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	child := spawnedChild(t, logPath)
	if err := app.Stop(); err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, app.Pgid())
	if !harnesstest.ProcessGone(child) {
		t.Fatalf("the server's child %d survived npm start's shutdown", child)
	}
}

// TestCheckReady: a value with a scheme is a URL and must be one Start can
// poll; anything else is a pattern and must compile.
func TestCheckReady(t *testing.T) {
	for s, ok := range map[string]bool{
		"http://127.0.0.1:8080/health": true,
		"https://localhost/":           true,
		`listening on http://`:         true,
		`^ready$`:                      true,
		"":                             false,
		"(":                            false,
		"http://[":                     false,
		"ftp://x/":                     false,
		"http:///health":               false,
	} {
		if err := harness.CheckReady(s); (err == nil) != ok {
			t.Errorf("CheckReady(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

// TestHowTheAppExited: an app that ends after it was ready says how, by its
// status or by the signal that ended it.
func TestHowTheAppExited(t *testing.T) {
	for command, want := range map[string]string{
		"echo ready; sleep 60":                 "",
		"echo ready; sleep 0.1; exit 3":        "exited with status 3",
		"echo ready; sleep 0.1; kill -KILL $$": "was ended by signal: killed",
	} {
		app, err := harness.Start(context.Background(), harness.Options{Command: command, Ready: "ready"})
		if err != nil {
			t.Fatal(err)
		}
		if want != "" {
			<-app.Done()
		}
		if got := app.HowExited(); got != want {
			t.Errorf("%s: %q, want %q", command, got, want)
		}
		app.Stop()
	}
}

// Restart stops the whole group of the app and starts its command again,
// with the same options, the output appended to the same log; a command
// that does not come back fails as a start does, with nothing left running.
func TestRestart(t *testing.T) {
	bin := harnesstest.ServerCommand(t)
	dir := t.TempDir()
	logPath, marker := filepath.Join(dir, "app.log"), filepath.Join(dir, "started")
	// The second start exits at once: the app does not come back.
	command := `if [ -e "$MARKER" ]; then echo "already started once"; exit 3; fi; touch "$MARKER"; exec ` + bin + " -addr 127.0.0.1:0 -spawn"
	app, err := harness.Start(context.Background(), harness.Options{
		Command: command, Env: []string{"MARKER=" + marker}, Ready: "listening on", LogPath: logPath, Grace: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	first := app.Pgid()
	// Without the marker the command starts again, so the restart succeeds.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	again, err := app.Restart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	harnesstest.AssertGroupGone(t, first)
	if again.Pgid() == first || again.LogPath() != logPath || again.Exited() {
		t.Fatalf("restarted app: pgid %d (first %d), log %s, exited %v", again.Pgid(), first, again.LogPath(), again.Exited())
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "listening on "); n != 2 {
		t.Fatalf("the log holds %d starts, want both:\n%s", n, b)
	}
	// The marker is back: this restart's command exits before it is ready.
	_, err = again.Restart(context.Background())
	if !errors.Is(err, harness.ErrNotReady) || !strings.Contains(err.Error(), "already started once") {
		t.Fatalf("restart of a command that exits: %v", err)
	}
	harnesstest.AssertGroupGone(t, again.Pgid())
}
