package finding_test

import (
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func TestParseGrade(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"A+", "A+", true}, {" b- ", "B-", true}, {"a−", "A-", true}, {"n/a", finding.GradeNotAssessed, true},
		{"E", "", false}, {"", "", false}, {"A++", "", false},
	}
	for _, tt := range tests {
		got, err := finding.ParseGrade(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseGrade(%q) = %q, %v; want %q ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestGradeAtLeast(t *testing.T) {
	tests := []struct {
		grade, min string
		want       bool
		wantErr    bool
	}{
		{"A+", "A+", true, false},
		{"A", "A+", false, false},
		{"B+", "B", true, false},
		{"B-", "B", false, false},
		{"F", "F", true, false},
		{"N/A", "F", false, false},
		{"A", "N/A", false, true},
		{"Z", "A", false, true},
		{"A", "Z", false, true},
	}
	for _, tt := range tests {
		got, err := finding.GradeAtLeast(tt.grade, tt.min)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("GradeAtLeast(%q, %q) = %v, %v; want %v err=%v", tt.grade, tt.min, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestFailUnder(t *testing.T) {
	for _, tt := range []struct {
		min, grade string
		score      int
		met        bool
	}{
		{"B", "A", 95, true}, {"B", "B", 70, true}, {"B", "B-", 65, false}, {"b", "N/A", 0, false},
		{"80", "B+", 80, true}, {"80", "B", 79, false}, {"0", "N/A", 0, false},
	} {
		m, err := finding.ParseFailUnder(tt.min)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Met(tt.grade, tt.score); got != tt.met {
			t.Errorf("minimum %s, grade %s score %d: met=%v, want %v", tt.min, tt.grade, tt.score, got, tt.met)
		}
	}
}

func TestParseFailUnderRefusesWhatIsNoMinimum(t *testing.T) {
	for _, in := range []string{"N/A", "101", "-1", "E", ""} {
		if m, err := finding.ParseFailUnder(in); err == nil {
			t.Errorf("ParseFailUnder(%q) = %+v, want an error", in, m)
		}
	}
}
