package scan_test

import (
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// TestDemoMCPCardIsReconciled proves the conformant demo's card is clean
// because it was read and reconciled with the MCP endpoint, not skipped.
func TestDemoMCPCardIsReconciled(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantDiscovered).rep
	for _, c := range rep.Checks {
		switch c.ID {
		case "discovery-mcp-card-format", "discovery-mcp-card-remotes", "discovery-ai-catalog":
			if c.Status != finding.StatusPass {
				t.Errorf("%s: %s %s", c.ID, c.Status, c.Reason)
			}
		}
	}
	for _, f := range rep.Findings {
		if f.Family == "discovery" {
			t.Errorf("demo has %s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
}
