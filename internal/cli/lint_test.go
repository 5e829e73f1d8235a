package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec/spectest"
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
		{"no argument", []string{"lint"}, ExitUsage, "", "requires at least 1 arg"},
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
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Checks {
		if c, ok := reg.Get(r.ID); !ok || !checks.IsStatic(c) {
			t.Errorf("%s ran in lint", r.ID)
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
		{"bad cap", []string{"--max-spec-size", "0"}, ExitUsage, "--max-spec-size", ""},
		{"file over the cap", []string{"--openapi", specs + "lint-good.yaml", "--max-spec-size", "100"}, ExitUsage, "--openapi: " + specs + "lint-good.yaml is", ""},
		{"base path not a path", []string{"--base-path", "api/v1"}, ExitUsage, "--base-path", ""},
		{"negative server", []string{"--server", "-1"}, ExitUsage, "--server", ""},
		{"base path and server", []string{"--openapi", specs + "lint-good.yaml", "--base-path", "/", "--server", "2"}, -1, "", specs + "lint-good.yaml"},
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

// TestLintSizeCap refuses a file over the cap before reading it, as a usage
// error that gives the size, the cap and how to raise it; the flag and the
// configuration key raise it.
func TestLintSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	doc := "openapi: 3.1.0\ninfo: {title: big, version: '1'}\npaths: {}\nx-pad: '" + strings.Repeat("p", 3<<10) + "'\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "lint", "--max-spec-size", "2048", path)
	for _, want := range []string{"lint: " + path + " is 3.1 KiB, larger than the 2 KiB cap on OpenAPI documents", "--max-spec-size", "limits.max-spec-size"} {
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d (want %d), stderr %q lacks %q", r.code, ExitUsage, r.stderr, want)
		}
	}
	if r := run(t, "lint", "--max-spec-size", "4096", path); r.code != ExitOK {
		t.Errorf("raised by the flag: exit %d: %s", r.code, r.stderr)
	}
	cfg := writeConfig(t, "limits:\n  max-spec-size: 2048\n")
	if r := run(t, "lint", "--config", cfg, path); r.code != ExitUsage || !strings.Contains(r.stderr, "2 KiB cap") {
		t.Errorf("lowered by the configuration: exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, "lint", "--config", cfg, "--max-spec-size", "4096", path); r.code != ExitOK {
		t.Errorf("the flag beats the configuration: exit %d: %s", r.code, r.stderr)
	}
}

// TestLintManyDuplicates lints 5,000 operations sharing one operationId: the
// run completes, reports the duplicates, and keeps the report readable by
// listing the first ones and counting the rest.
func TestLintManyDuplicates(t *testing.T) {
	const n = 5000
	path := filepath.Join(t.TempDir(), "dup.json")
	if err := os.WriteFile(path, spectest.DuplicateOperationIDs(n), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "lint", "--format", "json", path)
	if r.code != ExitGateFailed {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Spec == nil || rep.Spec.Operations != n {
		t.Fatalf("spec %+v, want %d operations", rep.Spec, n)
	}
	var dups []finding.Finding
	for _, f := range rep.Findings {
		if f.CheckID == "openapi-hal-operation-id-unique" {
			dups = append(dups, f)
		}
	}
	if len(dups) != checks.MaxFindings {
		t.Fatalf("%d duplicate findings, want the first %d", len(dups), checks.MaxFindings)
	}
	want := fmt.Sprintf("(%d more findings of this check are not listed)", n-1-checks.MaxFindings)
	if !slices.ContainsFunc(dups, func(f finding.Finding) bool { return strings.HasSuffix(f.Message, want) }) {
		t.Errorf("no finding says %q", want)
	}
}

// TestLintReportsHaveNoScanBlock: lint fetches nothing, so no format shows
// crawl statistics for it; the same report read as a scan's shows them.
func TestLintReportsHaveNoScanBlock(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "lint.json")
	if r := run(t, "lint", "-q", "-o", "json="+saved, specs+"lint-good.yaml"); r.code != ExitOK {
		t.Fatalf("lint: exit %d: %s", r.code, r.stderr)
	}
	scanBlock := map[string]string{"text": "\nScan\n", "markdown": "Scanned 0 pages", "html": `id="stats"`}
	for format, block := range scanBlock {
		r := run(t, "report", "convert", "--from", saved, "--format", format)
		if r.code != ExitOK {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, block) {
			t.Errorf("%s lint report shows the scan block %q", format, block)
		}
	}

	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	asScan := filepath.Join(dir, "scan.json")
	if err := os.WriteFile(asScan, []byte(strings.Replace(string(b), `"discovery": "lint"`, `"discovery": "--openapi"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for format, block := range scanBlock {
		if r := run(t, "report", "convert", "--from", asScan, "--format", format); !strings.Contains(r.stdout, block) {
			t.Errorf("%s scan report lacks the scan block %q (exit %d)", format, block, r.code)
		}
	}
}
