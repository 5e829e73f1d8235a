package scan_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/seedapp"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// TestSeedDefectsAreEachReported: the app planting the seeds' defects at
// once gets a finding for every one of them, and a grade below A. Its
// charge and its pending order without next steps sit in a collection's
// items only, so the stateful findings prove the embedded items are judged.
func TestSeedDefectsAreEachReported(t *testing.T) {
	t.Parallel()
	rep := mustScan(t, seedapp.New(), scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}})
	byCheck := map[string][]finding.Finding{}
	for _, f := range rep.Findings {
		byCheck[f.CheckID] = append(byCheck[f.CheckID], f)
	}
	for _, d := range seedapp.Defects() {
		for _, id := range d.Fires {
			if len(byCheck[id]) == 0 {
				t.Errorf("%s (%s): %s did not fire (%s)", d.Name, d.What, id, checkStatus(rep, id).Status)
			}
		}
	}
	for _, id := range []string{"stateful-confirmation-skipped", "stateful-next-actions-missing"} {
		for _, f := range byCheck[id] {
			if p := f.Evidence[0].JSONPointer; !strings.HasPrefix(p, "/items/") {
				t.Errorf("%s points at %q, want into the collection's items", id, p)
			}
		}
	}
	if g := rep.Score.Grade; g == "" || g[0] == 'A' || g == finding.GradeNotAssessed {
		t.Errorf("grade %q (%d), want below A", g, rep.Score.Value)
	}
	t.Logf("grade %s (%d): %s", rep.Score.Grade, rep.Score.Value, rep.Score.Basis)
	if t.Failed() {
		for _, f := range rep.Findings {
			t.Logf("%s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
}
