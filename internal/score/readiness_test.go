package score

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func deducts(id, family string, sev finding.Severity) Guess {
	return Guess{CheckID: id, Family: family, Severity: sev}
}

// guesses is what the scan passes for one operation's deductions.
func guesses(ds ...Guess) []Guess {
	var out []Guess
	for _, d := range ds {
		out = AddGuess(out, d)
	}
	return out
}

func TestReadinessIsTheShareOfOperationsWithoutAGuess(t *testing.T) {
	const (
		E = finding.SeverityError
		W = finding.SeverityWarning
		I = finding.SeverityInfo
	)
	rules := []finding.RuleInfo{
		rule("openapi-hal-purpose", "openapi-hal"), rule("openapi-hal-input", "openapi-hal"),
		rule("openapi-hal-errors", "openapi-hal"), rule("openapi-hal-retry", "openapi-hal"),
		rule("openapi-hal-paging", "openapi-hal"), rule("problem-json-errors", "problem-json"),
	}
	var results []finding.CheckResult
	for _, r := range rules {
		results = append(results, result(r.ID, r.Family, finding.StatusPass, W))
	}
	purpose, input, errs := deducts("openapi-hal-purpose", "openapi-hal", W), deducts("openapi-hal-input", "openapi-hal", W),
		deducts("openapi-hal-errors", "openapi-hal", W)
	retry, paging, problem := deducts("openapi-hal-retry", "openapi-hal", W), deducts("openapi-hal-paging", "openapi-hal", I),
		deducts("problem-json-errors", "problem-json", W)
	loose := deducts("openapi-hal-input", "openapi-hal", I)
	tests := []struct {
		name       string
		operations int
		byOp       [][]Guess
		document   []Guess
		want       int
		grade      string
		families   map[string]int
	}{
		{name: "no deduction", operations: 4, want: 100, grade: "A+",
			families: map[string]int{"openapi-hal": 100, "problem-json": 100}},
		{name: "one info guess in a thousand operations is no longer A+", operations: 1000,
			byOp: [][]Guess{{paging}}, want: 99, grade: "A"},
		{name: "a warning costs an operation a quarter", operations: 4,
			byOp: [][]Guess{{purpose}}, want: 93, grade: "A",
			families: map[string]int{"openapi-hal": 93, "problem-json": 100}},
		{name: "the same warning on every operation", operations: 4,
			byOp: [][]Guess{{purpose}, {purpose}, {purpose}, {purpose}}, want: 75, grade: "B"},
		{name: "one check counts once per operation, at its worst", operations: 2,
			byOp: [][]Guess{guesses(loose, input, loose), {loose}}, want: (200 - 25 - 10) / 2, grade: "B+"},
		{name: "an operation loses at most its worth", operations: 2,
			byOp: [][]Guess{{purpose, input, errs, retry, paging}, {problem}}, want: (200 - 100 - 25) / 2, grade: "D"},
		{name: "an error leaves nothing of its operation", operations: 2,
			byOp: [][]Guess{{deducts("openapi-hal-retry", "openapi-hal", E)}}, want: 50, grade: "C"},
		{name: "each family over its own checks", operations: 2,
			byOp: [][]Guess{{purpose, problem}, {problem}}, want: (200 - 50 - 25) / 2, grade: "C+",
			families: map[string]int{"openapi-hal": 87, "problem-json": 75}},
		{name: "a document-wide guess is one on every operation, counted once", operations: 4,
			byOp: [][]Guess{{paging}}, document: []Guess{paging, deducts("openapi-hal-retry", "openapi-hal", I)},
			want: 80, grade: "B+"},
		{name: "no grade without operations", operations: 0, want: 0, grade: "N/A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Readiness(ReadinessInput{Families: []string{"openapi-hal", "problem-json"}, Rules: rules, Results: results,
				Operations: tt.operations, ByOperation: tt.byOp, Document: tt.document})
			if s.Value != tt.want || s.Grade != tt.grade {
				t.Errorf("score %d %s, want %d %s (%s)", s.Value, s.Grade, tt.want, tt.grade, s.Basis)
			}
			for _, fs := range s.Families {
				if want, ok := tt.families[fs.Family]; ok && fs.Value != want {
					t.Errorf("family %s: %d, want %d", fs.Family, fs.Value, want)
				}
				if tt.operations == 0 && fs.State != finding.FamilyNotAssessed {
					t.Errorf("family %s is %s without operations", fs.Family, fs.State)
				}
			}
		})
	}
}

func TestReadinessBasisCountsTheOperationsWithoutAGuess(t *testing.T) {
	rules := []finding.RuleInfo{rule("openapi-hal-purpose", "openapi-hal")}
	results := []finding.CheckResult{result("openapi-hal-purpose", "openapi-hal", finding.StatusFail, finding.SeverityWarning)}
	s := Readiness(ReadinessInput{Rules: rules, Results: results, Operations: 3,
		ByOperation: [][]Guess{{deducts("openapi-hal-purpose", "openapi-hal", finding.SeverityWarning)}}})
	if !strings.HasPrefix(s.Basis, "2 of 3 operations without a guess;") {
		t.Errorf("basis %q", s.Basis)
	}
	none := Readiness(ReadinessInput{Rules: rules, Results: results})
	if none.Grade != finding.GradeNotAssessed || none.Basis != "no grade: the document declares no operation" {
		t.Errorf("without operations: %+v", none)
	}
}

// Fixing a deduction never lowers the readiness score.
func TestReadinessNeverFallsWhenADeductionIsFixed(t *testing.T) {
	rules := []finding.RuleInfo{rule("openapi-hal-a", "openapi-hal"), rule("openapi-hal-b", "openapi-hal")}
	results := []finding.CheckResult{result("openapi-hal-a", "openapi-hal", finding.StatusFail, finding.SeverityWarning),
		result("openapi-hal-b", "openapi-hal", finding.StatusFail, finding.SeverityWarning)}
	sevs := []finding.Severity{finding.SeverityInfo, finding.SeverityWarning, finding.SeverityError}
	var byOp [][]Guess
	for i := range 12 {
		op := []Guess{deducts("openapi-hal-a", "openapi-hal", sevs[i%3])}
		if i%2 == 0 {
			op = append(op, deducts("openapi-hal-b", "openapi-hal", sevs[(i/2)%3]))
		}
		byOp = append(byOp, op)
	}
	grade := func(byOp [][]Guess) int {
		return Readiness(ReadinessInput{Rules: rules, Results: results, Operations: 20, ByOperation: byOp}).Value
	}
	before := grade(byOp)
	for i := range byOp {
		for j := range byOp[i] {
			fixed := make([][]Guess, len(byOp))
			copy(fixed, byOp)
			fixed[i] = append(append([]Guess{}, byOp[i][:j]...), byOp[i][j+1:]...)
			if after := grade(fixed); after < before {
				t.Errorf("fixing deduction %d of operation %d: %d, was %d", j, i, after, before)
			}
		}
	}
}
