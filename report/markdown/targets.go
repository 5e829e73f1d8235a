package markdown

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agentready/agentready/report/internal/view"
)

// WriteTargetHeading opens the i-th of n targets' section of a run that
// scanned several, and says why a target has no report.
func (*Reporter) WriteTargetHeading(w io.Writer, i, n int, t view.Target) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Target %d of %d: %s\n\n%s\n\n", i+1, n, text(t.Name, view.MaxTargetShown), text(t.URL, view.MaxTargetShown))
	if t.Report == nil {
		fmt.Fprintf(&b, "**Not scanned:** %s\n\n", text(t.Error, view.MaxTargetShown))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteTargetsSummary writes the table of every target and the run's
// verdict, after their sections. Every cell is escaped: an error message
// may quote the scanned app.
func (*Reporter) WriteTargetsSummary(w io.Writer, targets []view.Target) error {
	var b bytes.Buffer
	s := view.SummarizeTargets(targets)
	fmt.Fprintf(&b, "# Summary of %s\n\n", s.Headline())
	b.WriteString("| Target | Grade | Score | Errors | Warnings | Gate | URL |\n| --- | :---: | ---: | ---: | ---: | --- | --- |\n")
	for _, t := range targets {
		x := view.TargetRowOf(t)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", text(x.Name, view.MaxTargetShown), x.Grade, x.Score, x.Errors, x.Warnings,
			text(x.Verdict, view.MaxTargetShown), text(x.URL, view.MaxTargetShown))
	}
	fmt.Fprintf(&b, "\n%s\n", text(view.TargetsVerdict(s, targets), 2*view.MaxTargetShown))
	_, err := w.Write(b.Bytes())
	return err
}
