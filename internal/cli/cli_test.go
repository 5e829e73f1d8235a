package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
)

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	return runCtx(t, context.Background(), args...)
}

func runCtx(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	return invoke(ctx, args...)
}

// invoke runs the CLI with args, nothing on stdin and NO_COLOR set empty.
func invoke(ctx context.Context, args ...string) result {
	var out, errb bytes.Buffer
	code := Run(ctx, args, strings.NewReader(""), &out, &errb, []string{"NO_COLOR="})
	return result{code, out.String(), errb.String()}
}

// onceWritten runs the CLI once, on first use, with args, which name the file
// it writes as {file}, and keeps the bytes written there: a scan that
// several tests only read is made once for all of them. app, when set, is
// served for the run, its URL the last argument.
func onceWritten(app http.Handler, args ...string) func() ([]byte, error) {
	return nth(onceWrittenAll(app, args), 0)
}

// onceWrittenAll is onceWritten for several runs, one after the other,
// against one serving of app, so that the reports they write name one
// target (the shards of one scan).
func onceWrittenAll(app http.Handler, runs ...[]string) func() ([][]byte, error) {
	return sync.OnceValues(func() ([][]byte, error) {
		dir, err := os.MkdirTemp("", "agentready-cli-test-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		var url string
		if app != nil {
			srv := httptest.NewServer(app)
			defer srv.Close()
			url = srv.URL + "/"
		}
		var out [][]byte
		for i, args := range runs {
			file := filepath.Join(dir, fmt.Sprintf("written-%d", i))
			args = slices.Clone(args)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "{file}", file)
			}
			if url != "" {
				args = append(args, url)
			}
			if r := invoke(context.Background(), args...); r.code != ExitOK {
				return nil, fmt.Errorf("%s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	})
}

// nth is what the i-th run of onceWrittenAll wrote.
func nth(made func() ([][]byte, error), i int) func() ([]byte, error) {
	return func() ([]byte, error) {
		all, err := made()
		if err != nil {
			return nil, err
		}
		return all[i], nil
	}
}

// copyOf writes what onceWritten made to name in a directory of t's.
func copyOf(t *testing.T, made func() ([]byte, error), name string) string {
	t.Helper()
	b, err := made()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveHandler serves h for the test and returns its root URL.
func serveHandler(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func serve(t *testing.T, defects ...demo.Defect) string {
	t.Helper()
	return serveHandler(t, demo.New(defects...))
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdoutHas  string
		stderrHas  string
		stdoutJSON bool
	}{
		{"version", []string{"version"}, ExitOK, "agentready ", "", false},
		{"checks", []string{"checks"}, ExitOK, "negotiation-preferred-type", "", false},
		{"checks json", []string{"checks", "--format", "json"}, ExitOK, `"id": "vary-accept"`, "", true},
		{"checks bad format", []string{"checks", "--format", "xml"}, ExitUsage, "", "unknown --format", false},
		{"explain", []string{"explain", "vary-prefer"}, ExitOK, "RFC 7240 §2 (MUST)", "", false},
		{"explain unknown with hint", []string{"explain", "vary-acept"}, ExitUsage, "", `did you mean "vary-accept"`, false},
		{"unknown command", []string{"frobnicate"}, ExitUsage, "", "unknown command", false},
		{"scan without URL", []string{"scan"}, ExitUsage, "", "no target: give a URL", false},
		{"scan bad scheme", []string{"scan", "ftp://example.test/"}, ExitUsage, "", "absolute http or https URL", false},
		{"scan target after --", []string{"scan", "--", "--help"}, ExitUsage, "", `target "--help": want an absolute`, false},
		{"scan bad fail-on", []string{"scan", "--fail-on", "fatal", "http://127.0.0.1:1/"}, ExitUsage, "", "unknown severity", false},
		{"scan bad header", []string{"scan", "-H", "novalue", "http://127.0.0.1:1/"}, ExitUsage, "", "want 'Name: value'", false},
		{"scan bad output", []string{"scan", "-o", "json", "http://127.0.0.1:1/"}, ExitUsage, "", "want FORMAT=PATH", false},
		{"scan unknown format", []string{"scan", "--format", "yaml", "http://127.0.0.1:1/"}, ExitUsage, "", "--format", false},
		{"scan unreachable", []string{"scan", "--timeout", "2s", closedPort(t)}, ExitIncomplete, "", "unreachable", false},
		{"demo", []string{"demo", "--fail-on", "warning"}, ExitOK, "Grade A", "", false},
		{"demo json", []string{"demo", "--format", "json"}, ExitOK, `"schemaVersion": 1`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdoutHas, r.stdout)
			}
			if !strings.Contains(r.stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, r.stderr)
			}
			if tt.stdoutJSON && !json.Valid([]byte(r.stdout)) {
				t.Errorf("stdout is not JSON:\n%s", r.stdout)
			}
		})
	}
}

func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/"
}

func TestGateFollowsFailOn(t *testing.T) {
	// The demo without Vary: Accept has warnings only; its shared recording
	// is judged again under each gate, and a scan of its own judges the
	// live crawl.
	recording := copyOf(t, noVaryAcceptRecording, "scan.har")
	if r := run(t, "scan", "--fail-on", "warning", "--replay", recording); r.code != ExitGateFailed {
		t.Errorf("fail-on warning: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "scan", "--fail-on", "error", "--replay", recording); r.code != ExitOK {
		t.Errorf("fail-on error with only warnings: exit %d, want 0", r.code)
	}
	if r := run(t, "scan", "--fail-on", "none", serve(t, demo.DefectHeadContentLength)); r.code != ExitOK {
		t.Errorf("fail-on none: exit %d, want 0", r.code)
	}
}

func TestOutputsWrittenTogether(t *testing.T) {
	dir := t.TempDir()
	jsonPath, textPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.txt")
	r := run(t, "scan", "-q", "-o", "json="+jsonPath, "-o", "text="+textPath, serve(t))
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("-q printed on stdout: %q", r.stdout)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil || !json.Valid(b) {
		t.Fatalf("json output: %v", err)
	}
	txt, err := os.ReadFile(textPath)
	if err != nil || !strings.Contains(string(txt), "Grade") {
		t.Fatalf("text output missing grade: %v", err)
	}
	if bytes.Contains(txt, []byte("\x1b")) {
		t.Error("file output is coloured")
	}
}

func TestStdoutUsedOnce(t *testing.T) {
	r := run(t, "scan", "-o", "json=-", "http://127.0.0.1:1/")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "stdout is already used") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

func TestInterruptedScanExits3WithPartialReport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var requests atomic.Int32
	app := demo.New()
	// Cancel as Ctrl-C would, once the crawl is under way.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 3 {
			cancel()
		}
		app.ServeHTTP(w, r)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "r.json")
	r := runCtx(t, ctx, "scan", "-q", "--concurrency", "1", "-o", "json="+path, srv.URL+"/")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want 3: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("partial report not written: %v", err)
	}
	if !bytes.Contains(b, []byte(`"interrupted": "interrupted during the crawl"`)) || !bytes.Contains(b, []byte(`"grade": "N/A"`)) {
		t.Errorf("report does not say it was interrupted, with no grade:\n%s", b)
	}
}
