package text

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

// TestWriteMCP: the verdict, its steps and the catalog, each tool's hints
// with the protocol's defaults applied and its fingerprint shortened.
func TestWriteMCP(t *testing.T) {
	info := &finding.MCPInfo{
		Endpoint: "http://api.test/mcp", Era: "legacy", Version: "2025-06-18", FellBack: true,
		Reason: "HTTP 404 to server/discover; initialize negotiated 2025-06-18",
		Steps: []finding.MCPStep{
			{Method: "server/discover", Status: 404, Meaning: "legacy", Why: "HTTP 404"},
			{Method: "initialize", Status: 200, RPCCode: -32602, Meaning: "legacy", Why: "negotiated"},
		},
		CatalogFingerprint: "sha256:0123456789abcdef0123", Tokens: 30, Tokenizer: "o200k_base",
		Tools: []finding.MCPTool{
			{Name: "getOrder", ReadOnly: true, Destructive: true, Schema: "{id*: integer}", Fingerprint: "sha256:aaaaaaaaaaaaaaaabbbb", Tokens: 10},
			{Name: "cancelOrder", Destructive: true, Idempotent: true, OpenWorld: true, Schema: "{}", Fingerprint: "sha256:short", Tokens: 12},
			{Name: "createOrder", Schema: "{}", Fingerprint: "sha256:cccccccccccccccc", Tokens: 8},
		},
		Notes: []string{"the catalog changed between listings"},
	}
	var b strings.Builder
	if err := WriteMCP(&b, info); err != nil {
		t.Fatal(err)
	}
	want := `MCP endpoint  http://api.test/mcp
Revision      legacy (2025-06-18), after falling back to initialize
Reason        HTTP 404 to server/discover; initialize negotiated 2025-06-18

Steps
  server/discover  HTTP 404          legacy: HTTP 404
  initialize       HTTP 200  -32602  legacy: negotiated

Tools (3, 30 tokens by o200k_base)
Catalog fingerprint sha256:0123456789abcdef0123
  getOrder     [read-only]                          {id*: integer}  sha256:aaaaaaaaaaaaaaaa  10 tokens
  cancelOrder  [destructive idempotent open-world]  {}              sha256:short             12 tokens
  createOrder  [writes]                             {}              sha256:cccccccccccccccc  8 tokens
Note: the catalog changed between listings
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteMCPHostile: what the endpoint names is printed as one bounded
// line of plain text in its cell.
func TestWriteMCPHostile(t *testing.T) {
	info := &finding.MCPInfo{
		Endpoint: "http://api.test/mcp", Era: "legacy", Version: "2025-06-18\x1b]0;pwned\x07",
		Reason: "initialize negotiated\nNote: forged", CatalogFingerprint: "sha256:00",
		Tools: []finding.MCPTool{{Name: "a\nCatalog fingerprint sha256:forged\t" + strings.Repeat("x", 500), Schema: "{\x1b[2J}"}},
	}
	var b strings.Builder
	if err := WriteMCP(&b, info); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\t") {
		t.Errorf("a control character reached the output:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Note: forged") || strings.HasPrefix(line, "Catalog fingerprint sha256:forged") {
			t.Errorf("the endpoint forged the line %q", line)
		}
		if len(line) > 300 {
			t.Errorf("a line of %d bytes: a tool name is not bounded", len(line))
		}
	}
}
