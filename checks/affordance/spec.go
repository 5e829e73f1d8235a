package affordance

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// catalog resolves operation identifiers against the OpenAPI document (an
// x-operation-uri, an operationId, or for next_actions tools an x-mcp-tool)
// and, when the scan reached an MCP endpoint, against its tool names.
type catalog struct {
	doc      *spec.Document
	byID     map[string]*spec.Operation
	tools    map[string]bool
	hasTools bool
}

func newCatalog(doc *spec.Document, snap *mcp.Snapshot) *catalog {
	c := &catalog{doc: doc, byID: map[string]*spec.Operation{}, tools: map[string]bool{}}
	if snap != nil {
		for _, t := range snap.Catalog.Tools {
			c.tools[t.Name] = true
		}
		c.hasTools = len(c.tools) > 0
	}
	for _, op := range doc.Operations {
		for _, id := range []string{op.OperationURI, op.OperationID, op.MCPTool} {
			if id != "" {
				if _, dup := c.byID[id]; !dup {
					c.byID[id] = op
				}
			}
		}
		c.hasTools = c.hasTools || op.MCPTool != ""
	}
	return c
}

func (c *catalog) resolve(name string) *spec.Operation { return c.byID[name] }

// isTool reports a name the MCP catalog lists.
func (c *catalog) isTool(name string) bool { return c.tools[name] }

// specIssues resolves every reference and compares affordances with their
// operations.
func specIssues(in *checks.Input, a *analysis) map[string][]hypermedia.Issue {
	c := newCatalog(in.Spec, in.MCP)
	out := map[string][]hypermedia.Issue{}
	add := func(id string, rf ref, v *jsonorder.Value, msg, expected, actual string) {
		out[id] = append(out[id], hypermedia.Issue{X: rf.x, Pointer: v.Pointer, Value: v, Subject: rf.name, Message: msg, Expected: expected, Actual: actual})
	}
	for _, rf := range a.refs {
		op := c.resolve(rf.name)
		if op == nil && c.isTool(rf.name) {
			// A tool is a stable operation too; its schema lives in MCP, so
			// only the reference itself is judged here.
			continue
		}
		if op == nil {
			add(idUnresolved, rf, rf.v.Get("operation"), fmt.Sprintf("operation %q resolves to no operationId or x-operation-uri of the OpenAPI document, nor to an MCP tool", rf.name),
				"a documented operation", rf.name)
			continue
		}
		compare(rf, op, in.Spec, func(id string, v *jsonorder.Value, msg, expected, actual string) {
			add(id, rf, v, msg, expected, actual)
		})
	}
	for _, rf := range a.next {
		if c.resolve(rf.name) != nil || c.isTool(rf.name) {
			continue
		}
		if rf.kind == "tool" && !c.hasTools {
			in.Observe(idNextUnknown, fmt.Sprintf("next_actions tool %q not checked: the OpenAPI document maps no x-mcp-tool and no MCP catalog was read", rf.name))
			continue
		}
		add(idNextUnknown, rf, rf.v.Get(rf.kind), fmt.Sprintf("next_actions names %s %q, which no operation of the OpenAPI document nor any MCP tool provides", rf.kind, rf.name),
			"a documented "+rf.kind, rf.name)
	}
	return out
}

type addFunc func(id string, v *jsonorder.Value, msg, expected, actual string)

func compare(rf ref, op *spec.Operation, doc *spec.Document, add addFunc) {
	if rf.target != nil {
		compareTarget(rf, op, doc, add)
	}
	fs, ok := inputOf(op)
	if !ok {
		return
	}
	if rf.arguments != nil {
		compareArguments(rf, op, fs, add)
	}
	if rf.constraints != nil {
		compareConstraints(rf, op, fs, add)
	}
}

// compareTarget matches the target against the whole document, so a target
// that another, more literal path template claims is reported too.
func compareTarget(rf ref, op *spec.Operation, doc *spec.Document, add addFunc) {
	raw, _ := rf.target.Str()
	base, err := url.Parse(rf.x.Request.URL)
	if err != nil {
		return
	}
	u, err := base.Parse(raw)
	if err != nil {
		add(idTarget, rf.target, fmt.Sprintf("affordance %s target %q is not a URL", rf.name, raw), op.PathTemplate, raw)
		return
	}
	if matched, _ := doc.Index().MatchPath(u.EscapedPath()); matched != op.PathTemplate {
		add(idTarget, rf.target, fmt.Sprintf("affordance %s target %s does not match the path template %s of %s", rf.name, exchange.PathOf(u.String()), op.PathTemplate, op.Key()),
			op.PathTemplate, u.EscapedPath())
	}
}

// field is one input of an operation.
type field struct {
	schema   map[string]any
	required bool
	in       string // path, query, header, cookie or body
}

