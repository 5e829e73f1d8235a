//go:build unix

package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/harness/harnesstest"
)

// TestScanStartsAndStopsTheApp starts the demo as a real child process
// (harnesstest.Serve, with a child of its own), scans it, and proves the
// whole process group is gone afterwards, whatever the outcome.
func TestScanStartsAndStopsTheApp(t *testing.T) {
	server := harnesstest.ServerCommand(t)
	type tc struct {
		name     string
		server   string // extra test-server flags
		flags    []string
		ctx      func(url string) (context.Context, context.CancelFunc)
		code     int
		stderr   string
		noReport bool
	}
	background := func(string) (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	// cancelMidScan plays Ctrl-C: it cancels once the app has served a few
	// requests of the rate-limited scan, so the scan is under way.
	var logPath string
	cancelMidScan := func(string) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for ctx.Err() == nil {
				if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "served 3 requests") {
					cancel()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		return ctx, cancel
	}
	tests := []tc{
		{name: "success", flags: []string{"--ready", "listening on"}, ctx: background, code: ExitOK},
		{name: "failing gate", server: "-defect no-vary-accept", flags: []string{"--fail-on", "warning"}, ctx: background,
			code: ExitGateFailed, stderr: "last "},
		{name: "readiness timeout", server: "-silent", flags: []string{"--ready", "never printed", "--ready-timeout", "300ms"}, ctx: background,
			code: ExitIncomplete, stderr: "not ready after 300ms", noReport: true},
		{name: "interrupted", server: "-mark-after 3", flags: []string{"--rate", "5", "--ready", "listening on"}, ctx: cancelMidScan,
			code: ExitIncomplete, stderr: "interrupted during the crawl; the partial report was written"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			addr := harnesstest.FreeAddr(t)
			url := "http://" + addr + "/"
			logPath = filepath.Join(dir, "app.log")
			out := filepath.Join(dir, "r.json")
			command := strings.TrimSpace(server + " -spawn -addr " + addr + " " + tt.server)
			ctx, cancel := tt.ctx(url)
			defer cancel()
			args := append([]string{"scan", "-q", "-o", "json=" + out, "--start", command, "--start-log", logPath, "--stop-grace", "2s"}, tt.flags...)
			r := runCtx(t, ctx, append(args, url)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			pgid, err := harnesstest.PgidFromLog(logPath)
			if err != nil {
				t.Fatal(err)
			}
			harnesstest.AssertGroupGone(t, pgid)
			if tt.noReport {
				return
			}
			rep := readJSONReport(t, out)
			if rep.App == nil || rep.App.Log != logPath || rep.App.Command != command {
				t.Fatalf("report app %+v", rep.App)
			}
		})
	}
}

func TestStartFlagsNeedStart(t *testing.T) {
	for _, flag := range []string{"--ready=x", "--start-log=x", "--start-env=A=1"} {
		if r := run(t, "scan", flag, "http://127.0.0.1:1/"); r.code != ExitUsage {
			t.Errorf("%s without --start: exit %d", flag, r.code)
		}
	}
}

// TestAppOutputCannotIssueWorkflowCommands: the app's last lines, shown when
// it never becomes ready, quote it verbatim on stderr.
func TestAppOutputCannotIssueWorkflowCommands(t *testing.T) {
	command := `printf '::error::pwned\n##[warning]legacy\n'; sleep 30`
	r := run(t, "scan", "-q", "--start", command, "--ready", "never printed", "--ready-timeout", "500ms", "--stop-grace", "1s", closedPort(t))
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d: %s", r.code, ExitIncomplete, r.stderr)
	}
	assertNoWorkflowCommand(t, "stderr", r.stderr)
	if !strings.Contains(r.stderr, `\::error::pwned`) {
		t.Fatalf("the app's output is not shown:\n%s", r.stderr)
	}
}

// TestUsageErrorsStartNoApp: every usage error is found before --start runs
// anything.
func TestUsageErrorsStartNoApp(t *testing.T) {
	target, hits := countingServer(t)
	for _, tt := range scanUsageErrors(t.TempDir()) {
		t.Run(tt.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "started")
			args := append([]string{"scan", "-q", "--start", "touch " + marker}, withTarget(tt.args, target)...)
			if r := run(t, args...); r.code != ExitUsage {
				t.Errorf("exit %d, want %d: %s", r.code, ExitUsage, r.stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the app was started")
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the server", n)
	}
}

// TestConfigFoundInAParentDirectoryStartsTheAppWhenChosen: naming the file,
// or trusting it on the command line, lets its start: section run.
func TestConfigFoundInAParentDirectoryStartsTheAppWhenChosen(t *testing.T) {
	target := serve(t)
	for _, chosen := range []string{"--trust-config", "--config"} {
		t.Run(chosen, func(t *testing.T) {
			cfg, marker := parentConfig(t, target)
			args := []string{"scan", "-q", chosen}
			if chosen == "--config" {
				args = append(args, cfg)
			}
			if r := run(t, args...); r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("the app was not started: %v", err)
			}
		})
	}
}

// TestAppThatExitsMidScanStopsIt: the app started with --start exits with
// status 1 while the crawl waits for an answer that never comes (the budget
// and the per-request timeout are far longer than the test): the scan stops
// there, its report says why and has no grade, and the exit code is 3.
func TestAppThatExitsMidScanStopsIt(t *testing.T) {
	dir := t.TempDir()
	reached, ended := filepath.Join(dir, "reached"), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			os.WriteFile(reached, nil, 0o600)
			select {
			case <-r.Context().Done():
			case <-ended:
			}
			return
		}
		w.Header().Set("Content-Type", "application/hal+json")
		w.Write([]byte(`{"_links": {"self": {"href": "/"}, "slow": {"href": "/slow"}}}`))
	}))
	defer srv.Close()
	defer close(ended)
	out := filepath.Join(dir, "r.json")
	// The app exits once the crawl is held at /slow.
	command := "echo ready; while [ ! -e " + reached + " ]; do sleep 0.05; done; exit 1"
	done := make(chan result, 1)
	go func() {
		done <- run(t, "scan", "-q", "-o", "json="+out, "--budget", "10m", "--timeout", "10m",
			"--start", command, "--ready", "ready", "--start-log", filepath.Join(dir, "app.log"), srv.URL+"/")
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the scan still runs 30 s later")
	}
	want := "the app started with --start exited with status 1 during the crawl"
	if r.code != ExitIncomplete || !strings.Contains(r.stderr, "agentready: "+want+"; the partial report was written") {
		t.Errorf("exit %d, stderr %q; want 3 and %q", r.code, r.stderr, want)
	}
	rep := readJSONReport(t, out)
	if rep.Coverage.Interrupted != want || rep.Score.Grade != finding.GradeNotAssessed {
		t.Errorf("coverage.interrupted %q, grade %q; want %q and N/A", rep.Coverage.Interrupted, rep.Score.Grade, want)
	}
}
