// Package mcpmap holds what more than one family reads of an MCP snapshot:
// the evidence that points at a call or at one tool inside its tools/list
// page, and the mapping of a tool to the OpenAPI operation it projects
// (OperationFor), with the help text every check that relies on it shows.
// The mcptools family judges the tools; leakage and custom rules read them
// through here, so that no family imports another.
package mcpmap

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/internal/spec"
)

// Request and response headers that prove MCP findings; RequestHeaders is
// exported for a check that adds one of its own.
var (
	RequestHeaders  = []string{"Content-Type", "Accept", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Session-Id"}
	responseHeaders = []string{"Content-Type", "Mcp-Session-Id", "WWW-Authenticate", "Retry-After"}
)

// CallEvidence reduces a call to what proves a finding, with its JSON-RPC body.
func CallEvidence(call *mcp.Call) finding.Evidence {
	if call == nil || call.Exchange == nil {
		return finding.Evidence{Purpose: mcp.PurposeUnrecorded, Method: "POST"}
	}
	ev := checks.Evidence(call.Exchange, RequestHeaders, responseHeaders)
	ev.Excerpt = checks.Excerpt(call.Exchange)
	if ev.Excerpt == "" && call.Exchange.Err != "" {
		ev.Actual = sanitize.Truncate(call.Exchange.Err, checks.ExcerptLimit)
	}
	return ev
}

// ListingEvidence points at the tools of a tools/list answer as a whole
// (its first page): for a finding about the catalog, or a tool it lacks.
// The pointer makes such a finding one about the catalog wherever it was
// listed, as a tool's is (see ToolEvidence).
func ListingEvidence(l *mcp.Listing) finding.Evidence {
	var call *mcp.Call
	if len(l.Pages) > 0 {
		call = l.Pages[0].Call
	}
	ev := CallEvidence(call)
	ev.JSONPointer = "/result/tools"
	return ev
}

// ToolEvidence points at one tool inside its tools/list page, member
// ("" for the whole tool) included in the JSON pointer.
func ToolEvidence(l *mcp.Listing, t *mcp.Tool, member string) finding.Evidence {
	var call *mcp.Call
	if t.Page < len(l.Pages) {
		call = l.Pages[t.Page].Call
	}
	ev := CallEvidence(call)
	ev.JSONPointer = fmt.Sprintf("/result/tools/%d", t.Index)
	if member != "" {
		ev.JSONPointer += "/" + member
	}
	ev.Excerpt = sanitize.Excerpt(t.Raw, checks.ExcerptLimit)
	return ev
}

// MappingHelp says how a tool is matched with the operation it projects
// (OperationFor), for the help of every check that relies on it.
const MappingHelp = "A tool maps to an operation when its name equals the operationId, when the\n" +
	"operation names it in `x-mcp-tool`, or when the tool's `_meta` names the operation (its\n" +
	"operationId, `x-operation-uri`, or `METHOD /path`)."

// OperationFor finds the operation a tool projects, and says by what
// ("operationId", "x-mcp-tool" or "_meta"); nil when none does.
func OperationFor(doc *spec.Document, t *mcp.Tool) (*spec.Operation, string) {
	if !t.NameValid || t.Name == "" {
		return nil, ""
	}
	for _, op := range doc.Operations {
		if op.OperationID == t.Name {
			return op, "operationId"
		}
	}
	for _, op := range doc.Operations {
		if op.MCPTool == t.Name {
			return op, "x-mcp-tool"
		}
	}
	refs := metaStrings(t.Meta)
	for _, op := range doc.Operations {
		for _, ref := range refs {
			if ref != "" && (ref == op.OperationID || ref == op.OperationURI || strings.EqualFold(ref, op.Key())) {
				return op, "_meta"
			}
		}
	}
	return nil, ""
}

// metaStrings collects the string values of a tool's _meta, two levels deep.
func metaStrings(raw json.RawMessage) []string {
	var meta map[string]any
	if json.Unmarshal(raw, &meta) != nil {
		return nil
	}
	var out []string
	for _, v := range meta {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			for _, inner := range x {
				if s, ok := inner.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
