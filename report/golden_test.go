package report_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/report/internal/demoscan"
	"github.com/agentready/agentready/report/internal/sarifcheck"
)

// demos are the apps every format is rendered from end to end: the
// conformant demo and one broken variant.
var demos = map[string][]demo.Defect{
	"demo":                nil,
	"demo-no-vary-accept": {demo.DefectNoVaryAccept},
}

var scanned sync.Map // name → func() (*finding.Report, error)

// scanDemo scans each variant once per test binary; the formats share it.
func scanDemo(t *testing.T, name string) *finding.Report {
	t.Helper()
	f, _ := scanned.LoadOrStore(name, sync.OnceValues(func() (*finding.Report, error) { return demoscan.Scan(demos[name]...) }))
	rep, err := f.(func() (*finding.Report, error))()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// extensions names the golden file of each format. JSON is left out: the
// scan package's goldens already hold the demo's JSON reports.
var extensions = map[string]string{
	"text": "txt", "sarif": "sarif", "markdown": "md", "html": "html", "junit": "xml",
}

// TestGoldenDemo renders the demo's reports in every format. Ports are
// normalised and the clock is fixed; run .ci/regenerate after a deliberate
// change and review the diff.
func TestGoldenDemo(t *testing.T) {
	for name := range demos {
		for _, format := range report.Formats() {
			t.Run(name+"/"+format, func(t *testing.T) {
				ext, ok := extensions[format]
				if format == "json" {
					t.Skip("covered by scan's golden JSON reports")
				}
				if !ok {
					t.Fatalf("no golden extension for format %q", format)
				}
				r, err := report.New(format, report.Options{Width: 100})
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := r.Write(&buf, scanDemo(t, name)); err != nil {
					t.Fatal(err)
				}
				got := golden.NormalizePorts(buf.Bytes())
				if format == "sarif" {
					sarifcheck.Schema(t, got)
					sarifcheck.GitHubRules(t, got)
				}
				golden.Check(t, golden.Path(name, "report."+ext), got)
			})
		}
	}
}
