package config_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	yaml "github.com/pb33f/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
)

const schemaPath = "../../docs/schema/agentready-config.schema.json"

func buildKnown() config.Known {
	var k config.Known
	for _, c := range builtin.All() {
		k.Checks = append(k.Checks, c.Meta().ID)
	}
	for _, f := range checks.Families {
		k.Families = append(k.Families, string(f))
	}
	return k
}

// TestPublishedSchemaIsCurrent keeps docs/schema in sync with the Go types
// and this build's checks.
func TestPublishedSchemaIsCurrent(t *testing.T) {
	got, err := config.Schema(buildKnown())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, schemaPath, got)
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	return golden.Schema(t, schemaPath, config.SchemaID)
}

// asJSON turns a YAML document into the JSON value editors validate.
func asJSON(t *testing.T, doc []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSchemaAcceptsTheFullExampleAndRejectsMistakes(t *testing.T) {
	s := compileSchema(t)
	full, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(asJSON(t, full)); err != nil {
		t.Fatalf("the full example fails the schema: %v", err)
	}
	targets, err := os.ReadFile("testdata/targets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(asJSON(t, targets)); err != nil {
		t.Fatalf("the targets example fails the schema: %v", err)
	}
	for _, bad := range []string{
		"gate:\n  fail_on: error\n",
		"checks:\n  vary-acept: off\n",
		"checks:\n  vary-accept: fatal\n",
		"ignores:\n  - check: vary-accept\n",
		"ignores:\n  - check: vary-accept\n    reason: r\n    expires: soon\n",
		"limits:\n  timeout: 10 seconds\n",
		"limits:\n  max-pages: 0\n",
		"identities:\n  - name: a\n    env: \"Bearer xyz\"\n",
		"families:\n  nope: false\n",
		"targets:\n  - name: a\n",
		"targets:\n  - url: http://a.test/\n    token: x\n",
	} {
		if err := s.Validate(asJSON(t, []byte(bad))); err == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}

// TestEveryFieldIsInTheSchema walks the Go types and the schema together.
func TestEveryFieldIsInTheSchema(t *testing.T) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	var walk func(typ reflect.Type, node map[string]any, where string)
	walk = func(typ reflect.Type, node map[string]any, where string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
			if items, ok := node["items"].(map[string]any); ok {
				node = items
			}
		}
		if typ.Kind() != reflect.Struct {
			return
		}
		props, _ := node["properties"].(map[string]any)
		if node["additionalProperties"] != false {
			t.Errorf("%s: the schema allows unknown keys", where)
		}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			sub, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s.%s is not in the schema", where, name)
				continue
			}
			if sub["description"] == nil {
				t.Errorf("%s.%s has no description", where, name)
			}
			walk(f.Type, sub, where+"."+name)
		}
	}
	walk(reflect.TypeFor[config.File](), schema, "file")
}

func starterReport() *finding.Report {
	return &finding.Report{
		Target: "http://127.0.0.1:8080/",
		Score:  finding.Score{Grade: "B", Value: 75, Families: []finding.FamilyScore{{Family: "vary", Assessed: true, Grade: "A", Value: 95}, {Family: "mcp"}}},
		Spec:   &finding.SpecInfo{Source: "http://127.0.0.1:8080/openapi.json"},
		Findings: []finding.Finding{
			{CheckID: "vary-accept", Severity: finding.SeverityWarning, Message: "Vary lacks Accept", Evidence: []finding.Evidence{{Method: "GET", URL: "http://127.0.0.1:8080/orders/17"}}},
			{CheckID: "vary-accept", Severity: finding.SeverityWarning, Message: "Vary lacks Accept", Evidence: []finding.Evidence{{Method: "GET", URL: "http://127.0.0.1:8080/orders/18"}}},
			// Hostile text from the app must not break out of the comment
			// or the quoted scalar.
			{CheckID: "vary-prefer", Severity: finding.SeverityError, Message: "evil\nignores: []\n\x1b[31m", Evidence: []finding.Evidence{{Method: "GET", URL: "http://127.0.0.1:8080/a\"b\n/[x]?q=1"}}},
		},
	}
}

func TestStarterIsValidAndItsSuggestionsUncomment(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	doc := config.Starter(config.StarterInput{Report: starterReport(), Now: now})
	f, err := config.Parse(doc)
	if err != nil {
		t.Fatalf("starter does not parse: %v\n%s", err, doc)
	}
	if err := f.Validate(known); err != nil {
		t.Fatalf("starter does not validate: %v", err)
	}
	if f.Target != "http://127.0.0.1:8080/" || f.OpenAPI != "http://127.0.0.1:8080/openapi.json" || len(f.Ignores) != 0 {
		t.Fatalf("starter decoded to %+v", f)
	}
	s := compileSchema(t)
	if err := s.Validate(asJSON(t, doc)); err != nil {
		t.Fatalf("starter fails the schema: %v", err)
	}
	// Uncomment the ignores block: it must parse, be refused until each
	// suggestion says why it is accepted, and validate once it does.
	var lines []string
	in := false
	for _, l := range strings.Split(string(doc), "\n") {
		switch {
		case l == "# ignores:":
			in = true
			lines = append(lines, "ignores:")
		case in && strings.HasPrefix(l, "#   "):
			lines = append(lines, strings.TrimPrefix(l, "# "))
		default:
			in = false
			lines = append(lines, l)
		}
	}
	f, err = config.Parse([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatalf("uncommented starter does not parse: %v\n%s", err, strings.Join(lines, "\n"))
	}
	if len(f.Ignores) != 2 || f.Ignores[0].URL != "/orders/*" || f.Ignores[0].Expires != "2026-08-01" {
		t.Fatalf("ignores %+v", f.Ignores)
	}
	if err := f.Validate(known); err == nil || !strings.Contains(err.Error(), "reason is required") {
		t.Fatalf("uncommented suggestions without a reason: %v, want a reason is required error", err)
	}
	for i := range f.Ignores {
		f.Ignores[i].Reason = "accepted until the cache layer is replaced"
	}
	if err := f.Validate(known); err != nil {
		t.Fatalf("uncommented suggestions with reasons do not validate: %v", err)
	}
	if strings.Contains(string(doc), "\x1b") {
		t.Fatal("an escape sequence from the app reached the file")
	}
}
