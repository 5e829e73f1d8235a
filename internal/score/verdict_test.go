package score

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// needs is the surface each test family judges, as the checks declare it.
var needs = map[string]string{"hal": finding.SurfaceHypermedia, "mcp": finding.SurfaceMCP}

func reached(surfaces ...string) *finding.Coverage {
	return &finding.Coverage{APIResources: 3, Surfaces: surfaces}
}

func familyByName(t *testing.T, s finding.Score, name string) finding.FamilyScore {
	t.Helper()
	for _, f := range s.Families {
		if f.Family == name {
			return f
		}
	}
	t.Fatalf("no family %s in %+v", name, s.Families)
	return finding.FamilyScore{}
}

func TestFamilyWithoutItsSurfaceIsNotPresent(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary"), rule("hal-a", "hal"), rule("hal-b", "hal"), rule("mcp-a", "mcp")}
	results := []finding.CheckResult{
		result("vary-a", "vary", finding.StatusPass, finding.SeverityError),
		// A check that passes without HAL has judged nothing of HAL.
		result("hal-a", "hal", finding.StatusPass, finding.SeverityError),
		{ID: "hal-b", Family: "hal", Status: finding.StatusSkip, Reason: "no HAL"},
		{ID: "mcp-a", Family: "mcp", Status: finding.StatusSkip, Reason: "no endpoint"},
	}
	got := Grade(Input{Families: order, Rules: rules, Results: results, Needs: needs, Coverage: reached()})
	hal := familyByName(t, got, "hal")
	if hal.State != finding.FamilyNotPresent || hal.Assessed || hal.Grade != "" || !strings.Contains(hal.Reason, "HAL") {
		t.Errorf("hal = %+v, want not present, no grade, the missing surface as reason", hal)
	}
	if mcp := familyByName(t, got, "mcp"); mcp.State != finding.FamilyNotPresent || !strings.Contains(mcp.Reason, "MCP endpoint") {
		t.Errorf("mcp = %+v, want not present", mcp)
	}
	if got.Grade != "A+" || !strings.Contains(got.Basis, "2 not present") {
		t.Errorf("score %s %q", got.Grade, got.Basis)
	}

	// With the surface there, the same outcome is graded.
	got = Grade(Input{Families: order, Rules: rules, Results: results, Needs: needs, Coverage: reached(finding.SurfaceHypermedia, finding.SurfaceMCP)})
	if hal := familyByName(t, got, "hal"); hal.State != finding.FamilyGraded || hal.Grade != "A+" {
		t.Errorf("hal with HAL = %+v, want graded", hal)
	}
	if mcp := familyByName(t, got, "mcp"); mcp.State != finding.FamilyNotAssessed || mcp.Reason != "no check of the family ran because no endpoint" {
		t.Errorf("mcp with an endpoint but every check skipped = %+v, want not assessed", mcp)
	}
}

func TestFailedCheckGradesAFamilyWithoutItsSurface(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary"), rule("hal-a", "hal")}
	results := []finding.CheckResult{
		result("vary-a", "vary", finding.StatusPass, finding.SeverityError),
		result("hal-a", "hal", finding.StatusFail, finding.SeverityWarning),
	}
	got := Grade(Input{Families: order, Rules: rules, Results: results, Findings: occurrences("hal-a", "hal", finding.SeverityWarning), Needs: needs, Coverage: reached()})
	if hal := familyByName(t, got, "hal"); hal.State != finding.FamilyGraded || hal.Value != 95 {
		t.Errorf("hal = %+v, want graded 95: a failure is a real defect", hal)
	}
	if got.Value != 95 {
		t.Errorf("score = %d, want 95", got.Value)
	}
}

func TestNoAPIResourceReachedHasNoGrade(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary"), rule("negotiation-a", "negotiation")}
	results := []finding.CheckResult{
		result("vary-a", "vary", finding.StatusPass, finding.SeverityError),
		result("negotiation-a", "negotiation", finding.StatusPass, finding.SeverityError),
	}
	cov := &finding.Coverage{Pages: map[string]int{"4xx": 18}, Cause: "base path"}
	got := Grade(Input{Families: order, Rules: rules, Results: results, Coverage: cov})
	if got.Grade != finding.GradeNotAssessed || got.Value != 0 || got.Basis != "no grade: the scan reached no API resource" {
		t.Errorf("score = %d %s %q, want N/A: every check passed on 404 pages", got.Value, got.Grade, got.Basis)
	}
	// An MCP endpoint that answered is an API reached.
	cov.Surfaces = []string{finding.SurfaceMCP}
	if got := Grade(Input{Families: order, Rules: rules, Results: results, Coverage: cov}); got.Grade != "A+" {
		t.Errorf("with an MCP endpoint: grade %s, want A+", got.Grade)
	}
	// So is a reached operation, whatever its media type.
	cov.Surfaces, cov.Operations = nil, &finding.OperationCoverage{Declared: 4, Reached: 1}
	if got := Grade(Input{Families: order, Rules: rules, Results: results, Coverage: cov}); got.Grade != "A+" {
		t.Errorf("with a reached operation: grade %s, want A+", got.Grade)
	}
}

