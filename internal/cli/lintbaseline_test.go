package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// outputChanges are changes to the output side of drift-base.yaml: each
// breaking one must fail both lint --baseline (against a baseline file or
// the earlier document) and report diff; a property added must not.
var outputChanges = []struct {
	name, old, new string
	breaking       bool
	check          string
}{
	{"response property removed", "                  note: {type: string}\n", "", true, "drift-response-schema"},
	{"enum narrowed", "[open, paid, cancelled]", "[open, paid]", true, "drift-response-schema"},
	{"declared 409 dropped", `        "409":
          description: the order can no longer be cancelled
          content:
            application/problem+json:
              schema: {type: object, properties: {type: {type: string}}}
`, "", true, "drift-problem-types"},
	{"response property added", "                  note: {type: string}\n", "                  note: {type: string}\n                  total: {type: number}\n", false, "drift-response-schema"},
}

func TestLintBaselineGatesOutputDrift(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	orig, err := os.ReadFile(specs + "drift-base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	baseDoc := filepath.Join(dir, "openapi.yaml")
	write(t, baseDoc, string(orig))
	if r := run(t, "lint", "-q", "--write-baseline", base, baseDoc); r.code != ExitOK {
		t.Fatalf("write-baseline: exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, "lint", "-q", "--baseline", base, baseDoc); r.code != ExitOK {
		t.Errorf("the document against its own baseline: exit %d: %s", r.code, r.stderr)
	}
	for _, c := range outputChanges {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(string(orig), c.old) {
				t.Fatalf("drift-base.yaml has no %q", c.old)
			}
			sub := t.TempDir()
			changed := filepath.Join(sub, "openapi.yaml")
			write(t, changed, strings.Replace(string(orig), c.old, c.new, 1))
			want := ExitOK
			if c.breaking {
				want = ExitGateFailed
			}
			for _, against := range []string{base, baseDoc} {
				out := filepath.Join(sub, "r.json")
				r := run(t, "lint", "-q", "--baseline", against, "-o", "json="+out, changed)
				if r.code != want {
					t.Errorf("lint --baseline %s: exit %d, want %d: %s", filepath.Base(against), r.code, want, r.stderr)
				}
				var fired []string
				for _, f := range readJSONReport(t, out).Findings {
					if f.Family == finding.DriftFamily {
						fired = append(fired, f.CheckID+" "+f.Severity.String())
					}
				}
				severity := "info"
				if c.breaking {
					severity = "error"
				}
				if strings.Join(fired, ",") != c.check+" "+severity {
					t.Errorf("lint --baseline %s: drift findings %v, want %s %s", filepath.Base(against), fired, c.check, severity)
				}
			}
			next := filepath.Join(sub, "next.json")
			if r := run(t, "lint", "-q", "--write-baseline", next, changed); r.code != ExitOK {
				t.Fatalf("write-baseline: exit %d: %s", r.code, r.stderr)
			}
			if r := run(t, "report", "diff", base, next); r.code != want || !strings.Contains(r.stdout, c.check) {
				t.Errorf("report diff: exit %d, want %d:\n%s%s", r.code, want, r.stdout, r.stderr)
			}
		})
	}
}

// TestReportDiffGatesOutputSchema: a tool's outputSchema that loses a
// property fails report diff; one that gains a property does not.
func TestReportDiffGatesOutputSchema(t *testing.T) {
	dir := t.TempDir()
	report := func(name, output string) string {
		rep := map[string]any{
			"schemaVersion": finding.SchemaVersion, "target": "http://api.test/", "findings": []any{},
			"snapshot": map[string]any{"mcp": map[string]any{
				"endpoint": "http://api.test/mcp", "outputSchemas": true,
				"tools": map[string]any{"getOrder": map[string]any{"fingerprint": "sha256:" + name, "outputSchema": json.RawMessage(output)}},
			}},
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name+".json")
		write(t, path, string(raw))
		return path
	}
	base := report("base", `{"type":"object","properties":{"id":{"type":"integer"},"state":{"type":"string"}}}`)
	for _, c := range []struct {
		name, output string
		want         int
	}{
		{"removed", `{"type":"object","properties":{"id":{"type":"integer"}}}`, ExitGateFailed},
		{"retyped", `{"type":"object","properties":{"id":{"type":"string"},"state":{"type":"string"}}}`, ExitGateFailed},
		{"added", `{"type":"object","properties":{"id":{"type":"integer"},"state":{"type":"string"},"total":{"type":"number"}}}`, ExitOK},
	} {
		r := run(t, "report", "diff", base, report(c.name, c.output))
		if r.code != c.want || !strings.Contains(r.stdout, "drift-output-schema") {
			t.Errorf("%s: exit %d, want %d:\n%s%s", c.name, r.code, c.want, r.stdout, r.stderr)
		}
	}
}

func TestLintBaselineRefusals(t *testing.T) {
	dir := t.TempDir()
	noSurface := filepath.Join(dir, "old.json")
	write(t, noSurface, `{"schemaVersion": 1, "findings": []}`)
	notEither := filepath.Join(dir, "notes.txt")
	write(t, notEither, "just notes\n")
	for _, c := range []struct {
		name, baseline, stderr string
	}{
		{"a baseline without an OpenAPI surface", noSurface, "records no OpenAPI surface"},
		{"neither a baseline nor a document", notEither, "neither a baseline nor an OpenAPI document"},
		{"missing", filepath.Join(dir, "nope.json"), "neither a baseline nor an OpenAPI document"},
	} {
		r := run(t, "lint", "--baseline", c.baseline, specs+"drift-base.yaml")
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%s: exit %d: %s", c.name, r.code, r.stderr)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
