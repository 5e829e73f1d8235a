package stateful

import (
	"encoding/json"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// catalog resolves a next_actions name to what describes it: an operation of
// the OpenAPI document (by operationId, x-mcp-tool or x-operation-uri) and
// an MCP tool of the same name.
type catalog struct {
	ops   map[string]*spec.Operation
	tools map[string]*mcp.Tool
}

func newCatalog(doc *spec.Document, snap *mcp.Snapshot) *catalog {
	c := &catalog{ops: activeplan.ActionOperations(doc), tools: map[string]*mcp.Tool{}}
	if snap != nil && len(snap.Listings) > 0 {
		for i := range snap.Listings[0].Tools {
			t := &snap.Listings[0].Tools[i]
			if _, dup := c.tools[t.Name]; !dup {
				c.tools[t.Name] = t
			}
		}
	}
	return c
}

func (c *catalog) any() bool { return len(c.ops) > 0 || len(c.tools) > 0 }

// inputs are the input schemas that describe name: its operation's JSON
// request body and its tool's inputSchema. A schema that does not list its
// properties says nothing about members and is left out.
func (c *catalog) inputs(name string) []map[string]any {
	var out []map[string]any
	if op := c.ops[name]; op != nil {
		if s := activeplan.JSONBody(op); activeplan.Properties(s) != nil {
			out = append(out, s)
		}
	}
	if t := c.tools[name]; t != nil && len(t.InputSchema) > 0 {
		var s map[string]any
		if json.Unmarshal(t.InputSchema, &s) == nil && activeplan.Properties(s) != nil {
			out = append(out, s)
		}
	}
	return out
}

// idempotency reports whether the operations and tools name resolves to
// declare an idempotency key; known is false when nothing that describes
// name could be read, so that nothing is claimed about it.
func (c *catalog) idempotency(name string) (declared, known bool) {
	op := c.ops[name]
	if op != nil {
		if header, member := activeplan.KeyCarriers(op); header || member != "" {
			return true, true
		}
	}
	schemas := c.inputs(name)
	for _, s := range schemas {
		if activeplan.KeyMember(s) != "" {
			return true, true
		}
	}
	// An operation without a request body is judged by its parameters.
	known = len(schemas) > 0 || op != nil && len(op.RequestBody) == 0
	return false, known
}

// operationIdempotency is idempotency for one operation of the document,
// read alone: its Idempotency-Key header parameter or a key member of its
// JSON body. known is false when the body it declares lists no properties.
func operationIdempotency(op *spec.Operation) (declared, known bool) {
	if header, member := activeplan.KeyCarriers(op); header || member != "" {
		return true, true
	}
	if activeplan.Properties(activeplan.JSONBody(op)) != nil {
		return false, true
	}
	return false, len(op.RequestBody) == 0
}

// patchSchema is the schema of the "patch" member that name's input takes,
// when one is declared with its properties.
func (c *catalog) patchSchema(name string) map[string]any {
	for _, s := range c.inputs(name) {
		if p, ok := activeplan.Properties(s)["patch"].(map[string]any); ok && activeplan.Properties(p) != nil {
			return p
		}
	}
	return nil
}

// irreversible reports an MCP tool declared destructive and not idempotent
// in so many words: the protocol's defaults (destructive when absent) are
// not taken as a declaration, since most tools never set them.
func (c *catalog) irreversible(name string) bool {
	t := c.tools[name]
	if t == nil || t.Annotations == nil {
		return false
	}
	a := t.Annotations
	return a.DestructiveHint != nil && *a.DestructiveHint && !t.Idempotent() && !t.ReadOnly()
}
