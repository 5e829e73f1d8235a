package trialplan

import (
	"slices"
	"strings"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// declaredTarget is the state an operation declares it leads to, in
// standard JSON Schema: its success (2xx) JSON responses give the
// resource's state member a const, or an enum of one value, directly or
// through allOf. "" when no success response says, or when two say
// different things: a trial then takes an observable change as success.
func declaredTarget(op *spec.Operation, member string) string {
	if op == nil || member == "" {
		return ""
	}
	codes := make([]string, 0, len(op.Responses))
	for code := range op.Responses {
		if strings.HasPrefix(code, "2") {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	target := ""
	for _, code := range codes {
		content := op.Responses[code].Content
		types := make([]string, 0, len(content))
		for mt := range content {
			types = append(types, mt)
		}
		slices.Sort(types)
		for _, mt := range types {
			if !exchange.IsJSONMediaType(mt) {
				continue
			}
			v, ok := pinnedMember(content[mt], member, 0)
			if !ok {
				continue
			}
			if target != "" && target != v {
				return ""
			}
			target = v
		}
	}
	return target
}

// pinnedMember is the one string value schema s allows for member: its
// property's const or single-value enum, in s or in one of its allOf
// branches (each of which the value must satisfy).
func pinnedMember(s map[string]any, member string, depth int) (string, bool) {
	if s == nil || depth > maxDepth {
		return "", false
	}
	props, _ := s["properties"].(map[string]any)
	if p, ok := props[member].(map[string]any); ok {
		if v, ok := p["const"].(string); ok {
			return v, true
		}
		if e, ok := p["enum"].([]any); ok && len(e) == 1 {
			if v, ok := e[0].(string); ok {
				return v, true
			}
		}
	}
	all, _ := s["allOf"].([]any)
	for _, branch := range all {
		if b, ok := branch.(map[string]any); ok {
			if v, ok := pinnedMember(b, member, depth+1); ok {
				return v, true
			}
		}
	}
	return "", false
}

// operationOf is the OpenAPI operation a task invokes: the document's
// own for a task it declares, else the one the task's name resolves to
// (operationId, x-mcp-tool, x-operation-uri), else the one its control's
// request matches.
func operationOf(t *task, doc *spec.Document, idx *spec.Index) *spec.Operation {
	if t.op != nil {
		return t.op
	}
	if op := activeplan.ActionOperations(doc)[t.Operation]; op != nil {
		return op
	}
	for _, o := range []*hypermedia.Offer{t.reference, t.template} {
		if o != nil && idx != nil {
			if op := idx.Match(o.Method, o.Target); op != nil {
				return op
			}
		}
	}
	return nil
}
