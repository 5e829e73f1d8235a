// Package targets renders the reports of several targets scanned in one run:
// each target's own report, then one summary, in the formats that have a
// combined form (text, Markdown, JSON, SARIF). It renders; it does not scan.
package targets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/report"
	"github.com/agentready/agentready/report/json"
	"github.com/agentready/agentready/report/sarif"
)

// SchemaVersion is the version of the combined JSON document, apart from
// the version of the reports it holds (finding.SchemaVersion).
const SchemaVersion = 1

// Exit codes of one target, as the CLI documents them.
const (
	ExitPassed     = 0
	ExitGateFailed = 1
	ExitIncomplete = 3
)

// Result is the outcome of one target.
type Result struct {
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
func Worst(results []Result) int {
	worst := ExitPassed
	for _, r := range results {
		if rank(r.ExitCode) > rank(worst) {
			worst = r.ExitCode
		}
	}
	return worst
}

func rank(code int) int {
	switch code {
	case ExitPassed:
		return 0
	case ExitGateFailed:
		return 1
	}
	return 2
}

// Combined reports whether format has one document for several targets;
// the others (html, junit) are written one file per target.
func Combined(format string) bool {
	switch format {
	case "text", "markdown", "json", "sarif":
		return true
	}
	return false
}

// Sectioned reports whether format's combined document is each target's
// report in turn and then the summary, so that it can be written as the
// targets finish.
func Sectioned(format string) bool { return format == "text" || format == "markdown" }

// Write renders the combined document of format.
func Write(w io.Writer, format string, opts report.Options, results []Result) error {
	switch format {
	case "json":
		return writeJSON(w, results)
	case "sarif":
		return writeSARIF(w, opts, results)
	case "text", "markdown":
		for i, r := range results {
			if err := WriteSection(w, format, opts, i, len(results), r); err != nil {
				return err
			}
		}
		return WriteSummary(w, format, results)
	}
	return fmt.Errorf("%s has no combined report of several targets; put {target} in the file name", format)
}

// WriteSection renders the i-th of n targets: a heading, then its report in
// format, or why there is none.
func WriteSection(w io.Writer, format string, opts report.Options, i, n int, r Result) error {
	var buf bytes.Buffer
	if format == "markdown" {
		markdownHeading(&buf, i, n, r)
	} else {
		textHeading(&buf, i, n, r)
	}
	if r.Report != nil {
		rep, err := report.New(format, opts)
		if err != nil {
			return err
		}
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
	var buf bytes.Buffer
	if format == "markdown" {
		markdownSummary(&buf, results)
	} else {
		textSummary(&buf, results)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// document is the combined JSON report; docs/report-schema.md describes it.
type document struct {
	TargetsSchemaVersion int       `json:"targetsSchemaVersion"`
	Summary              summary   `json:"summary"`
	Targets              []element `json:"targets"`
}

type summary struct {
	ExitCode   int    `json:"exitCode"`
	Outcome    string `json:"outcome"`
	Targets    int    `json:"targets"`
	Passed     int    `json:"passed"`
	GateFailed int    `json:"gateFailed"`
	Incomplete int    `json:"incomplete"`
}

type element struct {
	Name          string          `json:"name"`
	URL           string          `json:"url"`
	SARIFCategory string          `json:"sarifCategory"`
	ExitCode      int             `json:"exitCode"`
	Outcome       string          `json:"outcome"`
	Error         string          `json:"error,omitempty"`
	Report        json.RawMessage `json:"report"`
}

func summarize(results []Result) summary {
	s := summary{ExitCode: Worst(results), Targets: len(results)}
	s.Outcome = Outcome(s.ExitCode)
	for _, r := range results {
		switch r.ExitCode {
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

func writeJSON(w io.Writer, results []Result) error {
	doc := document{TargetsSchemaVersion: SchemaVersion, Summary: summarize(results), Targets: []element{}}
	for _, r := range results {
		el := element{Name: r.Name, URL: r.URL, SARIFCategory: r.Category, ExitCode: r.ExitCode, Outcome: Outcome(r.ExitCode), Error: r.Error,
			Report: json.RawMessage("null")}
		if r.Report != nil {
			// The report is the one jsonreport writes, byte for byte but for
			// indentation, so that `jq .targets[0].report` is a report.
			var buf bytes.Buffer
			if err := jsonreport.New().Write(&buf, r.Report); err != nil {
				return err
			}
			el.Report = buf.Bytes()
		}
		doc.Targets = append(doc.Targets, el)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// writeSARIF writes one log with one run per scanned target, each under the
// target's own category, so that GitHub code scanning keeps their alerts
// apart and closes one target's alerts only when that target is scanned
// again. A target without a report has no run: it has no results to close.
func writeSARIF(w io.Writer, opts report.Options, results []Result) error {
	log := &sarif.Log{Schema: sarif.SchemaURI, Version: sarif.Version, Runs: []sarif.Run{}}
	for _, r := range results {
		if r.Report == nil {
			continue
		}
		one, err := sarif.New(sarif.Options{Anchor: opts.SARIFAnchor, Category: r.Category, BaseDir: opts.BaseDir}).Build(r.Report)
		if err != nil {
			return fmt.Errorf("target %s: %w", r.Name, err)
		}
		log.Runs = append(log.Runs, one.Runs...)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("sarif report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
