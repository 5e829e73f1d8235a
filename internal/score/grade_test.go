package score

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// order is the family order the tests grade in, as the checks' report order
// would give it.
var order = []string{"negotiation", "vary", "hal", "mcp", "surface"}

func rule(id, family string) finding.RuleInfo {
	return finding.RuleInfo{ID: id, Family: family, Title: id, Severity: finding.SeverityError}
}

func result(id, family string, status finding.CheckStatus, sev finding.Severity) finding.CheckResult {
	return finding.CheckResult{ID: id, Family: family, Status: status, Severity: sev}
}

func occurrences(id, family string, sevs ...finding.Severity) []finding.Finding {
	out := make([]finding.Finding, len(sevs))
	for i, s := range sevs {
		out[i] = finding.Finding{CheckID: id, Family: family, Severity: s, Message: fmt.Sprint(i)}
	}
	return out
}

func TestComputeFormula(t *testing.T) {
	const (
		E = finding.SeverityError
		W = finding.SeverityWarning
		I = finding.SeverityInfo
	)
	rules := []finding.RuleInfo{
		rule("vary-a", "vary"), rule("vary-b", "vary"), rule("vary-c", "vary"),
		rule("vary-d", "vary"), rule("vary-e", "vary"), rule("vary-f", "vary"),
		rule("negotiation-a", "negotiation"), rule("negotiation-b", "negotiation"),
	}
	tests := []struct {
		name     string
		results  []finding.CheckResult
		findings []finding.Finding
		want     int
		grade    string
		families map[string]int
	}{
		{
			name: "all pass",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusPass, E),
				result("negotiation-a", "negotiation", finding.StatusPass, E),
			},
			want: 100, grade: "A+", families: map[string]int{"vary": 100, "negotiation": 100},
		},
		{
			name: "500 occurrences of one error count once",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusFail, E),
				result("negotiation-a", "negotiation", finding.StatusPass, E),
			},
			findings: occurrences("vary-a", "vary", slices.Repeat([]finding.Severity{E}, 500)...),
			want:     80, grade: "B+", families: map[string]int{"vary": 80, "negotiation": 100},
		},
		{
			name: "highest severity of the check wins",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusFail, E),
			},
			findings: occurrences("vary-a", "vary", I, W, I),
			want:     95, grade: "A", families: map[string]int{"vary": 95},
		},
		{
			name: "info costs nothing",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusFail, I),
			},
			findings: occurrences("vary-a", "vary", I),
			want:     100, grade: "A+", families: map[string]int{"vary": 100},
		},
		{
			name: "the overall is the lowest family, not the sum of all penalties",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusFail, E),
				result("vary-b", "vary", finding.StatusFail, W),
				result("negotiation-a", "negotiation", finding.StatusFail, E),
				result("negotiation-b", "negotiation", finding.StatusFail, E),
			},
			findings: slices.Concat(
				occurrences("vary-a", "vary", E),
				occurrences("vary-b", "vary", W, W),
				occurrences("negotiation-a", "negotiation", E),
				occurrences("negotiation-b", "negotiation", E),
			),
			want: 60, grade: "C+", families: map[string]int{"vary": 75, "negotiation": 60},
		},
		{
			name: "a family floors at zero",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusFail, E),
				result("vary-b", "vary", finding.StatusFail, E),
				result("vary-c", "vary", finding.StatusFail, E),
				result("vary-d", "vary", finding.StatusFail, E),
				result("vary-e", "vary", finding.StatusFail, E),
				result("vary-f", "vary", finding.StatusFail, E),
				result("negotiation-a", "negotiation", finding.StatusPass, E),
			},
			want: 0, grade: "F", families: map[string]int{"vary": 0, "negotiation": 100},
		},
		{
			name: "failed check without findings uses its result severity",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusFail, W),
			},
			want: 95, grade: "A", families: map[string]int{"vary": 95},
		},
		{
			name: "skipped and errored do not count",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusPass, E),
				result("vary-b", "vary", finding.StatusSkip, E),
				result("vary-c", "vary", finding.StatusError, E),
			},
			findings: occurrences("vary-c", "vary", E),
			want:     100, grade: "A+", families: map[string]int{"vary": 100},
		},
		{
			name: "findings of a passed check are ignored",
			results: []finding.CheckResult{
				result("vary-a", "vary", finding.StatusPass, E),
			},
			findings: occurrences("vary-a", "vary", E),
			want:     100, grade: "A+", families: map[string]int{"vary": 100},
		},
		{
			name: "result without family takes the rule's",
			results: []finding.CheckResult{
				result("vary-a", "", finding.StatusFail, E),
			},
			findings: occurrences("vary-a", "", E),
			want:     80, grade: "B+", families: map[string]int{"vary": 80},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compute(order, rules, tt.results, tt.findings)
			if got.Value != tt.want || got.Grade != tt.grade {
				t.Errorf("score = %d %s, want %d %s", got.Value, got.Grade, tt.want, tt.grade)
			}
			if got.PolicyVersion != PolicyVersion {
				t.Errorf("policy version = %q", got.PolicyVersion)
			}
			for _, fs := range got.Families {
				want, assessed := tt.families[fs.Family]
				if fs.Assessed != assessed {
					t.Errorf("family %s assessed = %v, want %v", fs.Family, fs.Assessed, assessed)
				}
				if assessed && (fs.Value != want || fs.Grade != Letter(want)) {
					t.Errorf("family %s = %d %s, want %d", fs.Family, fs.Value, fs.Grade, want)
				}
			}
		})
	}
}

