package jsonreport

import (
	"encoding/json"
	"io"

	"github.com/agentready/agentready/internal/finding"
)

// WriteMCP writes what `agentready mcp` learnt of an MCP endpoint, the
// MCP section of a scan's report on its own, as indented JSON.
func WriteMCP(w io.Writer, info *finding.MCPInfo) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(info)
}
