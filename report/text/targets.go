package text

import (
	"bytes"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/agentready/agentready/report/internal/view"
)

// WriteTargetHeading opens the i-th of n targets' section of a run that
// scanned several, and says why a target has no report.
func (*Reporter) WriteTargetHeading(w io.Writer, i, n int, t view.Target) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "=== Target %d of %d: %s — %s ===\n\n", i+1, n, view.Line(t.Name, view.MaxTargetShown), view.Line(t.URL, view.MaxTargetShown))
	if t.Report == nil {
		fmt.Fprintf(&b, "Not scanned: %s\n\n", view.Line(t.Error, view.MaxTargetShown))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteTargetsSummary writes the table of every target and the run's
// verdict, after their sections.
func (*Reporter) WriteTargetsSummary(w io.Writer, targets []view.Target) error {
	var b bytes.Buffer
	s := view.SummarizeTargets(targets)
	fmt.Fprintf(&b, "=== Summary of %s ===\n\n", s.Headline())
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  Target\tGrade\tScore\tErrors\tWarnings\tURL\tGate")
	for _, t := range targets {
		x := view.TargetRowOf(t)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.Name, x.Grade, x.Score, x.Errors, x.Warnings, x.URL, x.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n%s\n", view.TargetsVerdict(s, targets))
	_, err := w.Write(b.Bytes())
	return err
}
