package score

import (
	"slices"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func gateReport(grade string, value int, b *finding.BaselineSummary, fs ...finding.Finding) *finding.Report {
	return &finding.Report{Score: finding.Score{Grade: grade, Value: value}, Findings: fs, Baseline: b}
}

func at(sev finding.Severity, state string) finding.Finding {
	return finding.Finding{CheckID: "vary-accept", Severity: sev, BaselineState: state}
}

func TestGate(t *testing.T) {
	const (
		E = finding.SeverityError
		W = finding.SeverityWarning
		I = finding.SeverityInfo
	)
	gradeA := &finding.FailUnder{Grade: "A"}
	base := &finding.BaselineSummary{New: 1, Existing: 1}
	stale := &finding.BaselineSummary{Existing: 1, Fixed: make([]finding.BaselineEntry, 2), Stale: true}
	tests := []struct {
		name    string
		rep     *finding.Report
		opts    GateOptions
		passed  bool
		reason  string
		kinds   []finding.GateReasonKind
		counted int
	}{
		{"disabled", gateReport("F", 0, nil, at(E, "")), GateOptions{FailOn: finding.SeverityNone},
			true, "gate disabled (--fail-on none)", []finding.GateReasonKind{finding.GateDisabled}, 0},
		{"nothing at or above", gateReport("A", 95, nil, at(W, "")), GateOptions{FailOn: E},
			true, "no finding at or above error", []finding.GateReasonKind{finding.GateNoFinding}, 0},
		{"findings at or above", gateReport("B", 75, nil, at(E, ""), at(W, ""), at(I, "")), GateOptions{FailOn: W},
			false, "2 finding(s) at or above warning", []finding.GateReasonKind{finding.GateFindings}, 2},
		{"baseline counts new findings only", gateReport("C", 55, base, at(E, finding.BaselineNew), at(E, finding.BaselineExisting)), GateOptions{FailOn: E},
			false, "1 new finding(s) at or above error (baseline: 1 new, 1 existing, 0 fixed)", []finding.GateReasonKind{finding.GateFindings}, 1},
		{"baseline without new findings", gateReport("C", 55, base, at(E, finding.BaselineExisting), at(I, finding.BaselineNew)), GateOptions{FailOn: E},
			true, "no new finding at or above error (baseline: 1 new, 1 existing, 0 fixed)", []finding.GateReasonKind{finding.GateNoFinding}, 0},
		{"disabled with a baseline", gateReport("C", 55, base), GateOptions{FailOn: finding.SeverityNone},
			true, "gate disabled (--fail-on none) (baseline: 1 new, 1 existing, 0 fixed)", []finding.GateReasonKind{finding.GateDisabled}, 0},
		{"below the minimum alone", gateReport("B", 70, nil, at(W, "")), GateOptions{FailOn: E, Minimum: gradeA},
			false, "grade B (score 70) is below the minimum grade A", []finding.GateReasonKind{finding.GateNoFinding, finding.GateBelowMinimum}, 0},
		{"findings and below the minimum score", gateReport("F", 0, nil, at(I, "")), GateOptions{FailOn: I, Minimum: &finding.FailUnder{Score: 80}},
			false, "1 finding(s) at or above info; grade F (score 0) is below the minimum score 80", []finding.GateReasonKind{finding.GateFindings, finding.GateBelowMinimum}, 1},
		{"minimum met", gateReport("A+", 100, nil), GateOptions{FailOn: E, Minimum: gradeA},
			true, "no finding at or above error", []finding.GateReasonKind{finding.GateNoFinding}, 0},
		{"nothing assessed meets no minimum", gateReport(finding.GradeNotAssessed, 0, nil), GateOptions{FailOn: E, Minimum: &finding.FailUnder{Score: 0}},
			false, "grade N/A (score 0) is below the minimum score 0", []finding.GateReasonKind{finding.GateNoFinding, finding.GateBelowMinimum}, 0},
		{"stale strict baseline", gateReport("A+", 100, stale, at(W, finding.BaselineExisting)), GateOptions{FailOn: E, StrictBaseline: true},
			false, "the baseline is stale: 2 finding(s) it lists are fixed; rewrite it with 'agentready baseline write'", []finding.GateReasonKind{finding.GateNoFinding, finding.GateStaleBaseline}, 0},
		{"stale baseline, not strict", gateReport("A+", 100, stale), GateOptions{FailOn: E},
			true, "no new finding at or above error (baseline: 0 new, 1 existing, 2 fixed)", []finding.GateReasonKind{finding.GateNoFinding}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Gate(tt.rep, tt.opts)
			if g.Passed != tt.passed || g.Reason != tt.reason {
				t.Errorf("passed %v, reason %q\nwant %v, %q", g.Passed, g.Reason, tt.passed, tt.reason)
			}
			var kinds []finding.GateReasonKind
			for _, r := range g.Reasons {
				kinds = append(kinds, r.Kind)
			}
			if !slices.Equal(kinds, tt.kinds) || g.Reasons[0].Count != tt.counted {
				t.Errorf("reasons %+v, want kinds %v with %d counted", g.Reasons, tt.kinds, tt.counted)
			}
		})
	}
}

func TestGateRecordsItsOptions(t *testing.T) {
	b := &finding.BaselineSummary{}
	g := Gate(gateReport("A", 90, b), GateOptions{FailOn: finding.SeverityWarning, Minimum: &finding.FailUnder{Grade: "B"}, StrictBaseline: true})
	if g.FailOn != finding.SeverityWarning || g.FailUnder != "grade B" || !g.NewOnly || !g.StrictBaseline {
		t.Errorf("gate %+v", g)
	}
	g = Gate(gateReport("A", 90, nil), GateOptions{FailOn: finding.SeverityError, StrictBaseline: true})
	if g.NewOnly || g.StrictBaseline || g.FailUnder != "" {
		t.Errorf("without a baseline or minimum: gate %+v", g)
	}
}