func TestComputeNotAssessed(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary"), rule("vary-b", "vary"), rule("mcp-a", "mcp"), rule("hal-a", "hal")}
	results := []finding.CheckResult{
		{ID: "vary-b", Family: "vary", Status: finding.StatusSkip, Reason: "second"},
		{ID: "vary-a", Family: "vary", Status: finding.StatusSkip, Reason: "no Vary-relevant responses"},
		{ID: "mcp-a", Family: "mcp", Status: finding.StatusError, Reason: "boom"},
	}
	got := Compute(order, rules, results, nil)
	if got.Grade != finding.GradeNotAssessed || got.Value != 0 {
		t.Fatalf("score = %d %q, want 0 N/A", got.Value, got.Grade)
	}
	want := []finding.FamilyScore{
		{Family: "vary", State: finding.FamilyNotAssessed, Skipped: 2, Reason: "no check of the family ran because no Vary-relevant responses (1 of 2 checks; the others for other reasons)"},
		{Family: "hal", State: finding.FamilyNotAssessed, Reason: "no check of the family ran"},
		{Family: "mcp", State: finding.FamilyNotAssessed, Errored: 1, Reason: "every check of the family errored"},
	}
	if !slices.Equal(got.Families, want) {
		t.Errorf("families =\n%+v\nwant\n%+v", got.Families, want)
	}
}

