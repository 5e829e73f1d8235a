package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
)

func TestBaselineGatesOnNewFindingsOnly(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "agentready-baseline.json")
	if r := run(t, "baseline", "write", "-o", base, serve(t, demo.DefectNoVaryAccept)); r.code != ExitOK {
		t.Fatalf("baseline write: exit %d: %s", r.code, r.stderr)
	}
	gate := []string{"scan", "-q", "--fail-on", "warning", "--baseline", base}
	// A scan made before for other tests is judged again from its
	// recording; the new finding needs a scan of its own.
	tests := []struct {
		name      string
		recording func() ([]byte, error)
		defects   []demo.Defect
		extra     []string
		code      int
		reason    string
	}{
		{"same findings: existing only", noVaryAcceptRecording, nil, nil, ExitOK, ""},
		{"a new finding fails", nil, []demo.Defect{demo.DefectNoVaryAccept, demo.Defect405WithoutAllow}, nil, ExitGateFailed, "new finding(s) at or above warning"},
		{"fixed, lenient", demoRecording, nil, nil, ExitOK, ""},
		{"fixed, strict: stale", demoRecording, nil, []string{"--strict-baseline"}, ExitGateFailed, "the baseline is stale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			args := append(append(append([]string{}, gate...), "-o", "json="+out), tt.extra...)
			if tt.recording != nil {
				args = append(args, "--replay", copyOf(t, tt.recording, "scan.har"))
			} else {
				args = append(args, serve(t, tt.defects...))
			}
			r := run(t, args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tt.code, r.stderr)
			}
			rep := readJSONReport(t, out)
			if rep.Baseline == nil || !rep.Gate.NewOnly || !strings.Contains(rep.Gate.Reason, tt.reason) {
				t.Fatalf("baseline %+v, gate %+v", rep.Baseline, rep.Gate)
			}
		})
	}
}

func TestBaselineWriteFromAReport(t *testing.T) {
	report, base := savedReport(t), filepath.Join(t.TempDir(), "b.json")
	recording := copyOf(t, noVaryAcceptRecording, "scan.har")
	if r := run(t, "baseline", "write", "--from", report, "-o", base); r.code != ExitOK {
		t.Fatalf("baseline write --from: %d %s", r.code, r.stderr)
	}
	// A saved report serves as a baseline as it is, and so does the trimmed one.
	for _, b := range []string{report, base} {
		if r := run(t, "scan", "-q", "--fail-on", "warning", "--baseline", b, "--replay", recording); r.code != ExitOK {
			t.Errorf("--baseline %s: exit %d: %s", filepath.Base(b), r.code, r.stderr)
		}
	}
	if r := run(t, "baseline", "write", "--from", report, "http://x/"); r.code != ExitUsage {
		t.Errorf("--from and a URL: exit %d", r.code)
	}
}

func TestBaselineUsageErrors(t *testing.T) {
	target := serve(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"not":"a report"}`), 0o644)
	for _, args := range [][]string{
		{"scan", "--baseline", filepath.Join(t.TempDir(), "missing.json"), target},
		{"scan", "--baseline", bad, target},
		{"scan", "--strict-baseline", target},
		{"scan", "--fail-under", "Q", target},
	} {
		if r := run(t, args...); r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, ExitUsage, r.stderr)
		}
	}
}

// noVaryAcceptRecording is a recording of a scan of the broken demo, which
// scores A, 95: the tests of a gate judge it again offline.
var noVaryAcceptRecording = onceWritten(demo.New(demo.DefectNoVaryAccept), "scan", "-q", "--fail-on", "none", "--record", "{file}")

func TestFailUnderGradeOrScore(t *testing.T) {
	recording := copyOf(t, noVaryAcceptRecording, "scan.har") // grade A, 95
	for _, tt := range []struct {
		min  string
		code int
	}{{"A", ExitOK}, {"A+", ExitGateFailed}, {"95", ExitOK}, {"96", ExitGateFailed}, {"b", ExitOK}} {
		r := run(t, "scan", "-q", "--fail-on", "none", "--fail-under", tt.min, "--replay", recording)
		if r.code != tt.code {
			t.Errorf("--fail-under %s: exit %d, want %d", tt.min, r.code, tt.code)
		}
	}
}

// TestBaselineWriteScansAsTheScanDoes: the baseline is taken as the same
// identities as the scans compared with it, so that their identity-only
// findings are existing, not new, and none of its entries is stale.
func TestBaselineWriteScansAsTheScanDoes(t *testing.T) {
	target := serve(t, demo.DefectLeakPolicyReason)
	base := filepath.Join(t.TempDir(), "b.json")
	environ := []string{"USER_TOKEN=" + demo.UserToken}
	as := []string{"--identity", "anonymous", "--identity", "user", "--header-for", "user=Authorization: Bearer env:USER_TOKEN"}
	if r := runEnv(t, environ, append([]string{"baseline", "write", "-o", base, target}, as...)...); r.code != ExitOK {
		t.Fatalf("baseline write: exit %d: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(base); err != nil || !strings.Contains(string(b), "leakage-unavailable-policy-reason") {
		t.Fatalf("the baseline lacks the finding only a second identity shows (%v)", err)
	}
	r := runEnv(t, environ, append([]string{"scan", "-q", "--fail-on", "info", "--baseline", base, "--strict-baseline", target}, as...)...)
	if r.code != ExitOK {
		t.Fatalf("scan against its own baseline: exit %d, want %d: %s", r.code, ExitOK, r.stderr)
	}
}

// TestBaselineWriteUsageErrors: a baseline records a passive scan, and a
// path it could not write is found before the scan.
func TestBaselineWriteUsageErrors(t *testing.T) {
	target, hits := countingServer(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--active", "--active-allow", "POST /orders/*/cancel", "--yes"}, "--active"},
		{[]string{"--active-allow", "POST /orders/*/cancel"}, "--active"},
		{[]string{"-o", filepath.Join(dir, "missing", "b.json")}, "-o"},
		{[]string{"-o", dir}, "is a directory"},
		{[]string{"--exclude", "/admin/[x"}, "--exclude"},
	} {
		args := append(append([]string{"baseline", "write", "-o", filepath.Join(dir, "b.json")}, tt.args...), target)
		if r := run(t, args...); r.code != ExitUsage || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d with %q", tt.args, r.code, r.stderr, ExitUsage, tt.stderr)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d request(s) reached the server", n)
	}
}
