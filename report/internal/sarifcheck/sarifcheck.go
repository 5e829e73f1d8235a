// Package sarifcheck holds the two validity checks every SARIF file the
// tests produce must pass: the official SARIF 2.1.0 schema, vendored in
// testdata/sarif, and GitHub code scanning's ingestion rules.
package sarifcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/sarif"
)

// schemaPath is the official OASIS schema, vendored once; see its README.
var schemaPath = filepath.Join(golden.Root(), "testdata", "sarif", "sarif-schema-2.1.0.json")

const schemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// CompileSchema compiles the vendored schema once.
var CompileSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	f, err := os.Open(schemaPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // uri, uri-reference and date-time are checked too
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaID)
})

// Schema fails t when b does not conform to the SARIF 2.1.0 schema.
func Schema(t *testing.T, b []byte) {
	t.Helper()
	sch, err := CompileSchema()
	if err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("output violates the SARIF 2.1.0 schema:\n%v", err)
	}
}

// GitHubRules applies GitHub code scanning's ingestion rules, which are
// stricter than the schema: every result has a file location with a
// relative URI and a start line, required strings are non-empty, rule
// descriptions fit in 1,024 characters, and result and rule counts are
// within the limits.
func GitHubRules(t *testing.T, b []byte) {
	t.Helper()
	log := decode(t, b)
	if log.Version != "2.1.0" || log.Schema == "" {
		t.Errorf("version %q, $schema %q", log.Version, log.Schema)
	}
	// GitHub refuses a log with two runs of one tool under one category.
	categories := map[string]bool{}
	for i, run := range log.Runs {
		if run.AutomationDetails != nil {
			if categories[run.AutomationDetails.ID] {
				t.Errorf("run %d repeats automationDetails.id %q", i, run.AutomationDetails.ID)
			}
			categories[run.AutomationDetails.ID] = true
		}
		gitHubRun(t, run)
	}
}

func gitHubRun(t *testing.T, run sarif.Run) {
	t.Helper()
	if run.Tool.Driver.Name == "" {
		t.Error("tool.driver.name is empty")
	}
	if run.AutomationDetails == nil || run.AutomationDetails.ID == "" {
		t.Error("no automationDetails.id: several uploads would overwrite each other")
	}
	if len(run.Results) > sarif.MaxResults || len(run.Tool.Driver.Rules) > 25000 {
		t.Errorf("%d results, %d rules: over GitHub's limits", len(run.Results), len(run.Tool.Driver.Rules))
	}
	ids := map[string]bool{}
	for i, r := range run.Tool.Driver.Rules {
		where := fmt.Sprintf("rule %d (%s)", i, r.ID)
		requireText(t, where+" id", r.ID)
		requireText(t, where+" shortDescription", r.ShortDescription.Text)
		requireText(t, where+" fullDescription", r.FullDescription.Text)
		requireText(t, where+" help.text", r.Help.Text)
		for name, s := range map[string]string{"shortDescription": r.ShortDescription.Text, "fullDescription": r.FullDescription.Text} {
			if n := utf8.RuneCountInString(s); n > 1024 {
				t.Errorf("%s %s has %d characters, over 1024", where, name, n)
			}
		}
		if n := utf8.RuneCountInString(r.Name); n > 255 {
			t.Errorf("%s name has %d characters, over 255", where, n)
		}
		if len(r.Properties.Tags) > 10 {
			t.Errorf("%s has %d tags; GitHub shows 10", where, len(r.Properties.Tags))
		}
		if ids[r.ID] {
			t.Errorf("duplicate rule id %s", r.ID)
		}
		ids[r.ID] = true
	}
	for i, res := range run.Results {
		where := fmt.Sprintf("result %d (%s)", i, res.RuleID)
		requireText(t, where+" ruleId", res.RuleID)
		requireText(t, where+" message.text", res.Message.Text)
		if res.RuleIndex < 0 || res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("%s: ruleIndex %d does not point at its rule", where, res.RuleIndex)
		}
		if len(res.Locations) == 0 {
			t.Errorf("%s has no location: GitHub would not show it", where)
			continue
		}
		pl := res.Locations[0].PhysicalLocation
		uri := pl.ArtifactLocation.URI
		u, err := url.Parse(uri)
		switch {
		case uri == "":
			t.Errorf("%s: empty artifactLocation.uri", where)
		case err != nil || u.IsAbs() || strings.HasPrefix(uri, "/") || strings.HasPrefix(uri, "../") || u.Host != "":
			t.Errorf("%s: artifactLocation.uri %q is not repository-relative", where, uri)
		}
		if pl.Region.StartLine < 1 {
			t.Errorf("%s: region.startLine %d", where, pl.Region.StartLine)
		}
		if res.PartialFingerprints["primaryLocationLineHash"] == "" {
			t.Errorf("%s: no primaryLocationLineHash", where)
		}
	}
}

// requireText fails t when s, a field SARIF consumers show, is blank.
func requireText(t *testing.T, what, s string) {
	t.Helper()
	if strings.TrimSpace(s) == "" {
		t.Errorf("%s is empty", what)
	}
}

func decode(t *testing.T, b []byte) *sarif.Log {
	t.Helper()
	var log sarif.Log
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(log.Runs) == 0 {
		t.Fatal("no run")
	}
	return &log
}
