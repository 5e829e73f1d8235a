package finding

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GradeNotAssessed is the grade of a report in which no check passed or
// failed: nothing was shown to be good or bad. Every reporter and the gate
// compare with it, never with a literal.
const GradeNotAssessed = "N/A"

// grades are the letter grades, best first. The scores that earn each one
// are grading policy and live with the grading; the names are shared
// vocabulary, which the configuration validates against.
var grades = []string{"A+", "A", "A-", "B+", "B", "B-", "C+", "C", "C-", "D+", "D", "D-", "F"}

// Grades lists every letter grade, best first.
func Grades() []string { return slices.Clone(grades) }

// ParseGrade returns the canonical spelling of a grade. It is case-insensitive
// and accepts typographic minus signs ("A−"), since grades get copied from
// rendered documents. GradeNotAssessed is accepted as the grade of an
// unassessed scan.
func ParseGrade(s string) (string, error) {
	g := strings.ToUpper(strings.TrimSpace(s))
	g = strings.NewReplacer("−", "-", "–", "-", "—", "-").Replace(g)
	if g == GradeNotAssessed {
		return g, nil
	}
	if gradeRank(g) < 0 {
		return "", fmt.Errorf("unknown grade %q (want one of %s)", s, strings.Join(grades, ", "))
	}
	return g, nil
}

// GradeAtLeast reports whether grade is minGrade or better. An unassessed
// scan meets no minimum, because nothing was shown to be good; minGrade must
// be a letter grade.
func GradeAtLeast(grade, minGrade string) (bool, error) {
	g, err := ParseGrade(grade)
	if err != nil {
		return false, err
	}
	m, err := ParseGrade(minGrade)
	if err != nil {
		return false, err
	}
	if m == GradeNotAssessed {
		return false, fmt.Errorf("minimum grade must be a letter grade, not %q", minGrade)
	}
	if g == GradeNotAssessed {
		return false, nil
	}
	return gradeRank(g) <= gradeRank(m), nil
}

// gradeRank is the position of g among the grades, best first, or -1.
func gradeRank(g string) int { return slices.Index(grades, g) }

// FailUnder is the gate's minimum: a grade, or a score when Grade is empty.
// It lives here, beside the grades, so that the configuration can validate
// it without depending on the grading.
type FailUnder struct {
	Grade string
	Score int
}

// ParseFailUnder reads "B", "a-" or "80".
func ParseFailUnder(s string) (FailUnder, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n > 100 {
			return FailUnder{}, fmt.Errorf("score %d: want 0 to 100", n)
		}
		return FailUnder{Score: n}, nil
	}
	g, err := ParseGrade(s)
	if err != nil {
		return FailUnder{}, fmt.Errorf("%q: want a letter grade (%s) or a score from 0 to 100", s, strings.Join(grades, ", "))
	}
	if g == GradeNotAssessed {
		return FailUnder{}, fmt.Errorf("%q: the minimum must be a letter grade or a score", s)
	}
	return FailUnder{Grade: g}, nil
}

// Met reports whether a scan with this grade and score passes the minimum.
// An unassessed scan meets no minimum.
func (m FailUnder) Met(grade string, score int) bool {
	if grade == GradeNotAssessed {
		return false
	}
	if m.Grade == "" {
		return score >= m.Score
	}
	ok, err := GradeAtLeast(grade, m.Grade)
	return err == nil && ok
}

func (m FailUnder) String() string {
	if m.Grade != "" {
		return "grade " + m.Grade
	}
	return "score " + strconv.Itoa(m.Score)
}