// inputOf gathers an operation's parameters and request body properties;
// ok is false when the body exists but does not enumerate its properties.
func inputOf(op *spec.Operation) (map[string]field, bool) {
	fs := map[string]field{}
	for _, p := range op.Parameters {
		fs[p.Name] = field{schema: p.Schema, required: p.Required, in: p.In}
	}
	if len(op.RequestBody) == 0 {
		return fs, true
	}
	schema := activeplan.JSONBody(op)
	if schema == nil {
		return nil, false
	}
	props := activeplan.Properties(schema)
	if props == nil {
		return nil, false
	}
	required := map[string]bool{}
	if r, ok := schema["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				required[s] = true
			}
		}
	}
	for name, s := range props {
		sm, _ := s.(map[string]any)
		fs[name] = field{schema: sm, required: required[name], in: "body"}
	}
	return fs, true
}

func compareArguments(rf ref, op *spec.Operation, fs map[string]field, add addFunc) {
	for _, m := range rf.arguments.Members {
		f, ok := fs[m.Key]
		if !ok {
			add(idArguments, m.Value, fmt.Sprintf("affordance %s binds argument %q, which %s does not accept (inputs: %s)", rf.name, m.Key, op.Key(), names(fs)),
				"one of "+names(fs), m.Key)
			continue
		}
		if want := schemaType(f.schema); want != "" && !kindFits(m.Value, want) {
			add(idArguments, m.Value, fmt.Sprintf("affordance %s binds argument %q to a JSON %s where %s expects %s", rf.name, m.Key, m.Value.Kind, op.Key(), want),
				want, m.Value.Kind.String())
		}
	}
}

// compareConstraints enforces that constraints only narrow: they name known
// fields, never make a required field optional, never change its type, and
// never widen its enum or bounds.
func compareConstraints(rf ref, op *spec.Operation, fs map[string]field, add addFunc) {
	for _, m := range rf.constraints.Members {
		c := m.Value
		if c.Kind != jsonorder.Object {
			continue // reported as a shape problem
		}
		f, ok := fs[m.Key]
		if !ok {
			add(idConstraints, c, fmt.Sprintf("affordance %s constrains %q, which %s does not have", rf.name, m.Key, op.Key()), "one of "+names(fs), m.Key)
			continue
		}
		for _, why := range widenings(c, f) {
			add(idConstraints, c, fmt.Sprintf("affordance %s constraint on %q %s", rf.name, m.Key, why), "a narrowing of the operation's schema", c.Literal())
		}
	}
}

func widenings(c *jsonorder.Value, f field) []string {
	var out []string
	if r := c.Get("required"); r.Is(jsonorder.Bool) && !r.Bool && f.required {
		out = append(out, "makes a required field optional")
	}
	if t, ok := c.Get("type").Str(); ok {
		if want := schemaType(f.schema); want != "" && t != want && !(want == "number" && t == "integer") {
			out = append(out, fmt.Sprintf("redefines its type from %s to %s", want, t))
		}
	}
	if e := c.Get("enum"); e.Is(jsonorder.Array) {
		if allowed, ok := f.schema["enum"].([]any); ok {
			for _, it := range e.Items {
				if !enumHas(allowed, it) {
					out = append(out, fmt.Sprintf("allows %s, which the operation's enum does not", it.Literal()))
				}
			}
		}
	}
	for _, b := range []struct {
		key, schemaKey string
		lower          bool
	}{
		{"minimum", "minimum", true}, {"min", "minimum", true}, {"minLength", "minLength", true}, {"minItems", "minItems", true},
		{"maximum", "maximum", false}, {"max", "maximum", false}, {"maxLength", "maxLength", false}, {"maxItems", "maxItems", false},
	} {
		got, ok := c.Get(b.key).Float()
		limit, has := number(f.schema[b.schemaKey])
		if !ok || !has {
			continue
		}
		if (b.lower && got < limit) || (!b.lower && got > limit) {
			out = append(out, fmt.Sprintf("widens %s to %s beyond the operation's %v", b.key, c.Get(b.key).Text, limit))
		}
	}
	return out
}

func schemaType(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

// kindFits reports whether a JSON value fits a JSON Schema type.
func kindFits(v *jsonorder.Value, t string) bool {
	switch t {
	case "string":
		return v.Kind == jsonorder.String
	case "integer":
		f, ok := v.Float()
		return ok && f == float64(int64(f))
	case "number":
		return v.Kind == jsonorder.Number
	case "boolean":
		return v.Kind == jsonorder.Bool
	case "array":
		return v.Kind == jsonorder.Array
	case "object":
		return v.Kind == jsonorder.Object
	case "null":
		return v.Kind == jsonorder.Null
	}
	return true
}

func enumHas(allowed []any, v *jsonorder.Value) bool {
	for _, a := range allowed {
		switch x := a.(type) {
		case string:
			if v.Kind == jsonorder.String && v.Text == x {
				return true
			}
		case bool:
			if v.Kind == jsonorder.Bool && v.Bool == x {
				return true
			}
		default:
			if n, ok := number(x); ok {
				if f, ok := v.Float(); ok && f == n {
					return true
				}
			}
		}
	}
	return false
}

// number reads the numeric types a decoded schema may hold.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func names(fs map[string]field) string {
	out := make([]string, 0, len(fs))
	for n := range fs {
		out = append(out, n)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ", ")
}
