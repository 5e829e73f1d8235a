// Package targets renders the reports of several targets scanned in one run:
// each target's own report, then one summary, in the formats that have a
// combined form. Which formats those are, and how the summary looks, the
// formats say (report.SectionWriter, report.TargetsWriter); this package
// only asks. It renders; it does not scan.
package targets

import (
	"bytes"
	"fmt"
	"io"

	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/report/internal/view"
)

// Exit codes of one target, as the CLI documents them.
const (
	ExitPassed     = view.ExitPassed
	ExitGateFailed = view.ExitGateFailed
	ExitIncomplete = view.ExitIncomplete
)

// Result is the outcome of one target: its name, URL and SARIF category,
// the exit code a scan of it alone would have had, why it could not be
// scanned or judged, and its report (nil when there is none).
type Result = view.Target

// Worst is the exit code of the whole run: the worst of the targets', with
// 0 < 1 < 3, so that a target that could not be scanned is never hidden by
// another's failed gate.
func Worst(results []Result) int { return view.Worst(results) }

// reporter is format's reporter, nil for a format that does not exist.
func reporter(format string, opts report.Options) report.Reporter {
	rep, err := report.New(format, opts)
	if err != nil {
		return nil
	}
	return rep
}

// Combined reports whether format has one document for several targets;
// the others (html, junit) are written one file per target.
func Combined(format string) bool {
	switch reporter(format, report.Options{}).(type) {
	case report.SectionWriter, report.TargetsWriter:
		return true
	}
	return false
}

// Sectioned reports whether format's combined document is each target's
// report in turn and then the summary, so that it can be written as the
// targets finish.
func Sectioned(format string) bool {
	_, ok := reporter(format, report.Options{}).(report.SectionWriter)
	return ok
}

// Write renders the combined document of format.
func Write(w io.Writer, format string, opts report.Options, results []Result) error {
	switch rep := reporter(format, opts).(type) {
	case report.TargetsWriter:
		return rep.WriteTargets(w, results)
	case report.SectionWriter:
		for i, r := range results {
			if err := writeSection(w, rep, i, len(results), r); err != nil {
				return err
			}
		}
		return rep.WriteTargetsSummary(w, results)
	}
	return fmt.Errorf("%s has no combined report of several targets; put {target} in the file name", format)
}

// WriteSection renders the i-th of n targets: a heading, then its report in
// format, or why there is none.
func WriteSection(w io.Writer, format string, opts report.Options, i, n int, r Result) error {
	rep, ok := reporter(format, opts).(report.SectionWriter)
	if !ok {
		return fmt.Errorf("%s has no report of several targets written as they finish", format)
	}
	return writeSection(w, rep, i, n, r)
}

// writeSection writes the section in one call, so that a target's heading
// and report are never split between two writes.
func writeSection(w io.Writer, rep report.SectionWriter, i, n int, r Result) error {
	var buf bytes.Buffer
	if err := rep.WriteTargetHeading(&buf, i, n, r); err != nil {
		return err
	}
	if r.Report != nil {
		if err := rep.Write(&buf, r.Report); err != nil {
			return err
		}
		buf.WriteString("\n")
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteSummary renders the summary of every target and the run's verdict.
func WriteSummary(w io.Writer, format string, results []Result) error {
	rep, ok := reporter(format, report.Options{}).(report.SectionWriter)
	if !ok {
		return fmt.Errorf("%s has no summary of several targets", format)
	}
	return rep.WriteTargetsSummary(w, results)
}
