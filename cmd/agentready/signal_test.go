//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentready is a command that runs agentready in a process of its own, as
// a user's shell does: a signal must reach that process, as a user's
// Ctrl-C does. It is this test binary, running main (see runMain), with
// env as its whole environment.
func agentready(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(env, runMain+"=1")
	return cmd
}

// hangingAt serves a small HAL API and never answers the requests hang
// picks, until the client gives up; hung is sent each one's path.
func hangingAt(hang func(*http.Request) bool, hung chan<- string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang(r) {
			// The server notices the client leave only once the body is read.
			io.Copy(io.Discard, r.Body)
			select {
			case hung <- r.Method + " " + r.URL.Path:
			default:
			}
			<-r.Context().Done()
			return
		}
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "application/hal+json")
			w.Write([]byte(`{"_links": {"self": {"href": "/"}, "items": {"href": "/items"}, "slow": {"href": "/slow"}}}`))
		case "/items":
			w.Header().Set("Content-Type", "application/hal+json")
			w.Write([]byte(`{"_links": {"self": {"href": "/items"}, "item": [{"href": "/items/1"}, {"href": "/items/2"}]}}`))
		case "/items/1", "/items/2", "/slow":
			w.Header().Set("Content-Type", "application/hal+json")
			w.Write([]byte(`{"_links": {"self": {"href": "` + r.URL.Path + `"}}}`))
		default:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"title": "Not Found", "status": 404}`))
		}
	})
}

// TestSignalWritesThePartialReport sends SIGINT or SIGTERM to a scan held in
// each phase by a request that never gets an answer (the budget and the
// per-request timeout are far longer than the test): every requested output
// is written within 5 s, says what stopped the scan and when, has no grade,
// and the exit code is 3.
func TestSignalWritesThePartialReport(t *testing.T) {
	cases := []struct {
		name   string
		hang   func(*http.Request) bool
		flags  []string
		signal syscall.Signal
		phase  string
	}{
		{"crawl", func(r *http.Request) bool { return r.URL.Path == "/slow" }, nil, syscall.SIGINT, "during the crawl"},
		{"planned probes", func(r *http.Request) bool { return r.Method == http.MethodHead }, nil, syscall.SIGTERM, "during the planned probes"},
		{"MCP", func(r *http.Request) bool { return r.URL.Path == "/mcp" }, []string{"--mcp", "/mcp"}, syscall.SIGINT, "during the MCP examination"},
		{"a lower identity's crawl", func(r *http.Request) bool { return r.URL.Path == "/slow" && r.Header.Get("X-Who") == "" },
			[]string{"--identity", "anonymous", "--identity", "admin", "--header-for", "admin=X-Who: admin-credential-1"}, syscall.SIGINT, "during the crawl"},
		{"OAuth token", func(r *http.Request) bool { return r.URL.Path == "/token" },
			[]string{"--identity", "svc", "--oauth-for", "svc=token-url=/token, client-id=c, client-secret=env:SIGNAL_TEST_SECRET"}, syscall.SIGINT, "before the crawl began"},
		{"OpenAPI load", func(r *http.Request) bool { return r.URL.Path == "/openapi.json" }, []string{"--openapi", "/openapi.json"}, syscall.SIGINT, "during the crawl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hung := make(chan string, 1)
			srv := httptest.NewServer(hangingAt(tc.hang, hung))
			defer srv.Close()
			dir := t.TempDir()
			jsonPath, mdPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
			args := []string{"scan", "--budget", "10m", "--timeout", "10m", "--no-color", "-o", "json=" + jsonPath, "-o", "markdown=" + mdPath}
			for _, f := range tc.flags {
				f = strings.ReplaceAll(f, "=/", "="+srv.URL+"/")
				if strings.HasPrefix(f, "/") {
					f = srv.URL + f
				}
				args = append(args, f)
			}
			cmd := agentready([]string{"NO_COLOR=1", "HOME=" + dir, "SIGNAL_TEST_SECRET=client-secret-1"}, append(args, srv.URL+"/")...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			select {
			case <-hung:
			case <-time.After(time.Minute):
				t.Fatalf("the scan never reached the request that hangs; stderr:\n%s", stderr.String())
			}
			sent := time.Now()
			cmd.Process.Signal(tc.signal)
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(5 * time.Second):
				t.Fatalf("no exit 5 s after %v; stderr:\n%s", tc.signal, stderr.String())
			}
			took := time.Since(sent)
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Errorf("exit %d, want 3; stderr:\n%s", code, stderr.String())
			}
			want := "interrupted by " + map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[tc.signal] + " " + tc.phase
			var rep struct {
				Score    struct{ Grade, Basis string }
				Coverage struct{ Interrupted string }
				Stats    struct{ Interrupted bool }
			}
			b, err := os.ReadFile(jsonPath)
			if err != nil || json.Unmarshal(b, &rep) != nil {
				t.Fatalf("the JSON report was not written: %v", err)
			}
			if rep.Coverage.Interrupted != want || !rep.Stats.Interrupted || rep.Score.Grade != "N/A" || !strings.HasPrefix(rep.Score.Basis, "no grade: "+want+"; it had crawled ") {
				t.Errorf("JSON: coverage.interrupted %q, stats.interrupted %v, grade %q (%s); want %q and N/A", rep.Coverage.Interrupted, rep.Stats.Interrupted, rep.Score.Grade, rep.Score.Basis, want)
			}
			md, _ := os.ReadFile(mdPath)
			if first, _, _ := strings.Cut(string(md), "| Family"); !strings.Contains(first, "grade **N/A** ("+want+")") {
				t.Errorf("the Markdown report does not lead with it:\n%s", first)
			}
			if first, _, _ := strings.Cut(stdout.String(), "Family"); !strings.Contains(first, "Grade N/A  ("+want+")") || !strings.Contains(first, want+": no grade;") {
				t.Errorf("the terminal report does not lead with it:\n%s", first)
			}
			if !strings.Contains(stderr.String(), "agentready: "+want+"; the partial report was written") {
				t.Errorf("stderr: %s", stderr.String())
			}
			t.Logf("%s: exited %s after %v", tc.name, took.Round(time.Millisecond), tc.signal)
		})
	}
}

// TestSecondSignalKillsTheStartedApp: after the first SIGINT the partial
// report is written and the app started with --start, which ignores SIGTERM,
// is given its grace (far longer than the test) to stop; a second SIGINT
// makes agentready exit at once, and its process group is gone by then.
func TestSecondSignalKillsTheStartedApp(t *testing.T) {
	hung := make(chan string, 1)
	srv := httptest.NewServer(hangingAt(func(r *http.Request) bool { return r.URL.Path == "/slow" }, hung))
	defer srv.Close()
	dir := t.TempDir()
	jsonPath, appLog := filepath.Join(dir, "r.json"), filepath.Join(dir, "app.log")
	cmd := agentready([]string{"HOME=" + dir}, "scan", "-q", "--budget", "10m", "--timeout", "10m", "-o", "json="+jsonPath,
		"--start", "trap '' TERM; echo ready $$; exec sleep 600", "--ready", "ready", "--start-log", appLog, "--stop-grace", "10m", srv.URL+"/")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	select {
	case <-hung:
	case <-time.After(time.Minute):
		t.Fatal("the scan never reached the request that hangs")
	}
	var pgid int
	if b, err := os.ReadFile(appLog); err != nil || !strings.HasPrefix(string(b), "ready ") {
		t.Fatalf("the app's log: %q, %v", b, err)
	} else if pgid, err = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(b), "ready "))); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	cmd.Process.Signal(syscall.SIGINT)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(jsonPath); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no report 5 s after the first SIGINT")
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("no exit 5 s after the second SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(stderr.String(), "interrupted twice") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the app's process group %d outlived agentready (%v)", pgid, err)
	}
}
