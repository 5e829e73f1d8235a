package jsonreport

import (
	"bytes"
	"encoding/json"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentready/agentready/internal/finding"
)

// SchemaID is where the published schema of the report lives.
const SchemaID = "https://github.com/agentready/agentready/raw/main/docs/schema/agentready-report.schema.json"

// Schema renders the JSON Schema (draft 2020-12) of what Write produces,
// inferred from finding.Report so that the two cannot drift. It describes
// this version's reports exactly: unknown properties are refused, so a
// report must be validated with the schema of the version that wrote it.
func Schema() ([]byte, error) {
	s, err := jsonschema.For[finding.Report](&jsonschema.ForOptions{TypeSchemas: textSchemas()})
	if err != nil {
		return nil, err
	}
	version := any(finding.SchemaVersion)
	s.Properties["schemaVersion"].Const = &version
	body, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(schemaHead{
		Schema:      "https://json-schema.org/draft/2020-12/schema",
		ID:          SchemaID,
		Title:       "agentready JSON report",
		Description: "Written by `agentready scan --format json`; docs/report-schema.md says what each field means.",
	})
	if err != nil {
		return nil, err
	}
	// The library puts these keywords after the properties; a reader looks
	// for them first.
	joined := append(append(head[:len(head)-1], ','), body[1:]...)
	var out bytes.Buffer
	if err := json.Indent(&out, joined, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

type schemaHead struct {
	Schema      string `json:"$schema"`
	ID          string `json:"$id"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

// textSchemas are the types that marshal as strings rather than as their Go
// kind, each with the values it can take, and raw JSON, which marshals as
// whatever value it holds (the snapshot's input schemas).
func textSchemas() map[reflect.Type]*jsonschema.Schema {
	var severities []any
	for s := finding.SeverityNone; s <= finding.SeverityError; s++ {
		severities = append(severities, s.String())
	}
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[finding.Severity](): {Type: "string", Enum: severities},
		reflect.TypeFor[finding.CheckStatus](): {Type: "string", Enum: []any{
			finding.StatusPass, finding.StatusFail, finding.StatusSkip, finding.StatusError,
		}},
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[json.RawMessage](): {Description: "Any JSON value, as the app declared it."},
	}
}
