package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentready/agentready/fixtures/demo"
)

// noVaryAcceptReport is the JSON report of a scan of the broken demo.
var noVaryAcceptReport = onceWritten(demo.New(demo.DefectNoVaryAccept), "scan", "-q", "--fail-on", "none", "-o", "json={file}")

// savedReport saves the broken demo's JSON report in a directory of t's.
func savedReport(t *testing.T) string {
	t.Helper()
	return copyOf(t, noVaryAcceptReport, "report.json")
}

func TestReportConvertEveryFormat(t *testing.T) {
	from := savedReport(t)
	dir := t.TempDir()
	checks := map[string]func(t *testing.T, b []byte){
		"json": func(t *testing.T, b []byte) {
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil || v["schemaVersion"] != float64(1) {
				t.Errorf("not a JSON report: %v", err)
			}
		},
		"sarif": func(t *testing.T, b []byte) {
			var v struct {
				Version string `json:"version"`
				Runs    []struct {
					Results []struct {
						RuleID string `json:"ruleId"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(b, &v); err != nil || v.Version != "2.1.0" || len(v.Runs) != 1 || len(v.Runs[0].Results) == 0 {
				t.Errorf("not SARIF with results: %v %+v", err, v)
			}
		},
		"markdown": func(t *testing.T, b []byte) {
			if !strings.HasPrefix(string(b), "## agentready: grade **") || !strings.Contains(string(b), "`vary-accept`") {
				t.Errorf("markdown:\n%s", b)
			}
		},
		"html": func(t *testing.T, b []byte) {
			if !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.Contains(string(b), `data-family="vary"`) {
				t.Error("not the HTML report")
			}
		},
		"junit": func(t *testing.T, b []byte) {
			var v struct {
				Tests int `xml:"tests,attr"`
			}
			if err := xml.Unmarshal(b, &v); err != nil || v.Tests == 0 {
				t.Errorf("not JUnit: %v", err)
			}
		},
		"text": func(t *testing.T, b []byte) {
			if !strings.Contains(string(b), "vary-accept") || strings.Contains(string(b), "\x1b") {
				t.Errorf("text:\n%s", b)
			}
		},
	}
	for format, check := range checks {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(dir, "out."+format)
			r := run(t, "report", "convert", "--from", from, "--format", format, "-o", out)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			check(t, b)
			// To stdout as well, with the same bytes.
			r = run(t, "report", "convert", "--from", from, "--format", format)
			if r.code != ExitOK || r.stdout != string(b) {
				t.Errorf("stdout differs from the file (exit %d)", r.code)
			}
		})
	}
}

func TestReportConvertErrors(t *testing.T) {
	from := savedReport(t)
	notJSON := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(notJSON, []byte(`{"hello":1}`), 0o644)
	tests := []struct {
		name      string
		args      []string
		stderrHas string
	}{
		{"no --from", []string{"report", "convert", "--format", "html"}, "--from"},
		{"missing file", []string{"report", "convert", "--from", "/nonexistent/r.json"}, "no such file"},
		{"not a report", []string{"report", "convert", "--from", notJSON}, "no schemaVersion"},
		{"unknown format", []string{"report", "convert", "--from", from, "--format", "pdf"}, "unknown report format"},
		{"anchor outside the repository", []string{"report", "convert", "--from", from, "--format", "sarif", "--sarif-anchor", "../x.yaml"}, "--sarif-anchor"},
		{"a Markdown bound too small for the verdict", []string{"report", "convert", "--from", from, "--format", "markdown", "--markdown-max-bytes", "1000"}, "--markdown-max-bytes 1000: want at least 8192"},
		{"a full report that is not a web URL", []string{"report", "convert", "--from", from, "--format", "markdown", "--markdown-full-report", "javascript:alert(1)"}, "--markdown-full-report: want an absolute http or https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.stderrHas) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, ExitUsage, tt.stderrHas)
			}
		})
	}
}

// TestReportConvertCutsMarkdownToABound is what the GitHub Action's
// pull-request comment rests on: the document stays within the bound and
// keeps the verdict and the findings, and says where the rest is.
func TestReportConvertCutsMarkdownToABound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "comment.md")
	r := run(t, "report", "convert", "--from", savedReport(t), "--format", "markdown",
		"--markdown-max-bytes", "8192", "--markdown-full-report", "https://github.com/acme/api/actions/runs/42", "-o", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if len(md) > 8192 || !strings.HasPrefix(md, "## agentready: grade **") || !strings.Contains(md, "`vary-accept`") {
		t.Errorf("%d bytes, want at most 8192 with the grade and the finding:\n%s", len(md), md)
	}
	if !strings.HasSuffix(md, "[The full report](https://github.com/acme/api/actions/runs/42) has everything.\n") {
		t.Errorf("the cut document does not link the full report:\n%s", md[max(0, len(md)-300):])
	}
}

func TestReportConvertFromStdin(t *testing.T) {
	b, err := os.ReadFile(savedReport(t))
	if err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := Run(t.Context(), []string{"report", "convert", "--from", "-", "--format", "markdown"}, strings.NewReader(string(b)), &out, &errb, nil)
	if code != ExitOK || !strings.Contains(out.String(), "`vary-accept`") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

func TestScanWritesSARIFWithAnchorAndCategory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.sarif")
	r := run(t, "scan", "-q", "--fail-on", "none", "-o", "sarif="+path, "--sarif-anchor", "api/openapi.yaml",
		"--sarif-category", "staging", serve(t, demo.DefectNoVaryAccept))
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Runs []struct {
			AutomationDetails struct{ ID string } `json:"automationDetails"`
			Results           []struct {
				Message   struct{ Text string } `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	run0 := v.Runs[0]
	if run0.AutomationDetails.ID != "staging/" {
		t.Errorf("automationDetails.id %q", run0.AutomationDetails.ID)
	}
	if len(run0.Results) == 0 {
		t.Fatal("no results for a broken demo")
	}
	for _, res := range run0.Results {
		if res.Locations[0].PhysicalLocation.ArtifactLocation.URI != "api/openapi.yaml" || !strings.Contains(res.Message.Text, "127.0.0.1") {
			t.Errorf("result %+v", res)
		}
	}
	r = run(t, "scan", "--sarif-anchor", "/etc/passwd", "http://127.0.0.1:1/")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--sarif-anchor") {
		t.Errorf("an anchor outside the repository: exit %d, %s", r.code, r.stderr)
	}
}

// TestTextWrapsAt100WhenNotATerminal covers pipes and files: the report keeps
// to 100 columns, except pasteable curl lines and lone URLs.
func TestTextWrapsAt100WhenNotATerminal(t *testing.T) {
	r := run(t, "report", "convert", "--from", savedReport(t), "--format", "text")
	assertWidth(t, r.stdout, 100)
}

func assertWidth(t *testing.T, out string, width int) {
	t.Helper()
	lines := 0
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		lines++
		if text := strings.TrimSpace(line); strings.HasPrefix(text, "$ curl") || !strings.Contains(text, " ") {
			continue
		}
		if n := utf8.RuneCountInString(line); n > width {
			t.Errorf("line of %d columns, over %d: %q", n, width, line)
		}
	}
	if lines < 10 {
		t.Fatalf("only %d lines of output:\n%s", lines, out)
	}
}
