package scan_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// TestDemoDiscoveryIsAssessed proves the conformant demo is clean because
// its documents were read and found right, not because they were skipped.
func TestDemoDiscoveryIsAssessed(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantScanned).rep
	skipped := map[string]string{}
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.ID, "discovery-") && c.Status == finding.StatusSkip {
			skipped[c.ID] = c.Reason
		}
	}
	for id, reason := range skipped {
		t.Logf("%s skipped: %s", id, reason)
	}
	// What the demo does not publish on purpose: a legacy-only card, and an
	// HTML page without a twin (its root has one).
	for _, id := range []string{"discovery-robots-syntax", "discovery-llms-dead-links", "discovery-api-catalog-links",
		"discovery-agent-card-skills", "discovery-agent-card-interfaces", "discovery-markdown-charset",
		"discovery-markdown-vary", "discovery-markdown-dead-links", "discovery-service-desc", "discovery-robots-blocks-advertised"} {
		if reason, ok := skipped[id]; ok {
			t.Errorf("%s was skipped on the demo: %s", id, reason)
		}
	}
}

// TestDemoWithSpecHasNoDiscoveryWarnings repeats the conformance test with
// the OpenAPI document discovered, which the spec-driven rules need.
func TestDemoWithSpecHasNoDiscoveryWarnings(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantDiscovered).rep
	for _, f := range rep.Findings {
		if f.Family == "discovery" || f.Family == "surface" {
			t.Errorf("demo has %s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
	for _, c := range rep.Checks {
		if c.ID == "discovery-robots-blocks-advertised" || c.ID == "discovery-service-desc-missing" || c.ID == "surface-renamed" {
			if c.Status != finding.StatusPass {
				t.Errorf("%s: %s %s", c.ID, c.Status, c.Reason)
			}
		}
	}
}

// TestDemoSurfaceMatrix checks that the demo's projections, derived from one
// operation table, name every agent-facing operation alike.
func TestDemoSurfaceMatrix(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantDiscovered).rep
	m := rep.Surface
	if m == nil {
		t.Fatal("no surface matrix in the report")
	}
	col := map[string]int{}
	for i, p := range m.Projections {
		col[p.Name] = i
		if p.Name != "MCP tools" && !p.Assessed {
			t.Errorf("%s not assessed: %s", p.Name, p.Reason)
		}
	}
	for _, r := range m.Rows {
		if !r.InOpenAPI {
			t.Errorf("row %s is not in OpenAPI", r.Operation)
			continue
		}
		id := r.Names[col["OpenAPI"]]
		if r.Operation == "GET /" || r.Operation == "GET /openapi.json" {
			continue
		}
		for _, p := range []string{"llms.txt", "agent card"} {
			if got := r.Names[col[p]]; len(got) != 1 || got[0] != id[0] {
				t.Errorf("%s: %s names %v, OpenAPI %v", r.Operation, p, got, id)
			}
		}
	}
}
