package cli

import (
	"strings"
	"testing"
)

// TestMistypedFlagGetsASuggestion: an unknown flag close to one of the
// command's is named with it, a long flag given one dash too; one close to
// none gets no guess.
func TestMistypedFlagGetsASuggestion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scan", "--max-page", "3", "http://127.0.0.1:1/"}, "(did you mean --max-pages?)"},
		{[]string{"scan", "--fail_on=warning", "http://127.0.0.1:1/"}, "(did you mean --fail-on?)"},
		{[]string{"scan", "-max-pages", "3", "http://127.0.0.1:1/"}, "(did you mean --max-pages?)"},
		{[]string{"scan", "--insecur", "http://127.0.0.1:1/"}, "(did you mean --insecure?)"},
		{[]string{"demo", "--defetc", "x"}, "(did you mean --defect?)"},
		{[]string{"scan", "--frobnicate", "http://127.0.0.1:1/"}, ""},
	} {
		r := run(t, c.args...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, r.code, ExitUsage)
		}
		if c.want == "" && strings.Contains(r.stderr, "did you mean") || c.want != "" && !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr %q, want a suggestion %q", c.args, r.stderr, c.want)
		}
	}
}
