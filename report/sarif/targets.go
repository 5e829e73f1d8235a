package sarif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentready/agentready/report/internal/view"
)

// WriteTargets writes one log with one run per scanned target, each under
// the target's own category, so that GitHub code scanning keeps their
// alerts apart and closes one target's alerts only when that target is
// scanned again. A target without a report has no run: it has no results
// to close.
func (rp *Reporter) WriteTargets(w io.Writer, targets []view.Target) error {
	log := &Log{Schema: SchemaURI, Version: Version, Runs: []Run{}}
	for _, t := range targets {
		if t.Report == nil {
			continue
		}
		opts := rp.opts
		opts.Category = t.Category
		one, err := New(opts).Build(t.Report)
		if err != nil {
			return fmt.Errorf("target %s: %w", t.Name, err)
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