// TestNotAssessedReasonNamesTheCause: the family's reason is the one most of
// its checks were skipped for, not whichever check sorts first, and says
// "not assessed" no more than the report around it does.
func TestNotAssessedReasonNamesTheCause(t *testing.T) {
	const oneIdentity = "not assessed: the scan ran as one identity"
	tests := []struct {
		name    string
		results []finding.CheckResult
		want    string
	}{
		{"one reason", []finding.CheckResult{
			{ID: "leakage-a", Status: finding.StatusSkip, Reason: oneIdentity},
			{ID: "leakage-b", Status: finding.StatusSkip, Reason: oneIdentity},
		}, "no check of the family ran because the scan ran as one identity"},
		{"the first check by ID is the odd one out", []finding.CheckResult{
			{ID: "leakage-a-active", Status: finding.StatusSkip, Reason: "not assessed: this is an active probe"},
			{ID: "leakage-b", Status: finding.StatusSkip, Reason: oneIdentity},
			{ID: "leakage-c", Status: finding.StatusSkip, Reason: oneIdentity},
		}, "no check of the family ran because the scan ran as one identity (2 of 3 checks; the others for other reasons)"},
		{"skipped and errored", []finding.CheckResult{
			{ID: "leakage-a", Status: finding.StatusError, Reason: "boom"},
			{ID: "leakage-b", Status: finding.StatusSkip, Reason: oneIdentity},
		}, "no check of the family ran because the scan ran as one identity (1 of 2 checks; the others for other reasons); 1 errored"},
		{"skipped without a reason", []finding.CheckResult{
			{ID: "leakage-a", Status: finding.StatusSkip},
		}, "no check of the family ran"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rules []finding.RuleInfo
			for i := range tt.results {
				tt.results[i].Family = "leakage"
				rules = append(rules, rule(tt.results[i].ID, "leakage"))
			}
			got := Compute(order, rules, tt.results, nil).Families[0].Reason
			if got != tt.want {
				t.Errorf("reason\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}

func TestComputeUnassessedFamilyDoesNotCount(t *testing.T) {
	rules := []finding.RuleInfo{rule("vary-a", "vary"), rule("mcp-a", "mcp")}
	results := []finding.CheckResult{
		{ID: "vary-a", Family: "vary", Status: finding.StatusFail, Severity: finding.SeverityWarning},
		{ID: "mcp-a", Family: "mcp", Status: finding.StatusSkip, Reason: "no --mcp"},
	}
	got := Compute(order, rules, results, occurrences("vary-a", "vary", finding.SeverityWarning))
	if got.Value != 95 || got.Grade != "A" {
		t.Errorf("score = %d %s, want 95 A", got.Value, got.Grade)
	}
	if got.Families[1].Assessed || got.Families[1].Reason != "no check of the family ran because no --mcp" {
		t.Errorf("mcp = %+v, want not assessed with the skip reason", got.Families[1])
	}
}

func TestFamilyOrder(t *testing.T) {
	rules := []finding.RuleInfo{
		rule("zeta-a", "zeta"), rule("surface-a", "surface"), rule("negotiation-a", "negotiation"),
		rule("alpha-a", "alpha"), rule("mcp-a", "mcp"), rule("negotiation-b", "negotiation"),
	}
	got := Compute(order, rules, nil, nil)
	var names []string
	for _, f := range got.Families {
		names = append(names, f.Family)
	}
	want := []string{"negotiation", "mcp", "surface", "alpha", "zeta"}
	if !slices.Equal(names, want) {
		t.Errorf("families = %v, want %v", names, want)
	}
}

func TestLetterBoundaries(t *testing.T) {
	tests := []struct {
		score int
		want  string
	}{
		{150, "A+"}, {100, "A+"}, {99, "A"}, {90, "A"}, {89, "A-"}, {85, "A-"},
		{84, "B+"}, {80, "B+"}, {79, "B"}, {70, "B"}, {69, "B-"}, {65, "B-"},
		{64, "C+"}, {60, "C+"}, {59, "C"}, {50, "C"}, {49, "C-"}, {45, "C-"},
		{44, "D+"}, {40, "D+"}, {39, "D"}, {30, "D"}, {29, "D-"}, {25, "D-"},
		{24, "F"}, {0, "F"}, {-10, "F"},
	}
	for _, tt := range tests {
		if got := Letter(tt.score); got != tt.want {
			t.Errorf("Letter(%d) = %q, want %q", tt.score, got, tt.want)
		}
	}
}

// scan is a generated, self-consistent scan outcome: a failed check has
// findings and its result carries their highest severity, as the runner does.
type scan struct {
	rules    []finding.RuleInfo
	results  []finding.CheckResult
	findings []finding.Finding
}

var propertyFamilies = []string{"negotiation", "vary", "hal", "mcp"}

func randomScan(rng *rand.Rand) scan {
	var s scan
	statuses := []finding.CheckStatus{finding.StatusPass, finding.StatusFail, finding.StatusFail, finding.StatusSkip, finding.StatusError}
	for i := range rng.IntN(12) {
		family := propertyFamilies[rng.IntN(len(propertyFamilies))]
		id := fmt.Sprintf("%s-c%d", family, i)
		s.rules = append(s.rules, rule(id, family))
		res := finding.CheckResult{ID: id, Family: family, Status: statuses[rng.IntN(len(statuses))], Reason: "r" + id}
		if res.Status == finding.StatusFail {
			for range 1 + rng.IntN(4) {
				sev := finding.Severity(1 + rng.IntN(3))
				res.Severity = max(res.Severity, sev)
				s.findings = append(s.findings, finding.Finding{CheckID: id, Family: family, Severity: sev})
				res.Findings++
			}
		}
		s.results = append(s.results, res)
	}
	return s
}

// rederive recomputes the results from the findings, the way a fresh scan
// would after a fix: a failed check with no finding left passes.
func (s scan) rederive() scan {
	worst := worstSeverityByCheck(s.findings)
	out := s
	out.results = slices.Clone(s.results)
	for i, r := range out.results {
		if r.Status != finding.StatusFail {
			continue
		}
		if sev, ok := worst[r.ID]; ok {
			out.results[i].Severity = sev
		} else {
			out.results[i].Status = finding.StatusPass
		}
	}
	return out
}

func notWorse(t *testing.T, what string, before, after finding.Score) {
	t.Helper()
	if after.Value < before.Value {
		t.Fatalf("%s lowered the score from %d to %d", what, before.Value, after.Value)
	}
	if before.Grade != finding.GradeNotAssessed {
		if ok, err := finding.GradeAtLeast(after.Grade, before.Grade); err != nil || !ok {
			t.Fatalf("%s lowered the grade from %s to %s (%v)", what, before.Grade, after.Grade, err)
		}
	}
	for i, fb := range before.Families {
		fa := after.Families[i]
		if fb.Assessed && (!fa.Assessed || fa.Value < fb.Value) {
			t.Fatalf("%s lowered family %s from %+v to %+v", what, fb.Family, fb, fa)
		}
	}
}

func TestFixingNeverLowersTheScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := randomScan(rng)
		base := Compute(order, s.rules, s.results, s.findings)

		for i := range s.findings {
			fewer := slices.Delete(slices.Clone(s.findings), i, i+1)
			notWorse(t, "removing a finding", base, Compute(order, s.rules, s.results, fewer))

			fixed := scan{rules: s.rules, results: s.results, findings: fewer}.rederive()
			notWorse(t, "fixing a finding", base, Compute(order, fixed.rules, fixed.results, fixed.findings))
		}
		for i, r := range s.results {
			if r.Status != finding.StatusFail {
				continue
			}
			passed := slices.Clone(s.results)
			passed[i].Status = finding.StatusPass
			notWorse(t, "passing a failed check", base, Compute(order, s.rules, passed, s.findings))
		}
	}
}

func TestComputeDoesNotDependOnResultOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := randomScan(rng)
		want := Compute(order, s.rules, s.results, s.findings)
		shuffled := slices.Clone(s.results)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got := Compute(order, s.rules, shuffled, s.findings)
		if got.Value != want.Value || !slices.Equal(got.Families, want.Families) {
			t.Fatalf("order changed the score: %+v vs %+v", got, want)
		}
	}
}

// A scan a signal or a fatal error stopped has no grade, whatever it
// reached, and its basis says what stopped it and what it had; one its
// budget cut is graded on what it reached.
func TestInterruptedScanHasNoGrade(t *testing.T) {
	in := Input{
		Rules:   []finding.RuleInfo{rule("a-1", "a"), rule("b-1", "b")},
		Results: []finding.CheckResult{result("a-1", "a", finding.StatusPass, finding.SeverityError), result("b-1", "b", finding.StatusPass, finding.SeverityError)},
		Coverage: &finding.Coverage{Pages: map[string]int{"2xx": 11, "4xx": 1}, APIResources: 9,
			Interrupted: "interrupted by SIGINT during the planned probes"},
	}
	got := Grade(in)
	want := "no grade: interrupted by SIGINT during the planned probes; it had crawled 12 pages, reached 9 API resources and graded 2 families"
	if got.Grade != finding.GradeNotAssessed || got.Value != 0 || got.Basis != want {
		t.Errorf("grade %q (%d), basis %q; want N/A, %q", got.Grade, got.Value, got.Basis, want)
	}
	in.Coverage.Interrupted = ""
	if got := Grade(in); got.Grade != "A+" {
		t.Errorf("a scan that ran to its end (or its budget) is graded %q (%s)", got.Grade, got.Basis)
	}
}
