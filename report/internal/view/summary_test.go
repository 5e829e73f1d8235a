package view

import "testing"

func TestGradedOnCountsWhatTheGradeRestsOn(t *testing.T) {
	for _, c := range []struct {
		s    Summary
		want string
	}{
		{Summary{Total: 10, Passed: 7, Failed: 1, Skipped: 1, Errored: 1}, "graded on 8 of 10 checks (1 skipped, 1 errored)"},
		{Summary{Total: 3, Passed: 2, Skipped: 1}, "graded on 2 of 3 checks (1 skipped)"},
		{Summary{Total: 2, Failed: 1, Errored: 1}, "graded on 1 of 2 checks (1 errored)"},
		{Summary{Total: 4, Passed: 4}, "graded on 4 of 4 checks"},
	} {
		if got := c.s.GradedOn("checks"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
