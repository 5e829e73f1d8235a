package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/cli"
	"github.com/agentready/agentready/internal/golden"
)

// run is one in-process invocation of the CLI, as a user's shell would make
// it: no terminal, NO_COLOR set and nothing else in the environment, so that
// a developer's AGENTREADY_* variables do not leak in.
type run struct {
	args           []string
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, args ...string) run {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1"})
	return run{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// The version, commit and date are pinned, since a test binary's own are
// whatever the build stamped.
func init() { cli.Version, cli.Commit, cli.Date = "test", "test", "test" }

var (
	duration  = regexp.MustCompile(`( probes? in )[0-9][0-9.]*(ns|µs|ms|s|m[0-9.]*s?|h[0-9.ms]*)`)
	durationJ = regexp.MustCompile(`("durationMs": )[0-9]+`)
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	// portName is the port in a target's name taken from its URL.
	portName = regexp.MustCompile(`127\.0\.0\.1-\d+`)
	// progress is a line of the progress off a terminal, printed every
	// 10 s: a scan on a loaded machine may last long enough for one.
	progress = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d agentready: .*\n`)
	// toolchain is what `version` says of the Go that built the test and of
	// the machine it runs on.
	toolchain = strings.NewReplacer(runtime.Version(), "GOVERSION", runtime.GOOS+"/"+runtime.GOARCH, "OS/ARCH")
)

// normalize replaces what changes from run to run: the demo's port, the
// scan's duration and its timestamps, and from machine to machine: the Go
// version and the platform; and it drops the progress lines. Everything
// else is the CLI's output byte for byte.
func normalize(s string) string {
	s = progress.ReplaceAllString(s, "")
	s = string(golden.NormalizePorts([]byte(s)))
	s = toolchain.Replace(s)
	s = duration.ReplaceAllString(s, "${1}DURATION")
	s = durationJ.ReplaceAllString(s, "${1}0")
	s = portName.ReplaceAllString(s, "127.0.0.1-PORT")
	return timestamp.ReplaceAllString(s, "TIMESTAMP")
}

// snapshot is the whole observable outcome of one invocation, in one file.
func (r run) snapshot() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "$ agentready %s\nexit %d\n-- stdout --\n%s-- stderr --\n%s", strings.Join(r.args, " "), r.code, normalize(r.stdout), normalize(r.stderr))
	return b.Bytes()
}

// TestCLISnapshots pins the complete stdout, stderr and exit code of the
// main commands, their usage errors among them, one file per case under
// testdata/golden/cli. Specs are named relative to this directory so that
// where the repository is checked out does not change the text's wrapping.
func TestCLISnapshots(t *testing.T) {
	const bad, good = "../../testdata/specs/lint-bad.yaml", "../../testdata/specs/lint-good.yaml"
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"help", []string{"--help"}, cli.ExitOK},
		{"version", []string{"version"}, cli.ExitOK},
		{"version-json", []string{"--version", "--format", "json"}, cli.ExitOK},
		{"checks", []string{"checks"}, cli.ExitOK},
		{"checks-json", []string{"checks", "--format", "json"}, cli.ExitOK},
		{"checks-static", []string{"checks", "--static"}, cli.ExitOK},
		{"explain", []string{"explain", "vary-accept"}, cli.ExitOK},
		{"lint-bad", []string{"lint", bad}, cli.ExitGateFailed},
		{"lint-bad-json", []string{"lint", "--format", "json", bad}, cli.ExitGateFailed},
		{"lint-good", []string{"lint", good}, cli.ExitOK},
		{"lint-files", []string{"lint", good, "--llms", "../../testdata/specs/llms-bad.txt", "--agent-card", "../../testdata/specs/agent-card-bad.json"}, cli.ExitGateFailed},
		{"demo-no-vary-accept", []string{"demo", "--defect", "no-vary-accept"}, cli.ExitOK},
		{"demo-gate-fails", []string{"demo", "--defect", "no-vary-accept", "--fail-on", "warning", "-q"}, cli.ExitGateFailed},
		// The plan on stderr, then the Trials section: A, B and C each
		// complete every task the conformant demo offers them.
		{"demo-trial", []string{"demo", "--trial", "--yes", "--active-allow", "mcp:*", "--active-allow", "POST /orders/*/*",
			"--active-allow", "POST /subscriptions/*/*"}, cli.ExitOK},
		{"usage-unknown-command", []string{"frobnicate"}, cli.ExitUsage},
		{"usage-unknown-flag", []string{"scan", "--frobnicate", "http://127.0.0.1:1/"}, cli.ExitUsage},
		{"usage-explain-typo", []string{"explain", "vary-acept"}, cli.ExitUsage},
		{"usage-scan-without-target", []string{"scan"}, cli.ExitUsage},
		{"usage-bad-fail-on", []string{"scan", "--fail-on", "fatal", "http://127.0.0.1:1/"}, cli.ExitUsage},
		{"usage-unknown-defect", []string{"demo", "--defect", "nope"}, cli.ExitUsage},
		{"usage-lint-no-argument", []string{"lint"}, cli.ExitUsage},
		{"lint-missing-file", []string{"lint", "../../testdata/specs/missing.yaml"}, cli.ExitUsage},
		{"usage-targets-html", []string{"scan", "--format", "html", "http://127.0.0.1:1/", "http://127.0.0.1:2/"}, cli.ExitUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, c.code, r.stderr)
			}
			golden.Check(t, golden.Path("cli", c.name+".txt"), r.snapshot())
		})
	}
}

// TestCLISnapshotTwoTargets pins a scan of two targets, a clean demo and
// one with a defect that fails a warning gate: both reports, then the
// summary, and exit 1.
func TestCLISnapshotTwoTargets(t *testing.T) {
	clean := httptest.NewServer(demo.New())
	defer clean.Close()
	broken := httptest.NewServer(demo.New(demo.DefectNoVaryAccept))
	defer broken.Close()
	r := runCLI(t, "scan", "--fail-on", "warning", clean.URL+"/", broken.URL+"/")
	if r.code != cli.ExitGateFailed {
		t.Errorf("exit %d, want %d\nstderr: %s", r.code, cli.ExitGateFailed, r.stderr)
	}
	r.args = []string{"scan", "--fail-on", "warning", "CLEAN", "BROKEN"}
	golden.Check(t, golden.Path("cli", "scan-two-targets.txt"), r.snapshot())
}

func TestNormalizeKeepsWhatIsStable(t *testing.T) {
	in := "GET http://127.0.0.1:43545/orders\n  20 pages, 225 requests, 170 probes in 1.245s\n" +
		`"startedAt": "2026-05-01T12:00:00.123456789+02:00", "durationMs": 1245, "status": 200` + "\n"
	want := "GET http://127.0.0.1:PORT/orders\n  20 pages, 225 requests, 170 probes in DURATION\n" +
		`"startedAt": "TIMESTAMP", "durationMs": 0, "status": 200` + "\n"
	if got := normalize(in); got != want {
		t.Errorf("normalize:\n%s\nwant:\n%s", got, want)
	}
	for _, d := range []string{"0s", "245ms", "1m2.5s", "850µs"} {
		if got := normalize("  0 pages, 0 requests, 0 probes in " + d); got != "  0 pages, 0 requests, 0 probes in DURATION" {
			t.Errorf("duration %s normalized to %q", d, got)
		}
	}
}
