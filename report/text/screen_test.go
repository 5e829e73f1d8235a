package text

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/sample"
)

// firstScreen is what an 80×24 terminal shows of the report before it
// scrolls.
func firstScreen(out string) string {
	lines := strings.Split(out, "\n")
	return strings.Join(lines[:min(len(lines), 24)], "\n")
}

// TestFirstScreenHoldsTheVerdict: the grade, the coverage, the gate and the
// most severe findings are all on the first 24 lines at 80 columns, the
// graver check above the milder.
func TestFirstScreenHoldsTheVerdict(t *testing.T) {
	out := render(t, Options{Width: 80}, sample.Report())
	screen := firstScreen(out)
	for _, want := range []string{
		"Grade B  (75/100)  coverage 50% (2 of 4 GET operations)",
		"Gate FAILED: 1 check failed at error or above (--fail-on error)",
		"Findings: 8 (5 error, 2 warning, 1 info) in 4 checks, most severe first",
		"ERROR    5  negotiation-head-content-length  HEAD Content-Length differs…",
		"INFO     1  problem-json-status-member",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Index(screen, "negotiation-head-content-length") > strings.Index(screen, "problem-json-status-member") {
		t.Errorf("the error is not named before the info:\n%s", screen)
	}
}

// TestFirstScreenNamesAtMostEightChecks: a scan with many failed checks
// still leaves the table below them on the first screen.
func TestFirstScreenNamesAtMostEightChecks(t *testing.T) {
	r := sample.Report()
	for i := range 10 {
		id := fmt.Sprintf("problem-json-extra-%02d", i)
		r.Findings = append(r.Findings, finding.Finding{CheckID: id, Family: "problem-json", Severity: finding.SeverityInfo, Message: "m"})
	}
	out := render(t, Options{Width: 80}, r)
	screen := firstScreen(out)
	if !strings.Contains(screen, "… and 6 more checks, in the details below") {
		t.Errorf("the summary does not say how many checks it leaves out:\n%s", screen)
	}
	// Of the infos, the checks' IDs decide the order: the eighth row is
	// extra-04, and status-member comes after all ten.
	if strings.Contains(screen, "problem-json-extra-05") || !strings.Contains(screen, "problem-json-extra-04") {
		t.Errorf("the summary names other than the first eight checks:\n%s", screen)
	}
	if !strings.Contains(out, "INFO    problem-json-extra-09") || !strings.Contains(out, "INFO    problem-json-status-member") {
		t.Errorf("the details leave out a check the summary did not name:\n%s", out)
	}
}

// TestSummaryCutsTitlesToOneLine: a title too long for the line is cut at
// a word with an ellipsis, and every row stays one line.
func TestSummaryCutsTitlesToOneLine(t *testing.T) {
	r := sample.Report()
	r.Rules[0].Title = strings.Repeat("very long title ", 10)
	out := render(t, Options{Width: 80}, r)
	want := "  ERROR    5  negotiation-head-content-length  very long title very long title…\n"
	if !strings.Contains(out, want) {
		t.Errorf("want the title cut to %q in:\n%s", want, out)
	}
}

// TestLastLineRepeatsTheVerdict: the report's last line is the grade, the
// gate and the counts, for a terminal that scrolled the first screen away.
func TestLastLineRepeatsTheVerdict(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(*finding.Report)
		want string
	}{
		{"gate failed", func(*finding.Report) {}, "grade B (75) · gate failed (--fail-on error) · 8 findings: 5 error, 2 warning, 1 info"},
		{"no gate", func(r *finding.Report) { r.Gate = nil }, "grade B (75) · 8 findings: 5 error, 2 warning, 1 info"},
		{"gate passed on a minimum", func(r *finding.Report) {
			r.Gate = &finding.Gate{FailOn: finding.SeverityNone, FailUnder: "C", MinCoverage: 40, Passed: true}
		}, "grade B (75) · gate passed (--fail-under C, --min-coverage 40) · 8 findings: 5 error, 2 warning, 1 info"},
		{"no grade, no findings", func(r *finding.Report) {
			r.Score.Grade, r.Findings = finding.GradeNotAssessed, nil
		}, "grade N/A · gate failed (--fail-on error) · no findings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := sample.Report()
			tt.edit(r)
			out := strings.TrimSuffix(render(t, Options{Width: 200}, r), "\n")
			if last := out[strings.LastIndex(out, "\n")+1:]; last != tt.want {
				t.Errorf("last line %q, want %q", last, tt.want)
			}
		})
	}
}

