package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// The reports of several targets scanned in one run end with one summary;
// these give every format that has one the same rows and the same words.

// Exit codes of one target, as the CLI documents them.
const (
	ExitPassed     = 0
	ExitGateFailed = 1
	ExitIncomplete = 3
)

// Bounds on the strings of a summary: an error message may quote the
// scanned app. MaxTargetCause keeps a row of a table readable; the whole
// cause is in the target's report and on stderr.
const (
	MaxTargetShown = 200
	MaxTargetCause = 90
)

// Target is the outcome of one target.
type Target struct {
	Name string
	URL  string
	// Category is the SARIF category (automationDetails.id) of its run.
	Category string
	// ExitCode is what a scan of this target alone would have exited with:
	// ExitPassed, ExitGateFailed or ExitIncomplete.
	ExitCode int
	// Error says why the target could not be scanned or judged; "" when the
	// scan completed.
	Error string
	// Report is nil when the scan failed before one could be made.
	Report *finding.Report
}

// Outcome names an exit code in the summary.
func Outcome(code int) string {
	switch code {
	case ExitPassed:
		return "passed"
	case ExitGateFailed:
		return "gate-failed"
	}
	return "incomplete"
}

// Worst is the exit code of the whole run: the worst of the targets', with
// 0 < 1 < 3, so that a target that could not be scanned is never hidden by
// another's failed gate.
func Worst(targets []Target) int {
	worst := ExitPassed
	for _, t := range targets {
		if exitRank(t.ExitCode) > exitRank(worst) {
			worst = t.ExitCode
		}
	}
	return worst
}

func exitRank(code int) int {
	switch code {
	case ExitPassed:
		return 0
	case ExitGateFailed:
		return 1
	}
	return 2
}

// TargetsSummary counts the targets by outcome.
type TargetsSummary struct {
	ExitCode, Targets, Passed, GateFailed, Incomplete int
}

// SummarizeTargets counts the outcomes of a run.
func SummarizeTargets(targets []Target) TargetsSummary {
	s := TargetsSummary{ExitCode: Worst(targets), Targets: len(targets)}
	for _, t := range targets {
		switch t.ExitCode {
		case ExitPassed:
			s.Passed++
		case ExitGateFailed:
			s.GateFailed++
		default:
			s.Incomplete++
		}
	}
	return s
}

// Headline counts the outcomes: "2 targets: 1 passed, 1 gate failed".
func (s TargetsSummary) Headline() string {
	parts := []string{fmt.Sprintf("%d passed", s.Passed)}
	if s.GateFailed > 0 {
		parts = append(parts, fmt.Sprintf("%d gate failed", s.GateFailed))
	}
	if s.Incomplete > 0 {
		parts = append(parts, fmt.Sprintf("%d incomplete", s.Incomplete))
	}
	return fmt.Sprintf("%d targets: %s", s.Targets, strings.Join(parts, ", "))
}

// TargetsVerdict says what the run's exit code is and which targets decide
// it.
func TargetsVerdict(s TargetsSummary, targets []Target) string {
	var which []string
	for _, t := range targets {
		if t.ExitCode == s.ExitCode {
			which = append(which, Line(t.Name, MaxTargetShown))
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

// TargetRow is one target's line of the summary, each cell one safe line.
type TargetRow struct {
	Name, Grade, Score, Errors, Warnings, Verdict, URL string
}

// TargetRowOf fills a target's row; "-" stands for what a target without a
// report does not have.
func TargetRowOf(t Target) TargetRow {
	out := TargetRow{Name: Line(t.Name, MaxTargetShown), Grade: "-", Score: "-", Errors: "-", Warnings: "-", URL: Line(t.URL, MaxTargetShown)}
	if rep := t.Report; rep != nil {
		out.Grade = Grade(rep)
		if out.Grade != finding.GradeNotAssessed {
			out.Score = strconv.Itoa(rep.Score.Value)
		}
		e, w := errorsAndWarnings(rep)
		out.Errors, out.Warnings = strconv.Itoa(e), strconv.Itoa(w)
	}
	switch {
	case t.ExitCode == ExitPassed:
		out.Verdict = "passed"
	case t.ExitCode == ExitGateFailed:
		out.Verdict = "gate failed"
	case t.Report == nil:
		out.Verdict = "not scanned: " + Line(t.Error, MaxTargetCause)
	default:
		out.Verdict = "incomplete: " + Line(t.Error, MaxTargetCause)
	}
	return out
}

func errorsAndWarnings(rep *finding.Report) (errors, warnings int) {
	for _, c := range SeverityCounts(rep) {
		switch c.Severity {
		case finding.SeverityError:
			errors = c.Count
		case finding.SeverityWarning:
			warnings = c.Count
		}
	}
	return errors, warnings
}
