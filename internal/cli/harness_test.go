//go:build unix

package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
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

// With --start and --trial and no --trial-reset, the harness restarts the
// app before each run: the test server keeps the demo's orders in memory,
// so each run finds the order the scan saw, and its log shows one start
// for the scan and one for each run. --trial-reset wins over the restart,
// and --trial-plan restarts nothing. A restart after which the app does
// not come back stops the scan (exit 3), and the report holds the run
// played before it.
func TestTrialRestartsTheStartedApp(t *testing.T) {
	bin := harnesstest.ServerCommand(t)
	// starts counts the starts of the command in file N and exits before
	// listening once there were more than LAST (0: never).
	starter := `n=$(( $(cat "$N" 2>/dev/null || echo 0) + 1 )); echo $n > "$N"; ` +
		`if [ "$LAST" -gt 0 ] && [ $n -gt "$LAST" ]; then echo "start $n refused"; exit 3; fi; exec ` + bin + " -spawn -addr $ADDR"
	scanWithTrial := func(t *testing.T, last int, flags ...string) (result, *finding.Report, string) {
		dir := t.TempDir()
		addr := harnesstest.FreeAddr(t)
		logPath, out := filepath.Join(dir, "app.log"), filepath.Join(dir, "r.json")
		args := []string{"scan", "-q", "-o", "json=" + out, "--fail-on", "none",
			"--start", starter, "--start-env", "N=" + filepath.Join(dir, "starts"), "--start-env", fmt.Sprintf("LAST=%d", last),
			"--start-env", "ADDR=" + addr, "--start-log", logPath, "--ready", "listening on", "--stop-grace", "2s",
			"--trial", "--yes", "--active-allow", "POST /orders/*/*"}
		r := run(t, append(append(args, flags...), "http://"+addr+"/")...)
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		// Every process group the command started is gone.
		for _, m := range regexp.MustCompile(`(?m)^pgid (\d+)$`).FindAllStringSubmatch(string(b), -1) {
			pgid, _ := strconv.Atoi(m[1])
			harnesstest.AssertGroupGone(t, pgid)
		}
		return r, readJSONReport(t, out), string(b)
	}
	t.Run("restarted before each run", func(t *testing.T) {
		r, rep, log := scanWithTrial(t, 0)
		if r.code != ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if rep.Trials == nil || rep.Trials.Reset != exchange.ResetRestart {
			t.Fatalf("trials %+v, want reset %q", rep.Trials, exchange.ResetRestart)
		}
		runs := 0
		for _, task := range rep.Trials.Tasks {
			for _, run := range task.Runs {
				runs++
				// Each player of a task acts on the same order, which only a
				// restart brings back to the state the scan saw.
				if run.Outcome != "completed" {
					t.Errorf("task %d (%s), player %s on %s: %s", task.ID, task.Operation, run.Player, run.Resource, run.Outcome)
				}
			}
		}
		// One start for the scan, one before each run, none after the last.
		if starts := strings.Count(log, "listening on "); runs < 2 || starts != runs+1 {
			t.Errorf("%d starts for %d runs, want one for the scan and one before each run", starts, runs)
		}
	})
	t.Run("--trial-reset wins", func(t *testing.T) {
		resets := filepath.Join(t.TempDir(), "resets")
		r, rep, log := scanWithTrial(t, 0, "--trial-reset", "echo reset >> "+resets)
		if r.code != ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		b, _ := os.ReadFile(resets)
		if rep.Trials == nil || rep.Trials.Reset != exchange.ResetCommand || strings.Count(log, "listening on ") != 1 || !strings.Contains(string(b), "reset") {
			t.Errorf("trials %+v, %d starts, resets %q; want the command, and the app started once", rep.Trials, strings.Count(log, "listening on "), b)
		}
	})
	t.Run("plan only", func(t *testing.T) {
		r, rep, log := scanWithTrial(t, 0, "--trial-plan")
		if r.code != ExitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if rep.Trials == nil || !rep.Trials.PlanOnly || rep.Trials.Reset != exchange.ResetRestart || strings.Count(log, "listening on ") != 1 {
			t.Errorf("trials %+v, %d starts; want a plan that would restart, and the app started once", rep.Trials, strings.Count(log, "listening on "))
		}
	})
	t.Run("the app does not come back", func(t *testing.T) {
		// The scan's start and the restart before run 1 succeed; the
		// restart before run 2 exits.
		r, rep, log := scanWithTrial(t, 2)
		if r.code != ExitIncomplete || !strings.Contains(r.stderr, "did not come back when restarted") || !strings.Contains(r.stderr, "start 3 refused") {
			t.Fatalf("exit %d, stderr %q; want %d, the app not coming back and its last line", r.code, r.stderr, ExitIncomplete)
		}
		if !strings.Contains(log, "start 3 refused") {
			t.Errorf("the restarts' output is not appended to the log:\n%s", log)
		}
		if !strings.Contains(rep.Coverage.Interrupted, "did not come back when restarted during the trial") {
			t.Errorf("coverage interrupted %q", rep.Coverage.Interrupted)
		}
		var outcomes []string
		for _, task := range rep.Trials.Tasks {
			for _, run := range task.Runs {
				outcomes = append(outcomes, run.Outcome)
			}
		}
		if len(outcomes) < 2 || outcomes[0] != "completed" || slices.ContainsFunc(outcomes[1:], func(o string) bool { return o != "not played" }) {
			t.Errorf("outcomes %q, want the first run completed and the rest not played", outcomes)
		}
	})
}
