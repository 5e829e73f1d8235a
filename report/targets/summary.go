package targets

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report/internal/view"
	"github.com/agentready/agentready/report/markdown"
)

// maxShown bounds the strings of the summary; an error message may quote
// the scanned app. maxCause keeps a row of the table readable: the whole
// cause is in the target's report and on stderr.
const (
	maxShown = 200
	maxCause = 90
)

func textHeading(b *bytes.Buffer, i, n int, r Result) {
	fmt.Fprintf(b, "=== Target %d of %d: %s — %s ===\n\n", i+1, n, view.Line(r.Name, maxShown), view.Line(r.URL, maxShown))
	if r.Report == nil {
		fmt.Fprintf(b, "Not scanned: %s\n\n", view.Line(r.Error, maxShown))
	}
}

func markdownHeading(b *bytes.Buffer, i, n int, r Result) {
	fmt.Fprintf(b, "# Target %d of %d: %s\n\n%s\n\n", i+1, n, markdown.Text(r.Name, maxShown), markdown.Text(r.URL, maxShown))
	if r.Report == nil {
		fmt.Fprintf(b, "**Not scanned:** %s\n\n", markdown.Text(r.Error, maxShown))
	}
}

// row is one target's line of the summary.
type row struct {
	name, grade, score, errors, warnings, verdict, url string
}

func rowOf(r Result) row {
	out := row{name: view.Line(r.Name, maxShown), grade: "-", score: "-", errors: "-", warnings: "-", url: view.Line(r.URL, maxShown)}
	if rep := r.Report; rep != nil {
		out.grade = view.Grade(rep)
		if out.grade != finding.GradeNotAssessed {
			out.score = strconv.Itoa(rep.Score.Value)
		}
		e, w := severities(rep)
		out.errors, out.warnings = strconv.Itoa(e), strconv.Itoa(w)
	}
	switch {
	case r.ExitCode == ExitPassed:
		out.verdict = "passed"
	case r.ExitCode == ExitGateFailed:
		out.verdict = "gate failed"
	case r.Report == nil:
		out.verdict = "not scanned: " + view.Line(r.Error, maxCause)
	default:
		out.verdict = "incomplete: " + view.Line(r.Error, maxCause)
	}
	return out
}

func severities(rep *finding.Report) (errors, warnings int) {
	for _, f := range rep.Findings {
		switch f.Severity {
		case finding.SeverityError:
			errors++
		case finding.SeverityWarning:
			warnings++
		}
	}
	return errors, warnings
}

// headline counts the outcomes: "2 targets: 1 passed, 1 gate failed".
func headline(s summary) string {
	parts := []string{fmt.Sprintf("%d passed", s.Passed)}
	if s.GateFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d gate failed", s.GateFailed))
	}
	if s.Incomplete > 0 {
		parts = append(parts, fmt.Sprintf("%d incomplete", s.Incomplete))
	}
	return fmt.Sprintf("%d targets: %s", s.Targets, strings.Join(parts, ", "))
}

// verdict says what the exit code is and which targets decide it.
func verdict(s summary, results []Result) string {
	var which []string
	for _, r := range results {
		if r.ExitCode == s.ExitCode {
			which = append(which, view.Line(r.Name, maxShown))
		}
	}
	switch s.ExitCode {
	case ExitPassed:
		return "Exit 0: every target passed its gate"
	case ExitGateFailed:
		return "Exit 1: the gate failed for " + strings.Join(which, ", ")
	}
	return fmt.Sprintf("Exit %d: not every target could be scanned or judged (%s); see their reports and the notes", s.ExitCode, strings.Join(which, ", "))
}

func textSummary(b *bytes.Buffer, results []Result) {
	s := summarize(results)
	fmt.Fprintf(b, "=== Summary of %s ===\n\n", headline(s))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  Target\tGrade\tScore\tErrors\tWarnings\tURL\tGate")
	for _, r := range results {
		x := rowOf(r)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.name, x.grade, x.score, x.errors, x.warnings, x.url, x.verdict)
	}
	tw.Flush()
	fmt.Fprintf(b, "\n%s\n", verdict(s, results))
}

func markdownSummary(b *bytes.Buffer, results []Result) {
	s := summarize(results)
	fmt.Fprintf(b, "# Summary of %s\n\n", headline(s))
	b.WriteString("| Target | Grade | Score | Errors | Warnings | Gate | URL |\n| --- | :---: | ---: | ---: | ---: | --- | --- |\n")
	for _, r := range results {
		x := rowOf(r)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", markdown.Text(x.name, maxShown), x.grade, x.score, x.errors, x.warnings,
			markdown.Text(x.verdict, maxShown), markdown.Text(x.url, maxShown))
	}
	fmt.Fprintf(b, "\n%s\n", markdown.Text(verdict(s, results), 2*maxShown))
}
