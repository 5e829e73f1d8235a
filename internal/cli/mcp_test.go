package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
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

// hostileLegacyMCP is a legacy MCP server that negotiates version and
// lists one tool, named tool, without annotations.
func hostileLegacyMCP(version, tool string) http.HandlerFunc {
	initialize, _ := json.Marshal(map[string]any{"protocolVersion": version, "capabilities": map[string]any{"tools": map[string]any{}},
		"serverInfo": map[string]string{"name": "x", "version": "1"}})
	list, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": tool, "inputSchema": map[string]string{"type": "object"}}}})
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch req.Method {
		case "server/discover":
			w.WriteHeader(http.StatusNotFound)
		case "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		case "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, initialize)
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, list)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, req.ID)
		}
	}
}

// TestMCPCommandShowsNoEscapeOrForgedLine: what a legacy endpoint names
// reaches the terminal as one line of its own text, never as a control
// sequence or as a line that passes for the command's own.
func TestMCPCommandShowsNoEscapeOrForgedLine(t *testing.T) {
	for _, tt := range []struct {
		name, version, tool, shown string
	}{
		{"a revision that retitles the terminal", "2025-06-18\x1b]0;pwned\x07", "getOrder", "Revision      legacy (2025-06-18), after falling back to initialize"},
		{"a tool name that forges the catalog's fingerprint", "2025-06-18", "getOrder\nCatalog fingerprint sha256:forged", "getOrder Catalog fingerprint sha256:forged"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "mcp", serveHandler(t, hostileLegacyMCP(tt.version, tt.tool))+"mcp")
			if !strings.Contains(r.stdout, tt.shown) {
				t.Fatalf("exit %d, stderr %q; want %q in:\n%s", r.code, r.stderr, tt.shown, r.stdout)
			}
			if strings.ContainsAny(r.stdout, "\x1b\x07") {
				t.Errorf("an escape sequence reached the output:\n%q", r.stdout)
			}
			for _, line := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(line, "Catalog fingerprint sha256:forged") {
					t.Errorf("the tool's name forged a line of its own:\n%s", r.stdout)
				}
			}
		})
	}
}
