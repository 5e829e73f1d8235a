package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

var ruleWithMarkdown = finding.RuleInfo{
	ID: "negotiation-specificity", Family: "negotiation", Severity: finding.SeverityWarning,
	Title: "The most specific range decides a type's weight",
	SpecRefs: []finding.SpecRef{
		{Doc: "RFC 9110", Section: "12.5.1", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.1"},
	},
	Help: "In `application/*;q=0.9` the weight is read as *not templated*, which a long sentence\n" +
		"carries on to the next line of the source and past the width of the terminal it is shown on.\n\n" +
		"Two things matter:\n- the first item\n  continued here\n- the second item\n\n" +
		"**How to fix:** use the most specific range (type/*, then */*).",
	DocsURL: "https://github.com/agentready/agentready/blob/main/docs/checks.md#negotiation-specificity",
}

func writeRule(t *testing.T, opts Options, r finding.RuleInfo, preface string) string {
	t.Helper()
	var b bytes.Buffer
	if err := New(opts).WriteRule(&b, r, preface); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestExplainRendersTheHelpsMarkdown: the Markdown markers become styles,
// paragraphs are joined and wrapped, list items keep their dash, and stars
// that are no emphasis stay.
func TestExplainRendersTheHelpsMarkdown(t *testing.T) {
	out := writeRule(t, Options{Width: 80}, ruleWithMarkdown, "")
	for _, want := range []string{
		"negotiation-specificity — The most specific range decides a type's weight\n",
		"Severity: warning\n",
		// One column too wide for the clause and its URL side by side.
		"  - RFC 9110 §12.5.1 (MUST)\n    https://www.rfc-editor.org/rfc/rfc9110#section-12.5.1\n",
		"In `application/*;q=0.9` the weight is read as not templated, which a long\nsentence carries on",
		"\nTwo things matter:\n- the first item continued here\n- the second item\n\n",
		"How to fix: use the most specific range (type/*, then */*).\n",
		"Docs:\n  https://github.com/agentready/agentready/blob/main/docs/checks.md#negotiation-specificity\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "**") || strings.Contains(out, "*not") {
		t.Errorf("Markdown markers are left:\n%s", out)
	}

	colored := writeRule(t, Options{Width: 80, Color: true}, ruleWithMarkdown, "")
	if strings.Contains(colored, "`") || !strings.Contains(colored, "\x1b[") {
		t.Errorf("in colour, code spans are not set apart by style alone:\n%q", colored)
	}
}

func TestExplainFitsTheWidth(t *testing.T) {
	for _, width := range []int{40, 80} {
		out := writeRule(t, Options{Width: width}, ruleWithMarkdown, "negotiation-specificity-old was renamed negotiation-specificity; overrides, ignores and baselines that name it apply to it.")
		if !strings.HasPrefix(out, "negotiation-specificity-old was renamed") {
			t.Errorf("the preface is not said first:\n%s", out)
		}
		for _, line := range strings.Split(out, "\n") {
			// A URL alone on its line is kept whole, for the terminal to
			// recognise it.
			if strings.HasPrefix(strings.TrimSpace(line), "https://") {
				continue
			}
			if n := len([]rune(line)); n > width {
				t.Errorf("width %d: line of %d columns: %q", width, n, line)
			}
		}
	}
}

func TestChecksListSideBySideOrStacked(t *testing.T) {
	rules := []finding.RuleInfo{
		ruleWithMarkdown,
		{ID: "vary-accept", Family: "vary", Severity: finding.SeverityError, Title: "Responses that depend on Accept list Accept in Vary", Documents: []string{"openapi"}},
	}
	write := func(width int) string {
		var b bytes.Buffer
		if err := New(Options{Width: width}).WriteRules(&b, rules); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	wide := write(200)
	for _, want := range []string{
		"negotiation (1 check; each needs a live scan)\n  warning  negotiation-specificity  The most specific range decides a type's weight\n",
		"vary (1 check; lint runs each on documents alone)\n  error    vary-accept              Responses that depend on Accept list Accept in Vary\n",
	} {
		if !strings.Contains(wide, want) {
			t.Errorf("at 200 columns, missing %q in:\n%s", want, wide)
		}
	}
	narrow := write(80)
	if want := "  warning  negotiation-specificity\n           The most specific range decides a type's weight\n"; !strings.Contains(narrow, want) {
		t.Errorf("at 80 columns, missing %q in:\n%s", want, narrow)
	}
}
