package cli

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
)

func TestMCPCommand(t *testing.T) {
	base := serve(t)
	r := run(t, "mcp", base+"mcp")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"Revision      modern (2026-07-28)", "server/discover", "getOrder", "[read-only]", "{id*: integer}", "Catalog fingerprint sha256:", "tokens by o200k_base"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, r.stdout)
		}
	}

	r = run(t, "mcp", "--format", "json", base+"mcp")
	var info finding.MCPInfo
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || r.code != ExitOK {
		t.Fatalf("exit %d, %v:\n%s", r.code, err, r.stdout)
	}
	if info.Era != "modern" || len(info.Tools) == 0 || info.CatalogFingerprint == "" || len(info.Steps) != 1 {
		t.Errorf("json %+v", info)
	}
}

func TestMCPCommandExitCodes(t *testing.T) {
	refused := httptest.NewServer(demo.New(demo.DefectMCPDiscover401))
	defer refused.Close()
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"401 is not downgraded", []string{"mcp", refused.URL + "/mcp"}, ExitIncomplete, "no fallback"},
		{"not an MCP endpoint", []string{"mcp", serve(t) + "orders"}, ExitIncomplete, "not an MCP endpoint"},
		{"unreachable", []string{"mcp", "http://127.0.0.1:1/mcp"}, ExitIncomplete, "no fallback"},
		{"bad URL", []string{"mcp", "ftp://x/mcp"}, ExitUsage, "absolute http or https URL"},
		{"bad format", []string{"mcp", "--format", "xml", "http://x/mcp"}, ExitUsage, "--format"},
		{"scan with a bad --mcp", []string{"scan", "--mcp", "nope", serve(t)}, ExitUsage, "MCP endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.err) {
				t.Errorf("exit %d, stderr %q; want %d with %q", r.code, r.stderr, tt.code, tt.err)
			}
		})
	}
}

func TestScanWithMCPFlag(t *testing.T) {
	base := serve(t)
	r := run(t, "scan", "--format", "json", "--mcp", base+"mcp", base)
	var rep finding.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stderr)
	}
	if rep.MCP == nil || rep.MCP.Source != "--mcp" || rep.MCP.Era != "modern" {
		t.Errorf("MCP section %+v", rep.MCP)
	}
}
