package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
)

// TestDriftGate scans demo defects that change the agent surface against a
// baseline of the conformant demo: one drift finding each and exit 1; the
// conformant demo against its own baseline passes with no drift, judged
// from the shared recording of the demo: drift is found by the checks,
// which a replay runs as a scan does.
func TestDriftGate(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.json")
	if r := run(t, "baseline", "write", "-o", base, serve(t)); r.code != ExitOK {
		t.Fatalf("baseline write: exit %d: %s", r.code, r.stderr)
	}
	tests := []struct {
		name      string
		recording func() ([]byte, error)
		defect    []demo.Defect
		extra     []string
		code      int
		drift     string
	}{
		{"conformant", demoRecording, nil, nil, ExitOK, ""},
		{"tool renamed", nil, []demo.Defect{demo.DefectMCPRenamedTool}, nil, ExitGateFailed, "drift-renamed"},
		{"required argument added", nil, []demo.Defect{demo.DefectMCPRequiredArgument}, nil, ExitGateFailed, "drift-input-schema"},
		{"read-only hint turned off", nil, []demo.Defect{demo.DefectMCPGetNotReadOnly}, nil, ExitGateFailed, "drift-annotations"},
		{"response property undeclared", nil, []demo.Defect{demo.DefectResponsePropertyUndeclared}, nil, ExitGateFailed, "drift-response-schema"},
		{"declared 409 dropped", nil, []demo.Defect{demo.DefectConflictUndeclared}, nil, ExitGateFailed, "drift-problem-types"},
		{"drift reported, not gated", nil, []demo.Defect{demo.DefectMCPRenamedTool}, []string{"--fail-on-drift", "none"}, ExitOK, "drift-renamed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"scan", "-q", "--baseline", base, "-o", "json=" + out}, tt.extra...)
			if tt.recording != nil {
				args = append(args, "--replay", copyOf(t, tt.recording, "scan.har"))
			} else {
				args = append(args, serve(t, tt.defect...))
			}
			r := run(t, args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d: %s", r.code, tt.code, r.stderr)
			}
			var drift []string
			for _, f := range readJSONReport(t, out).Findings {
				if f.Family == finding.DriftFamily {
					drift = append(drift, f.CheckID)
				}
			}
			if want := strings.Fields(tt.drift); strings.Join(drift, " ") != strings.Join(want, " ") {
				t.Errorf("drift findings %v, want %v", drift, want)
			}
			// Every drift here is breaking, so report diff fails on it too.
			wantDiff := ExitOK
			if tt.drift != "" {
				wantDiff = ExitGateFailed
			}
			if diff := run(t, "report", "diff", base, out); diff.code != wantDiff {
				t.Errorf("report diff: exit %d, want %d: %s%s", diff.code, wantDiff, diff.stdout, diff.stderr)
			}
		})
	}
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"one report", []string{"report", "diff", base}},
		{"unknown format", []string{"report", "diff", "--format", "sarif", base, base}},
		{"missing file", []string{"report", "diff", base, filepath.Join(dir, "none.json")}},
		{"bad fail-on-drift", []string{"scan", "--baseline", base, "--fail-on-drift", "some", "http://127.0.0.1:1/"}},
	} {
		if r := run(t, tt.args...); r.code != ExitUsage {
			t.Errorf("%s: exit %d, want %d: %s", tt.name, r.code, ExitUsage, r.stderr)
		}
	}
}
