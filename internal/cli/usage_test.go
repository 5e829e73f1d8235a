package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
)

// usageCase is a scan command line with one usage error in it. TARGET in
// args stands for the test server's URL; a case without it names a bad one.
type usageCase struct {
	name, stderr string
	args         []string
}

func scanUsageErrors(dir string) []usageCase {
	// The app these would start leaves a mark; none may start.
	startApp := []string{"--start", "touch " + filepath.Join(dir, "started") + " && exec sleep 30", "--stop-grace", "1s"}
	withApp := func(args ...string) []string {
		return append(append(append([]string(nil), startApp...), args...), "TARGET")
	}
	return []usageCase{
		{"--ready not a pattern", "--ready", withApp("--ready", "(")},
		{"--ready not a URL", "--ready", withApp("--ready", "http://[")},
		{"--ready not http", "want an absolute http or https URL", withApp("--ready", "ftp://x/")},
		{"negative --stop-grace", "--stop-grace", withApp("--stop-grace", "-1s")},
		{"zero --ready-timeout", "--ready-timeout", withApp("--ready-timeout", "0s")},
		{"--start-log into a missing directory", "--start-log", withApp("--start-log", filepath.Join(dir, "missing", "app.log"))},
		{"bad --include", "--include", []string{"--include", "[", "TARGET"}},
		{"bad --exclude", "--exclude", []string{"--exclude", "/admin/[x", "TARGET"}},
		{"NaN --rate", "limits must be positive", []string{"--rate", "NaN", "TARGET"}},
		{"infinite --rate", "limits must be positive", []string{"--rate", "+Inf", "TARGET"}},
		{"-o into a missing directory", "-o", []string{"-o", "json=" + filepath.Join(dir, "missing", "r.json"), "TARGET"}},
		{"-o onto a directory", "is a directory", []string{"-o", "json=" + dir, "TARGET"}},
		{"unknown --format", "--format", []string{"--format", "nope", "TARGET"}},
		{"unknown -o format", "-o", []string{"-o", "nope=" + filepath.Join(dir, "r"), "TARGET"}},
		{"-o without a path", "want FORMAT=PATH", []string{"-o", "json", "TARGET"}},
		{"unknown --fail-on", "--fail-on", []string{"--fail-on", "fatal", "TARGET"}},
		{"bad --fail-under", "--fail-under", []string{"--fail-under", "Z", "TARGET"}},
		{"zero --budget", "limits must be positive", []string{"--budget", "0", "TARGET"}},
		{"negative --budget", "limits must be positive", []string{"--budget", "-1s", "TARGET"}},
		{"unparsable --budget", "--budget", []string{"--budget", "soon", "TARGET"}},
		{"zero --max-pages", "limits must be positive", []string{"--max-pages", "0", "TARGET"}},
		{"bad --header", "want 'Name: value'", []string{"-H", "novalue", "TARGET"}},
		{"bad --mcp", "MCP endpoint", []string{"--mcp", "nope", "TARGET"}},
		{"missing --baseline", "--baseline", []string{"--baseline", filepath.Join(dir, "missing.json"), "TARGET"}},
		{"--strict-baseline alone", "--strict-baseline needs --baseline", []string{"--strict-baseline", "TARGET"}},
		{"--active-allow without --active", "only apply with --active", []string{"--active-allow", "GET /x", "TARGET"}},
		{"--sarif-anchor outside", "--sarif-anchor", []string{"--sarif-anchor", "../outside.yaml", "TARGET"}},
		{"--header-for without --identity", "naming an --identity", []string{"--header-for", "a=X: y", "TARGET"}},
		{"not an http URL", "absolute http or https URL", []string{"ftp://127.0.0.1/"}},
		{"no host", "absolute http or https URL", []string{"http:///orders"}},
	}
}

// countingServer serves the demo and counts the requests it gets.
func countingServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	app := demo.New()
	url := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		app.ServeHTTP(w, r)
	}))
	return url, &hits
}

func withTarget(args []string, target string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "TARGET", target)
	}
	return out
}

// TestUsageErrorsExit2BeforeScanning: -q only leaves stdout unused; it must
// not let a bad flag through to a scan.
func TestUsageErrorsExit2BeforeScanning(t *testing.T) {
	target, hits := countingServer(t)
	dir := t.TempDir()
	for _, tt := range scanUsageErrors(dir) {
		for _, quiet := range [][]string{nil, {"-q"}} {
			t.Run(tt.name+strings.Join(quiet, ""), func(t *testing.T) {
				args := append(append([]string{"scan"}, quiet...), withTarget(tt.args, target)...)
				before := hits.Load()
				r := run(t, args...)
				if r.code != ExitUsage || !strings.Contains(r.stderr, tt.stderr) {
					t.Errorf("exit %d, stderr %q; want %d with %q", r.code, r.stderr, ExitUsage, tt.stderr)
				}
				if n := hits.Load() - before; n != 0 {
					t.Fatalf("%d request(s) reached the server", n)
				}
				if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
					t.Fatal("the app was started")
				}
			})
		}
	}
}

func TestUnknownFormatExits2WithQuietOnEveryCommand(t *testing.T) {
	spec := filepath.Join("..", "..", "testdata", "specs", "lint-bad.yaml")
	for _, args := range [][]string{
		{"demo", "--format", "nope", "-q"},
		{"lint", "--format", "nope", "-q", spec},
	} {
		if r := run(t, args...); r.code != ExitUsage || !strings.Contains(r.stderr, "--format") {
			t.Errorf("%v: exit %d, stderr %q; want %d", args, r.code, r.stderr, ExitUsage)
		}
	}
}
