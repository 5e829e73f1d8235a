package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/finding"
)

const specs = "../../testdata/specs/"

func TestLintExitCodes(t *testing.T) {
	dir := t.TempDir()
	notSpec := filepath.Join(dir, "page.json")
	if err := os.WriteFile(notSpec, []byte(`{"_links": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		code      int
		stdoutHas string
		stderrHas string
	}{
		{"clean", []string{"lint", specs + "lint-good.yaml"}, ExitOK, "no findings", ""},
		{"errors fail the gate", []string{"lint", specs + "lint-bad.yaml"}, ExitGateFailed, "lint-bad.yaml:8:5", ""},
		{"gate off", []string{"lint", "--fail-on", "none", specs + "lint-bad.yaml"}, ExitOK, "openapi-hal-operation-id-unique", ""},
		{"syntax error is a finding", []string{"lint", specs + "syntax.yaml"}, ExitGateFailed, "syntax.yaml:7:10", ""},
		{"broken ref is a finding", []string{"lint", specs + "badref.yaml"}, ExitGateFailed, "badref.yaml:13:17", ""},
		{"mixed versions", []string{"lint", specs + "mixed30.yaml"}, ExitGateFailed, "type is a list", ""},
		{"3.0 features in 3.1", []string{"lint", specs + "mixed31.yaml"}, ExitGateFailed, "nullable", ""},
		{"swagger 2 is said", []string{"lint", specs + "swagger2.yaml"}, ExitOK, "Swagger 2.0", ""},
		{"missing file", []string{"lint", filepath.Join(dir, "nope.yaml")}, ExitUsage, "", "no such file"},
		{"not a description", []string{"lint", notSpec}, ExitIncomplete, "", "no openapi or swagger field"},
		{"no argument", []string{"lint"}, ExitUsage, "", "accepts 1 arg"},
		{"bad format", []string{"lint", "--format", "xml", specs + "lint-good.yaml"}, ExitUsage, "", "--format"},
		{"bad gate", []string{"lint", "--fail-on", "sometimes", specs + "lint-good.yaml"}, ExitUsage, "", "--fail-on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.stdoutHas) || !strings.Contains(r.stderr, tt.stderrHas) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestLintJSON(t *testing.T) {
	r := run(t, "lint", "--format", "json", specs+"lint-bad.yaml")
	if r.code != ExitGateFailed {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	if rep.Spec == nil || rep.Spec.Version != "3.1.0" || rep.Spec.Operations != 8 || rep.Target != specs+"lint-bad.yaml" {
		t.Errorf("spec %+v target %q", rep.Spec, rep.Target)
	}
	if rep.Stats.Requests != 0 || rep.Gate == nil || rep.Gate.Passed {
		t.Errorf("stats %+v gate %+v", rep.Stats, rep.Gate)
	}
	counts := map[string]int{}
	for _, f := range rep.Findings {
		counts[f.CheckID]++
		if f.Location == nil || f.Location.File != specs+"lint-bad.yaml" || f.Location.Line == 0 || f.Location.Column == 0 || f.Fingerprint == "" {
			t.Errorf("%s: location %+v fingerprint %q", f.CheckID, f.Location, f.Fingerprint)
		}
	}
	if counts["openapi-hal-operation-id-unique"] != 2 || counts["openapi-hal-path-template-valid"] != 5 {
		t.Errorf("findings by check %v", counts)
	}
	// Only static checks ran: nothing that needs a recording.
	for _, c := range rep.Checks {
		if !strings.HasPrefix(c.ID, "openapi-hal-") {
			t.Errorf("%s ran in lint", c.ID)
		}
	}
}

func TestScanOpenAPIFlag(t *testing.T) {
	target := serve(t)
	tests := []struct {
		name      string
		args      []string
		code      int
		stderrHas string
		source    string
	}{
		{"file", []string{"--openapi", specs + "lint-good.yaml"}, -1, "", specs + "lint-good.yaml"},
		{"discovered", nil, -1, "", target + "openapi.json"},
		{"missing file", []string{"--openapi", "/nonexistent/openapi.yaml"}, ExitUsage, "--openapi", ""},
		{"bad URL", []string{"--openapi", "http://"}, ExitUsage, "not a valid URL", ""},
		{"bad cap", []string{"--max-spec-body", "0"}, ExitUsage, "--max-spec-body", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"scan", target, "--format", "json", "--fail-on", "none", "--max-pages", "5"}, tt.args...)
			r := run(t, args...)
			if tt.code >= 0 {
				if r.code != tt.code || !strings.Contains(r.stderr, tt.stderrHas) {
					t.Errorf("exit %d (want %d): %s", r.code, tt.code, r.stderr)
				}
				return
			}
			var rep finding.Report
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("exit %d, not JSON: %v\n%s", r.code, err, r.stderr)
			}
			if rep.Spec == nil || rep.Spec.Source != tt.source {
				t.Errorf("spec %+v, want source %q", rep.Spec, tt.source)
			}
		})
	}
}
