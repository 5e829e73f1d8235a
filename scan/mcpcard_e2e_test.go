package scan_test

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/fixtures/demo"
)

// mcpCardDefects need the MCP probe's verdict to reconcile the card with, so
// they are scanned with the MCP family and spec discovery on, and only the
// discovery family's findings are compared.
var mcpCardDefects = map[demo.Defect][]string{
	demo.DefectMCPCardWrongRemote:      {"discovery-mcp-card-remotes"},
	demo.DefectMCPCardUnspokenRevision: {"discovery-mcp-card-remotes"},
	demo.DefectMCPCardNoVersion:        {"discovery-mcp-card-format"},
	demo.DefectAICatalogDeadCard:       {"discovery-ai-catalog"},
}

var _ = func() bool {
	for _, ids := range mcpCardDefects {
		for _, id := range ids {
			coveredElsewhere[id] = true
		}
	}
	return true
}()

func TestMCPCardDefects(t *testing.T) {
	for d, want := range mcpCardDefects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(demo.New(d))
			defer srv.Close()
			var got []string
			for _, id := range firedChecks(scanDiscovering(t, srv)) {
				if strings.HasPrefix(id, "discovery-") {
					got = append(got, id)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("fired %v, want %v", got, want)
			}
		})
	}
}

// TestDemoMCPCardIsReconciled proves the conformant demo's card is clean
// because it was read and reconciled with the MCP endpoint, not skipped.
func TestDemoMCPCardIsReconciled(t *testing.T) {
	srv := httptest.NewServer(demo.New())
	defer srv.Close()
	rep := scanDiscovering(t, srv)
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
