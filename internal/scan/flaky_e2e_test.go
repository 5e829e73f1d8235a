package scan_test

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/scan"
)

// TestFlakyResourceGetsTheSameVerdict scans an app whose one order fails at
// random: every scan must report the same findings and grade, the order once
// as unstable, and no verdict drawn from its unlucky draws.
func TestFlakyResourceGetsTheSameVerdict(t *testing.T) {
	t.Parallel()
	var first []string
	var grade string
	for i := range 3 {
		rep := mustScan(t, demo.New(demo.DefectFlakyOrder), scan.Options{})
		var got []string
		unstable := 0
		for _, f := range rep.Findings {
			got = append(got, f.CheckID+" "+f.Fingerprint)
			if f.CheckID == "negotiation-unstable-resource" {
				unstable++
			}
		}
		if unstable != 1 {
			t.Errorf("scan %d: %d unstable findings, want 1: %v", i+1, unstable, got)
		}
		if i == 0 {
			first, grade = got, rep.Score.Grade
			continue
		}
		if !slices.Equal(got, first) || rep.Score.Grade != grade {
			t.Errorf("scan %d: %s %v, first scan %s %v", i+1, rep.Score.Grade, got, grade, first)
		}
	}
}
