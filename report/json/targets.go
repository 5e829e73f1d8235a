package jsonreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentready/agentready/report/internal/view"
)

// TargetsSchemaVersion is the version of the combined document of several
// targets, apart from the version of the reports it holds
// (finding.SchemaVersion).
const TargetsSchemaVersion = 1

// targetsDocument is the combined report of several targets;
// docs/report-schema.md describes it.
type targetsDocument struct {
	TargetsSchemaVersion int             `json:"targetsSchemaVersion"`
	Summary              targetsSummary  `json:"summary"`
	Targets              []targetElement `json:"targets"`
}

type targetsSummary struct {
	ExitCode   int    `json:"exitCode"`
	Outcome    string `json:"outcome"`
	Targets    int    `json:"targets"`
	Passed     int    `json:"passed"`
	GateFailed int    `json:"gateFailed"`
	Incomplete int    `json:"incomplete"`
}

type targetElement struct {
	Name          string          `json:"name"`
	URL           string          `json:"url"`
	SARIFCategory string          `json:"sarifCategory"`
	ExitCode      int             `json:"exitCode"`
	Outcome       string          `json:"outcome"`
	Error         string          `json:"error,omitempty"`
	Report        json.RawMessage `json:"report"`
}

// WriteTargets writes one document holding every target's report and a
// summary of their outcomes.
func (rp *Reporter) WriteTargets(w io.Writer, targets []view.Target) error {
	s := view.SummarizeTargets(targets)
	doc := targetsDocument{
		TargetsSchemaVersion: TargetsSchemaVersion,
		Summary: targetsSummary{ExitCode: s.ExitCode, Outcome: view.Outcome(s.ExitCode), Targets: s.Targets,
			Passed: s.Passed, GateFailed: s.GateFailed, Incomplete: s.Incomplete},
		Targets: []targetElement{},
	}
	for _, t := range targets {
		el := targetElement{Name: t.Name, URL: t.URL, SARIFCategory: t.Category, ExitCode: t.ExitCode, Outcome: view.Outcome(t.ExitCode), Error: t.Error,
			Report: json.RawMessage("null")}
		if t.Report != nil {
			// The report is the one Write writes, byte for byte but for
			// indentation, so that `jq .targets[0].report` is a report.
			var buf bytes.Buffer
			if err := rp.Write(&buf, t.Report); err != nil {
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
