package scan_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

// scanHostile runs the whole pipeline against a misbehaving server with tight
// limits, then renders every format: nothing may panic, and the scan must end
// (the 30 s stall is cut by the per-request timeout, the 50 MB body by the cap).
func scanHostile(t *testing.T, h http.Handler) *finding.Report {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	start, _ := url.Parse(srv.URL + "/")
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := scan.Run(context.Background(), scan.Options{
		Probe:  probe.Config{Start: start, Budget: 20 * time.Second, Timeout: 2 * time.Second, MaxBody: 1 << 20},
		Checks: reg.All(),
		Now:    fixedClock,
	})
	if err != nil {
		t.Fatalf("scan of a hostile server failed instead of reporting: %v", err)
	}
	return rep
}

func renderAll(t *testing.T, rep *finding.Report) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, format := range report.Formats() {
		for _, color := range []bool{false, true} {
			r, err := report.New(format, report.Options{Color: color, Width: 100})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := r.Write(&buf, rep); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if !color {
				out[format] = buf.Bytes()
			}
		}
	}
	return out
}

func TestHostileServerGivesAClearReport(t *testing.T) {
	t.Parallel()
	rep := scanHostile(t, hostile.New())
	if rep.Stats.Pages == 0 {
		t.Fatal("nothing was crawled")
	}
	outputs := renderAll(t, rep)
	if bytes.ContainsRune(outputs["text"], 0x1b) {
		t.Error("the plain text report carries an escape byte from the app")
	}
	if !json.Valid(outputs["json"]) {
		t.Error("the JSON report is not valid JSON")
	}
	if bytes.Contains(outputs["json"], []byte("\x1b")) {
		t.Error("raw ESC in JSON output")
	}
}

func TestAll500ServerGivesAClearReport(t *testing.T) {
	t.Parallel()
	rep := scanHostile(t, hostile.NewAll500())
	if rep.Stats.Pages != 1 {
		t.Errorf("pages = %d, want the one start page", rep.Stats.Pages)
	}
	renderAll(t, rep)
}