func TestGateOnCoverage(t *testing.T) {
	frac := func(f float64) *float64 { return &f }
	partial := &finding.Coverage{APIResources: 5, Operations: &finding.OperationCoverage{Declared: 88, Reached: 11}, Fraction: frac(11.0 / 88)}
	noDoc := &finding.Coverage{APIResources: 5}
	nothing := &finding.Coverage{Pages: map[string]int{"4xx": 18}, Cause: "…"}
	tests := []struct {
		name   string
		cov    *finding.Coverage
		min    int
		passed bool
		reason string
		kinds  []finding.GateReasonKind
	}{
		{"nothing reached fails without a minimum", nothing, 0,
			false, "the scan reached no API resource, so nothing it reports is a pass", []finding.GateReasonKind{finding.GateNoFinding, finding.GateNotReached}},
		{"below the minimum coverage", partial, 50,
			false, "coverage 12% (11 of 88 GET operations reached) is below the minimum 50%", []finding.GateReasonKind{finding.GateNoFinding, finding.GateBelowCoverage}},
		{"rounded down: 12.5% does not meet 13%", partial, 13,
			false, "coverage 12% (11 of 88 GET operations reached) is below the minimum 13%", []finding.GateReasonKind{finding.GateNoFinding, finding.GateBelowCoverage}},
		{"minimum met", partial, 12,
			true, "no finding at or above error", []finding.GateReasonKind{finding.GateNoFinding}},
		{"no document, no coverage to meet", noDoc, 1,
			false, "coverage unknown: no OpenAPI document declared GET operations to count, so the minimum coverage 1% is not met (pass --openapi)", []finding.GateReasonKind{finding.GateNoFinding, finding.GateCoverageUnknown}},
		{"no minimum, no document", noDoc, 0,
			true, "no finding at or above error", []finding.GateReasonKind{finding.GateNoFinding}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := gateReport("A+", 100, nil)
			rep.Coverage = tt.cov
			g := Gate(rep, GateOptions{FailOn: finding.SeverityError, MinCoverage: tt.min})
			var kinds []finding.GateReasonKind
			for _, r := range g.Reasons {
				kinds = append(kinds, r.Kind)
			}
			if g.Passed != tt.passed || g.Reason != tt.reason || !slices.Equal(kinds, tt.kinds) || g.MinCoverage != tt.min {
				t.Errorf("passed %v, reason %q, kinds %v, min %d\nwant %v, %q, %v", g.Passed, g.Reason, kinds, g.MinCoverage, tt.passed, tt.reason, tt.kinds)
			}
		})
	}
}

// TestGateOnDrift: the drift family's findings are judged by FailOnDrift
// alone, and only when the surface was compared with a baseline's.
func TestGateOnDrift(t *testing.T) {
	drifted := func(sev finding.Severity) finding.Finding {
		return finding.Finding{CheckID: "drift-removed", Family: finding.DriftFamily, Severity: sev, BaselineState: finding.BaselineNew}
	}
	compared := &finding.Coverage{APIResources: 1, Surfaces: []string{finding.SurfaceBaseline}}
	base := &finding.BaselineSummary{New: 2}
	tests := []struct {
		name   string
		cov    *finding.Coverage
		fs     []finding.Finding
		mode   string
		passed bool
		reason string
	}{
		{"breaking fails by default", compared, []finding.Finding{drifted(finding.SeverityError), drifted(finding.SeverityInfo)}, "",
			false, "1 breaking change(s) to the agent surface since the baseline (fail-on-drift breaking)"},
		{"compatible passes by default", compared, []finding.Finding{drifted(finding.SeverityInfo)}, "",
			true, "no new finding at or above error (baseline: 2 new, 0 existing, 0 fixed)"},
		{"any fails on compatible", compared, []finding.Finding{drifted(finding.SeverityInfo)}, finding.DriftAny,
			false, "1 change(s) to the agent surface since the baseline (fail-on-drift any)"},
		{"none never fails", compared, []finding.Finding{drifted(finding.SeverityError)}, finding.DriftNone,
			true, "no new finding at or above error (baseline: 2 new, 0 existing, 0 fixed)"},
		{"not compared, not judged", &finding.Coverage{APIResources: 1}, nil, finding.DriftAny,
			true, "no new finding at or above error (baseline: 2 new, 0 existing, 0 fixed)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := &finding.Report{Findings: tt.fs, Baseline: base, Coverage: tt.cov}
			g := Gate(rep, GateOptions{FailOn: finding.SeverityError, FailOnDrift: tt.mode})
			if g.Passed != tt.passed || g.Reason != tt.reason {
				t.Errorf("passed %v %q, want %v %q", g.Passed, g.Reason, tt.passed, tt.reason)
			}
			if want := tt.cov.Has(finding.SurfaceBaseline); want != (g.FailOnDrift != "") {
				t.Errorf("failOnDrift %q", g.FailOnDrift)
			}
		})
	}
}

func TestGateFailsAnInterruptedScan(t *testing.T) {
	rep := gateReport(finding.GradeNotAssessed, 0, nil)
	rep.Coverage = &finding.Coverage{APIResources: 3, Interrupted: "interrupted by SIGTERM during the crawl"}
	g := Gate(rep, GateOptions{FailOn: finding.SeverityError})
	if g.Passed || g.Reason != "the scan did not run to its end (interrupted by SIGTERM during the crawl), so nothing it reports is a pass" {
		t.Errorf("passed %v, reason %q", g.Passed, g.Reason)
	}
}