// TestSkippedChecksCountedByReason: without Verbose, skipped checks are
// counted per reason, most common first, and none is named; Verbose names
// each. An errored check is named either way.
func TestSkippedChecksCountedByReason(t *testing.T) {
	r := sample.Report()
	for _, id := range []string{"mcp-a", "mcp-b", "mcp-c"} {
		r.Checks = append(r.Checks, finding.CheckResult{ID: id, Family: "mcp", Status: finding.StatusSkip, Reason: "no MCP endpoint given (use --mcp URL)"})
	}
	r.Checks = append(r.Checks, finding.CheckResult{ID: "mcp-d", Family: "mcp", Status: finding.StatusSkip, Reason: "another reason"})

	out := render(t, Options{Width: 100}, r)
	for _, want := range []string{
		"  skipped, by reason (-v names each check):\n    4  no MCP endpoint given (use --mcp URL)\n    1  another reason\n",
		"errored  problem-json-type-uri  problem body is not a JSON object",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	for _, id := range []string{"mcp-a", "mcp-d", "mcp-tools-list"} {
		if strings.Contains(out, id) {
			t.Errorf("a skipped check, %s, is named without Verbose:\n%s", id, out)
		}
	}

	out = render(t, Options{Width: 100, Verbose: true}, r)
	for _, want := range []string{"skipped  mcp-a", "skipped  mcp-d", "skipped  mcp-tools-list", "passed   negotiation-not-acceptable"} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "by reason") {
		t.Errorf("verbose counts by reason as well as naming each:\n%s", out)
	}

	// The eight most common reasons are counted, and the rest summed.
	for i := range 9 {
		r.Checks = append(r.Checks, finding.CheckResult{ID: fmt.Sprintf("mcp-x%d", i), Family: "mcp", Status: finding.StatusSkip, Reason: fmt.Sprintf("reason %d", i)})
	}
	out = render(t, Options{Width: 100}, r)
	if want := "    1  reason 5\n    … and 3 more for 3 other reasons\n"; !strings.Contains(out, want) || strings.Contains(out, "reason 6") {
		t.Errorf("missing %q, or a ninth reason, in:\n%s", want, out)
	}

	// Too narrow for the reason beside the longest ID: it goes below.
	out = render(t, Options{Width: 40, Verbose: true}, r)
	for _, want := range []string{"  errored  problem-json-type-uri\n    problem body is not a JSON object\n", "  passed  negotiation-not-acceptable\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("at 40 columns, missing %q in:\n%s", want, out)
		}
	}
}

// TestFamilyNotesFollowTheTableWhenNarrow: the notes are the table's last
// column while it has room, and lines of their own below it otherwise.
func TestFamilyNotesFollowTheTableWhenNarrow(t *testing.T) {
	wide := render(t, Options{Width: 100}, sample.Report())
	if !strings.Contains(wide, "  problem-json  A      95     0       2       0        1        graded on 2 of 3 checks\n") {
		t.Errorf("at 100 columns the note is not the row's last column:\n%s", wide)
	}
	narrow := render(t, Options{Width: 64}, sample.Report())
	if !strings.Contains(narrow, "  problem-json  A      95     0       2       0        1\n") ||
		!strings.Contains(narrow, "  problem-json: graded on 2 of 3 checks\n") {
		t.Errorf("at 64 columns the note does not follow the table:\n%s", narrow)
	}
}

func TestWrapLinesKeepsEveryCharacter(t *testing.T) {
	for _, s := range []string{
		"short",
		"a line of words that needs more than one line at this width, and then a third one",
		"GET https://api.example.com/a/very/long/path/that/fits/no/line/whatever/the/width/is/given → 404",
		"padded  columns  keep    their   runs of spaces when they fit",
	} {
		for _, w := range [][2]int{{20, 20}, {30, 24}, {80, 76}} {
			got := wrapLines(s, w[0], w[1])
			for i, line := range got {
				limit := w[1]
				if i == 0 {
					limit = w[0]
				}
				if n := len([]rune(line)); n > limit {
					t.Errorf("wrapLines(%q, %d, %d): line %d has %d columns", s, w[0], w[1], i, n)
				}
			}
			if strip(strings.Join(got, "")) != strip(s) {
				t.Errorf("wrapLines(%q, %d, %d) lost or added characters: %q", s, w[0], w[1], got)
			}
		}
	}
	if got := wrapLines("padded  columns", 80, 80); got[0] != "padded  columns" {
		t.Errorf("a run of spaces inside a line was not kept: %q", got)
	}
}

func strip(s string) string { return strings.ReplaceAll(s, " ", "") }

func TestCutTo(t *testing.T) {
	for _, tt := range []struct {
		s     string
		width int
		want  string
	}{
		{"fits as it is", 20, "fits as it is"},
		{"cut after a word when one ends late", 20, "cut after a word…"},
		{"averyveryverylongword", 10, "averyvery…"},
	} {
		if got := cutTo(tt.s, tt.width); got != tt.want {
			t.Errorf("cutTo(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
		}
	}
}
