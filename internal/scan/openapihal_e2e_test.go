package scan_test

import (
	"net/http/httptest"
	"testing"

	"github.com/agentready/agentready/checks/openapihal"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
)

func TestHDTCDemoIsCleanWithItsSpec(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantDiscovered).rep
	if rep.Score.Grade != "A+" && rep.Score.Grade != "A" {
		t.Errorf("grade %s (%d), want A or better", rep.Score.Grade, rep.Score.Value)
	}
	for _, f := range rep.Findings {
		t.Errorf("conformant demo with its spec: %s %s: %s", f.Severity, f.CheckID, f.Message)
	}
	for _, c := range rep.Checks {
		if c.Status == finding.StatusError {
			t.Errorf("check %s errored: %s", c.ID, c.Reason)
		}
	}
	// Passed, not skipped: the spec was used.
	for _, c := range openapihal.All() {
		if st := checkStatus(rep, c.Meta().ID); st.Status != finding.StatusPass {
			t.Errorf("%s: %s %s", c.Meta().ID, st.Status, st.Reason)
		}
	}
}

// TestHDTCGoldenJSON pins the whole JSON report of one broken variant.
func TestHDTCGoldenJSON(t *testing.T) {
	t.Parallel()
	const variant = demo.DefectRelWrongCoordinate
	srv := httptest.NewServer(demo.New(variant))
	defer srv.Close()
	golden.Check(t, golden.Path("demo-"+string(variant), "report.json"), renderJSON(t, scanDiscovering(t, srv), srv))
}
