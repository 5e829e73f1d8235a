package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// houseRules holds rules the conformant demo keeps, one on each target
// but the MCP catalog, and one that its MCP catalog breaks.
const houseRules = `rules:
  get-has-operation-id:
    target: spec
    given: "$.paths[*].get"
    severity: error
    then: {field: operationId, function: defined}
  link-has-href:
    target: hal-link
    given: "$"
    then: {field: href, function: truthy}
  vary-on-accept:
    description: Every response that declares Vary names Accept in it
    target: exchange
    given: "$.headers"
    severity: error
    then: {field: Vary, function: pattern, functionOptions: {match: "(?i)\\baccept\\b"}}
  house-tool-prefix:
    target: mcp-tool
    given: "$"
    severity: warning
    then: {field: name, function: pattern, functionOptions: {match: "^acme_"}}
`

// TestHouseRuleFiresOnAFixtureAndIsSilentOnTheDemo judges the demo and the
// demo without Vary: Accept with the same rules, from the shared recordings
// of their scans: house rules are checks, which a replay runs as a scan does.
func TestHouseRuleFiresOnAFixtureAndIsSilentOnTheDemo(t *testing.T) {
	cfg := writeConfig(t, houseRules)
	dir := t.TempDir()
	scanRules := func(name string, recording func() ([]byte, error)) *finding.Report {
		out := filepath.Join(dir, name+".json")
		sarif := filepath.Join(dir, name+".sarif")
		r := run(t, "scan", "--config", cfg, "-q", "-o", "json="+out, "-o", "sarif="+sarif, "--replay", copyOf(t, recording, name+".har"))
		if r.code == ExitUsage || r.code == ExitIncomplete {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		b, err := os.ReadFile(sarif)
		if err != nil || !strings.Contains(string(b), `"id": "custom-vary-on-accept"`) {
			t.Errorf("%s: the SARIF rules lack custom-vary-on-accept (%v)", name, err)
		}
		return readJSONReport(t, out)
	}
	status := func(rep *finding.Report, id string) (string, int) {
		for _, c := range rep.Checks {
			if c.ID == id {
				return string(c.Status), c.Findings
			}
		}
		return "absent", 0
	}

	conformant := scanRules("demo", demoRecording)
	for _, id := range []string{"custom-vary-on-accept", "custom-get-has-operation-id", "custom-link-has-href"} {
		if s, n := status(conformant, id); s != "pass" {
			t.Errorf("demo: %s %s with %d findings, want pass", id, s, n)
		}
	}
	if s, n := status(conformant, "custom-house-tool-prefix"); s != "fail" || n == 0 {
		t.Errorf("demo: custom-house-tool-prefix %s with %d findings; its tools have no acme_ prefix", s, n)
	}
	graded := false
	for _, fam := range conformant.Score.Families {
		graded = graded || fam.Family == "custom" && fam.State == finding.FamilyGraded
	}
	if !graded {
		t.Errorf("the custom family is not graded: %+v", conformant.Score.Families)
	}

	broken := scanRules("novary", noVaryAcceptRecording)
	if s, n := status(broken, "custom-vary-on-accept"); s != "fail" || n == 0 {
		t.Errorf("no-vary-accept: custom-vary-on-accept %s with %d findings, want fail", s, n)
	}
	for _, f := range broken.Findings {
		if f.CheckID == "custom-vary-on-accept" {
			ev := f.Evidence[0]
			if ev.JSONPath != "$['headers']['Vary']" || ev.Method != "GET" || ev.Status == 0 || ev.ResponseHeaders.Get("Vary") == "" {
				t.Errorf("evidence %+v", ev)
			}
			break
		}
	}
}

func TestHouseRulesInChecksAndExplain(t *testing.T) {
	cfg := writeConfig(t, houseRules)
	r := run(t, "--config", cfg, "checks")
	if r.code != ExitOK || !strings.Contains(r.stdout, "custom-vary-on-accept") || !strings.Contains(r.stdout, "custom-house-tool-prefix") {
		t.Fatalf("checks: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, "--config", cfg, "checks", "--format", "json")
	var rules []finding.RuleInfo
	if err := json.Unmarshal([]byte(r.stdout), &rules); err != nil {
		t.Fatal(err)
	}
	r = run(t, "--config", cfg, "explain", "custom-vary-on-accept")
	for _, want := range []string{"Every response that declares Vary names Accept in it", "Family:   custom", "Severity: error", "house rule §rules.vary-on-accept", "docs/custom-rules.md"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := run(t, "explain", "custom-vary-on-accept"); r.code != ExitUsage {
		t.Errorf("explain without the configuration: exit %d", r.code)
	}
	// A severity override and an ignore may name a rule's check.
	cfg = writeConfig(t, houseRules+"checks:\n  custom-house-tool-prefix: off\n")
	if r := run(t, "--config", cfg, "config", "check"); r.code != ExitOK || !strings.Contains(r.stdout, "4 rule(s)") {
		t.Errorf("config check: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestMalformedRuleIsAConfigErrorWithItsLine(t *testing.T) {
	for _, c := range []struct {
		name, rules string
		want        []string
	}{
		{"a key the file format does not know stops the decoding", `rules:
  ok-rule:
    target: spec
    given: "$"
    then: {function: truthy}
  bad-key:
    target: spec
    given: "$"
    then: {function: truthy, options: {}}
`, []string{`line 9: unknown key "options" in rules.bad-key.then`}},
		{"every rule's own defect is told, each at its line", `rules:
  bad-regex:
    target: exchange
    given: "$.headers"
    then:
      field: Vary
      function: pattern
      functionOptions: {match: "(accept"}
  Not_Kebab:
    target: spec
    given: "$"
    then: {function: truthy}
`, []string{
			`line 8, column 32: rules.bad-regex.then[0].functionOptions.match: error parsing regexp: missing closing )`,
			`line 9, column 3: rules.Not_Kebab: a rule ID is kebab-case`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "--config", writeConfig(t, c.rules), "config", "check")
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d: %s", r.code, ExitUsage, r.stderr)
			}
			for _, want := range c.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}

// TestLintRunsRulesOnTheDocument: a rule on the document needs no scan.
func TestLintRunsRulesOnTheDocument(t *testing.T) {
	cfg := writeConfig(t, `rules:
  post-idempotency-key:
    target: spec
    given: "$.paths[*].post"
    then:
      function: schema
      functionOptions:
        schema: {required: [parameters], properties: {parameters: {contains: {properties: {in: {const: header}, name: {const: Idempotency-Key}}, required: [in, name]}}}}
`)
	doc := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(doc, []byte(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      parameters:
        - {in: header, name: Idempotency-Key, schema: {type: string}}
      responses:
        "201": {description: created}
  /refunds:
    post:
      responses:
        "201": {description: created}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "lint.json")
	r := run(t, "--config", cfg, "lint", "-q", "-o", "json="+out, doc)
	if r.code == ExitUsage || r.code == ExitIncomplete {
		t.Fatalf("lint: exit %d: %s", r.code, r.stderr)
	}
	var got []string
	for _, f := range readJSONReport(t, out).Findings {
		if f.CheckID == "custom-post-idempotency-key" {
			got = append(got, f.Evidence[0].JSONPath)
			if f.Location == nil || f.Location.Line != 11 {
				t.Errorf("location %+v, want line 11", f.Location)
			}
		}
	}
	if len(got) != 1 || got[0] != "$['paths']['/refunds']['post']" {
		t.Errorf("findings at %q, want the /refunds POST only", got)
	}
}