func TestBasisNamesTheLowestFamily(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary"), rule("negotiation-a", "negotiation"), rule("hal-a", "hal"), rule("mcp-a", "mcp")}
	results := []finding.CheckResult{
		result("vary-a", "vary", finding.StatusFail, finding.SeverityWarning),
		result("negotiation-a", "negotiation", finding.StatusFail, finding.SeverityError),
		{ID: "mcp-a", Family: "mcp", Status: finding.StatusSkip, Reason: "no endpoint"},
	}
	findings := slices.Concat(occurrences("vary-a", "vary", finding.SeverityWarning), occurrences("negotiation-a", "negotiation", finding.SeverityError))
	got := Grade(Input{Families: order, Rules: rules, Results: results, Findings: findings, Needs: map[string]string{"hal": finding.SurfaceHypermedia}, Coverage: reached()})
	want := "overall = the lowest of 2 graded families (negotiation, 80); 1 not present; 1 not assessed"
	if got.Value != 80 || got.Grade != "B+" || got.Basis != want {
		t.Errorf("score = %d %s %q\nwant 80 B+ %q", got.Value, got.Grade, got.Basis, want)
	}
	got = Compute(order, rules[:1], results[:1], nil)
	if got.Basis != "overall = the lowest of 1 graded family (vary, 95)" {
		t.Errorf("basis %q", got.Basis)
	}
	got = Compute(order, rules[3:], results[2:], nil)
	if got.Grade != finding.GradeNotAssessed || got.Basis != "no grade: no family could be graded" {
		t.Errorf("nothing graded: %s %q", got.Grade, got.Basis)
	}
}

// The HAL-FORMS server of the report that prompted policy v2: families all
// B- or better, summed penalties F. The grade is now the weakest family's.
func TestGradeNeverContradictsTheFamilies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		s := randomScan(rng)
		got := Grade(Input{Families: order, Rules: s.rules, Results: s.results, Findings: s.findings, Needs: needs, Coverage: reached(finding.SurfaceMCP)})
		lowest := -1
		for _, f := range got.Families {
			if f.State == finding.FamilyGraded && (lowest < 0 || f.Value < lowest) {
				lowest = f.Value
			}
		}
		switch {
		case lowest < 0 && got.Grade != finding.GradeNotAssessed:
			t.Fatalf("no graded family but grade %s: %+v", got.Grade, got)
		case lowest >= 0 && (got.Value != lowest || got.Grade != Letter(lowest)):
			t.Fatalf("grade %s %d, lowest family %d: %+v", got.Grade, got.Value, lowest, got.Families)
		}
	}
}

// Fixing stays safe with surfaces missing: a family that stops being graded
// leaves the minimum of fewer families, unless it was the only one.
func TestFixingNeverLowersTheScoreWithoutSurfaces(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cov := reached()
	grade := func(s scan) finding.Score {
		return Grade(Input{Families: order, Rules: s.rules, Results: s.results, Findings: s.findings, Needs: needs, Coverage: cov})
	}
	for range 2000 {
		s := randomScan(rng)
		base := grade(s)
		for i := range s.findings {
			fixed := scan{rules: s.rules, results: s.results, findings: slices.Delete(slices.Clone(s.findings), i, i+1)}.rederive()
			after := grade(fixed)
			if after.Grade == finding.GradeNotAssessed && base.Grade != finding.GradeNotAssessed {
				if graded(after) != 0 {
					t.Fatalf("fixing took the grade away with %d families graded", graded(after))
				}
				continue
			}
			if after.Value < base.Value {
				t.Fatalf("fixing lowered the score from %d to %d", base.Value, after.Value)
			}
		}
	}
}

func graded(s finding.Score) int {
	n := 0
	for _, f := range s.Families {
		if f.State == finding.FamilyGraded {
			n++
		}
	}
	return n
}

