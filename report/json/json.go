// Package jsonreport writes and reads the JSON report, the format baselines
// and `report convert` are built on. docs/report-schema.md describes it.
// It sits in report/json beside the other formats, and keeps the name
// jsonreport so that it and its importers use encoding/json unaliased.
package jsonreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentready/agentready/internal/finding"
)

// Reporter writes a report as indented JSON.
type Reporter struct{}

// New returns the JSON reporter. It has no options: JSON is never colored and
// never wrapped.
func New() *Reporter { return &Reporter{} }

// Write encodes r with two-space indentation and a trailing newline. The
// output is deterministic: struct fields keep their declared order and
// encoding/json sorts map keys. HTML characters are left as they are, so URLs
// stay readable; consumers that embed the JSON in HTML escape it themselves.
func (*Reporter) Write(w io.Writer, r *finding.Report) error {
	if r == nil {
		return errors.New("json report: nil report")
	}
	if r.Findings == nil || r.Rules == nil || r.Checks == nil {
		// Consumers iterate these (jq '.findings[]'); an empty list, never
		// null, whatever the scan saw.
		copied := *r
		copied.Findings = nonNil(r.Findings)
		copied.Rules = nonNil(r.Rules)
		copied.Checks = nonNil(r.Checks)
		r = &copied
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Bounds on a report read back. A report may come from another CI job or a
// pull request, so it is hostile: its size is bounded before it is read
// whole, and its nesting before anything is decoded. The largest real
// reports nest about 15 levels (an MCP tool's input schema is the deepest
// part) and weigh a few MiB.
const (
	MaxSize  = 256 << 20
	MaxDepth = 64
)

// Read decodes a report written by Write and checks that this build can
// understand it. Unknown fields are accepted, because additive changes keep
// the schema version; a different schemaVersion is refused, as is a report
// over MaxSize bytes or nested deeper than MaxDepth.
func Read(r io.Reader) (*finding.Report, error) { return read(r, MaxSize) }

func read(r io.Reader, maxSize int64) (*finding.Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	if int64(len(data)) > maxSize {
		return nil, fmt.Errorf("read report: larger than %d bytes", maxSize)
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	if err := checkVersion(data); err != nil {
		return nil, err
	}
	var rep finding.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	return &rep, nil
}

// checkDepth refuses data nested deeper than MaxDepth. It counts brackets
// outside strings in one pass over the bytes, before any decoder builds
// anything (encoding/json follows 10,000 levels); what is not JSON is left
// to the decoder to refuse.
func checkDepth(data []byte) error {
	depth := 0
	inString, escaped := false, false
	for i, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return fmt.Errorf("read report: nested deeper than %d levels (at byte %d)", MaxDepth, i)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// checkVersion looks at schemaVersion alone first, so that a report from
// another schema gets a clear message instead of a type error from a field
// that changed. It also rejects what is not one JSON value, trailing data
// included.
func checkVersion(data []byte) error {
	var head struct {
		SchemaVersion        *int `json:"schemaVersion"`
		TargetsSchemaVersion *int `json:"targetsSchemaVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("read report: not a JSON report: %w", err)
	}
	switch {
	case head.SchemaVersion == nil && head.TargetsSchemaVersion != nil:
		// Read as one report it would be empty: a baseline of nothing.
		return errors.New(`read report: this is the combined report of several targets; take one target's with jq '.targets[] | select(.name == "NAME") | .report'`)
	case head.SchemaVersion == nil:
		return errors.New("read report: no schemaVersion; is this an agentready JSON report?")
	case *head.SchemaVersion > finding.SchemaVersion:
		return fmt.Errorf("read report: schemaVersion %d is newer than the %d this version reads; upgrade agentready",
			*head.SchemaVersion, finding.SchemaVersion)
	case *head.SchemaVersion != finding.SchemaVersion:
		return fmt.Errorf("read report: unsupported schemaVersion %d (this version reads %d)",
			*head.SchemaVersion, finding.SchemaVersion)
	}
	return nil
}
