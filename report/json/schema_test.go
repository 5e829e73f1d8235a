package jsonreport

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/internal/sample"
)

var (
	schemaPath = filepath.Join(golden.Root(), "docs", "schema", "agentready-report.schema.json")
	docPath    = filepath.Join(golden.Root(), "docs", "report-schema.md")
)

func TestPublishedSchemaIsCurrent(t *testing.T) {
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, schemaPath, got)
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	return golden.Schema(t, schemaPath, SchemaID)
}

// TestReportsConformToTheSchema validates every committed JSON report, the
// demo's scans among them, the sample that fills every field and the
// hostile one.
func TestReportsConformToTheSchema(t *testing.T) {
	s := compileSchema(t)
	reports, err := filepath.Glob(golden.Path("*", "report.json"))
	if err != nil || len(reports) < 3 {
		t.Fatalf("found the JSON goldens %v (%v), want at least 3", reports, err)
	}
	validate := func(name string, b []byte) {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s does not conform to the schema: %v", name, err)
		}
	}
	for _, path := range reports {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		validate(path, b)
	}
	validate("the full sample", write(t, sample.Full()))
	validate("the hostile sample", write(t, sample.Hostile()))
}

func TestSchemaRefusesWhatNoReportHas(t *testing.T) {
	s := compileSchema(t)
	var rep map[string]any
	if err := json.Unmarshal(write(t, sample.Report()), &rep); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(map[string]any){
		"another schemaVersion": func(r map[string]any) { r["schemaVersion"] = 2 },
		"an unknown field":      func(r map[string]any) { r["grade"] = "A" },
		"no findings":           func(r map[string]any) { delete(r, "findings") },
		"a numeric severity": func(r map[string]any) {
			r["findings"].([]any)[0].(map[string]any)["severity"] = 3
		},
		"an unknown status": func(r map[string]any) {
			r["checks"].([]any)[0].(map[string]any)["status"] = "passed"
		},
		"a date that is not one": func(r map[string]any) { r["startedAt"] = "yesterday" },
	} {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		var bad map[string]any
		if err := json.Unmarshal(b, &bad); err != nil {
			t.Fatal(err)
		}
		mutate(bad)
		if err := s.Validate(bad); err == nil {
			t.Errorf("the schema accepts a report with %s", name)
		}
	}
}

// TestDocumentsEveryTopLevelField holds docs/report-schema.md's table of
// top-level fields to the schema, both ways.
func TestDocumentsEveryTopLevelField(t *testing.T) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	documented := tableFields(string(doc), "## Top level")
	if len(documented) == 0 {
		t.Fatal("docs/report-schema.md has no table under \"## Top level\"")
	}
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		if !slices.Contains(documented, name) {
			t.Errorf("docs/report-schema.md does not document the top-level field %q", name)
		}
	}
	for _, name := range documented {
		if _, ok := schema.Properties[name]; !ok {
			t.Errorf("docs/report-schema.md documents %q, which the report does not have", name)
		}
	}
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// tableFields returns the names in backquotes in the first column of the
// table that follows heading.
func tableFields(doc, heading string) []string {
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var names []string
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	return names
}