// TestThrottledCrawlHasNoGrade: a crawl of which more than half the GET
// requests stayed throttled has no grade and fails the gate, whatever the
// checks found; half or fewer leaves the grade alone.
func TestThrottledCrawlHasNoGrade(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary")}
	results := []finding.CheckResult{result("vary-a", "vary", finding.StatusPass, finding.SeverityError)}
	for _, tt := range []struct {
		name        string
		throttled   int
		grade       string
		basis, gate string
		passed      bool
	}{
		{"half", 20, "A+", "overall = the lowest of 1 graded family (all 100)", "no finding at or above error", true},
		{"more than half", 21, finding.GradeNotAssessed, "no grade: the server throttled 21 of the crawl's 40 GET requests",
			"the server throttled more than half of the crawl's GET requests, so nothing the scan reports is a pass", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cov := reached()
			cov.Throttling = &finding.Throttling{Requests: 60, Throttled: 30, StillThrottled: tt.throttled, CrawlGETs: 40, CrawlThrottled: tt.throttled}
			got := Grade(Input{Families: order, Rules: rules, Results: results, Coverage: cov})
			if got.Grade != tt.grade || got.Basis != tt.basis {
				t.Errorf("grade %s %q, want %s %q", got.Grade, got.Basis, tt.grade, tt.basis)
			}
			g := Gate(&finding.Report{Score: got, Coverage: cov}, GateOptions{FailOn: finding.SeverityError})
			if g.Passed != tt.passed || g.Reason != tt.gate {
				t.Errorf("gate %v %q, want %v %q", g.Passed, g.Reason, tt.passed, tt.gate)
			}
		})
	}
}

func securityRule(id, family string, security bool, level string) finding.RuleInfo {
	r := rule(id, family)
	r.Security = security
	r.SpecRefs = []finding.SpecRef{{Doc: "spec", Section: "1", Level: level}}
	return r
}

func TestFailedSecurityMustCapsTheGradeAtC(t *testing.T) {
	passing := result("vary-a", "vary", finding.StatusPass, finding.SeverityError)
	cases := []struct {
		name      string
		rule      finding.RuleInfo
		severity  finding.Severity
		wantValue int
		wantGrade string
		capped    bool
	}{
		{"security MUST failed", securityRule("mcp-origin", "mcp", true, "MUST"), finding.SeverityError, 59, "C", true},
		{"security MUST NOT failed", securityRule("mcp-origin", "mcp", true, "must not"), finding.SeverityError, 59, "C", true},
		{"security SHOULD failed", securityRule("mcp-origin", "mcp", true, "SHOULD"), finding.SeverityError, 80, "B+", false},
		{"MUST without security failed", securityRule("mcp-origin", "mcp", false, "MUST"), finding.SeverityError, 80, "B+", false},
		{"security MUST fired only a warning", securityRule("mcp-origin", "mcp", true, "MUST"), finding.SeverityWarning, 95, "A", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{
				Families: order,
				Rules:    []finding.RuleInfo{rule("vary-a", "vary"), tc.rule},
				Results:  []finding.CheckResult{passing, result("mcp-origin", "mcp", finding.StatusFail, finding.SeverityError)},
				Findings: occurrences("mcp-origin", "mcp", tc.severity),
				Coverage: reached(finding.SurfaceMCP),
				Needs:    needs,
			}
			got := Grade(in)
			if got.Value != tc.wantValue || got.Grade != tc.wantGrade {
				t.Errorf("score = %d %s, want %d %s (%s)", got.Value, got.Grade, tc.wantValue, tc.wantGrade, got.Basis)
			}
			const why = "capped at 59 (C): security MUST failed (mcp-origin)"
			if strings.Contains(got.Basis, why) != tc.capped {
				t.Errorf("basis %q, want it to say %q: %v", got.Basis, why, tc.capped)
			}
			// The family keeps its own score: the cap is the overall grade's.
			if mcp := familyByName(t, got, "mcp"); mcp.Value != 100-Penalty(tc.severity) {
				t.Errorf("mcp family = %d, want its penalties only", mcp.Value)
			}
		})
	}
}

func TestSecurityCapLeavesLowerScoresAndNoGradeAlone(t *testing.T) {
	rules := []finding.RuleInfo{securityRule("mcp-origin", "mcp", true, "MUST"), rule("vary-a", "vary"), rule("vary-b", "vary"), rule("vary-c", "vary")}
	results := []finding.CheckResult{
		result("mcp-origin", "mcp", finding.StatusFail, finding.SeverityError),
		result("vary-a", "vary", finding.StatusFail, finding.SeverityError),
		result("vary-b", "vary", finding.StatusFail, finding.SeverityError),
		result("vary-c", "vary", finding.StatusFail, finding.SeverityError),
	}
	got := Grade(Input{Families: order, Rules: rules, Results: results, Coverage: reached(finding.SurfaceMCP), Needs: needs})
	if got.Value != 40 || strings.Contains(got.Basis, "capped") {
		t.Errorf("score %d %q, want the weakest family's 40, uncapped", got.Value, got.Basis)
	}
	got = Grade(Input{Families: order, Rules: rules, Results: results[:1], Coverage: &finding.Coverage{}, Needs: needs})
	if got.Grade != finding.GradeNotAssessed || strings.Contains(got.Basis, "capped") {
		t.Errorf("a scan that reached nothing = %s %q, want no grade and no cap", got.Grade, got.Basis)
	}
}
