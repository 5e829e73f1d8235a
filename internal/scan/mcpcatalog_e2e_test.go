package scan_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/agentready/agentready/fixtures/mcpfix"
	"github.com/agentready/agentready/internal/scan"
)

// stubTools are two conformant tools, the second with an MCP Apps interface.
var stubTools = []json.RawMessage{
	json.RawMessage(`{"name":"listOrders","description":"Lists the orders","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`),
	json.RawMessage(`{"name":"showBoard","description":"Shows the order board","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"ui":{"resourceUri":"ui://orders/board"}}}`),
}

// scanStub scans an app whose only face is the MCP stub at /mcp, given as
// the scan's MCP endpoint, and returns the MCP checks that fired.
func scanStub(t *testing.T, fix *mcpfix.Server) []string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", fix)
	mux.Handle("/", http.NotFoundHandler())
	srv := httptest.NewServer(mux)
	defer srv.Close()
	return mcpFired(scanServer(t, srv, scan.Options{MCPEndpoint: srv.URL + "/mcp"}))
}

// TestCatalogListedAgainAfterTheOtherRequests runs the stub servers through
// a whole scan: a catalog that changes by the third listing without
// listChanged, and an interface listed but not served, are reported; the
// same server with a fixed catalog and its interface served is not.
func TestCatalogListedAgainAfterTheOtherRequests(t *testing.T) {
	t.Parallel()
	for _, era := range []mcpfix.Era{mcpfix.Modern, mcpfix.Legacy} {
		changing := &mcpfix.Server{Era: era, Tools: stubTools, Capabilities: `{"tools":{},"resources":{}}`,
			ToolsFrom: stubTools[:1], ToolsFromListing: 3,
			Resources: []json.RawMessage{json.RawMessage(`{"uri":"ui://orders/board","name":"board","mimeType":"text/html;profile=mcp-app"}`)}}
		got := scanStub(t, changing)
		for _, want := range []string{"mcp-capabilities-consistent", "mcp-catalog-stable", "mcp-list-changed-declared"} {
			if !slices.Contains(got, want) {
				t.Errorf("era %d: %s did not fire on the changing stub: %v", era, want, got)
			}
		}
		if m := changing.Methods(); !slices.Contains(m, "resources/read") || slices.Contains(m, "tools/call") {
			t.Errorf("era %d: methods %v", era, m)
		}
		fixed := &mcpfix.Server{Era: era, Tools: stubTools, Capabilities: `{"tools":{},"resources":{}}`,
			Resources: changing.Resources, Contents: map[string]string{"ui://orders/board": "<p>board</p>"}}
		for _, id := range scanStub(t, fixed) {
			switch id {
			case "mcp-capabilities-consistent", "mcp-catalog-stable", "mcp-list-changed-declared":
				t.Errorf("era %d: %s fired on the fixed stub", era, id)
			}
		}
	}
}

// TestHostLimitsOnAStub runs mcp-tool-client-compat through a whole scan: a
// dotted name and a nullable written as a type array fire it, the same tools
// written within every host's limits do not.
func TestHostLimitsOnAStub(t *testing.T) {
	t.Parallel()
	refused := &mcpfix.Server{Tools: []json.RawMessage{json.RawMessage(
		`{"name":"orders.list","description":"Lists the orders","inputSchema":{"type":"object","properties":{"state":{"type":["string","null"],"description":"State"}}},"annotations":{"readOnlyHint":true}}`)}}
	if got := scanStub(t, refused); !slices.Contains(got, "mcp-tool-client-compat") {
		t.Errorf("mcp-tool-client-compat did not fire: %v", got)
	}
	accepted := &mcpfix.Server{Tools: []json.RawMessage{json.RawMessage(
		`{"name":"orders_list","description":"Lists the orders","inputSchema":{"type":"object","properties":{"state":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"State"}}},"annotations":{"readOnlyHint":true}}`)}}
	if got := scanStub(t, accepted); slices.Contains(got, "mcp-tool-client-compat") {
		t.Errorf("mcp-tool-client-compat fired on tools within the limits: %v", got)
	}
}
