package trialplan

import (
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// read is one crawled JSON resource, as the catalog tasks see it: any kind,
// with or without a state member.
type read struct {
	url, template, kind, member, state string
}

// readsOf lists the crawled JSON resources the document's paths match, in
// URL order, once each.
func readsOf(rec *exchange.Recording, idx *spec.Index) []read {
	seen := map[string]bool{}
	var out []read
	for _, x := range rec.Exchanges {
		if !hypermedia.Offering(x) || strings.HasPrefix(x.Purpose, purposePrefix) || seen[x.Request.URL] {
			continue
		}
		if u := x.Request.URL; strings.Contains(u, "?") || strings.Contains(u, "#") {
			continue // a query names a view of a resource, not one to act on
		}
		v := x.Response.ReadHAL()
		if v.Err != nil || v.Doc.Root == nil {
			continue
		}
		template, _, ok := idx.Bind(pathOf(x.Request.URL))
		if !ok {
			continue
		}
		seen[x.Request.URL] = true
		member, state := hypermedia.StateOf(v.Doc.Root)
		out = append(out, read{url: x.Request.URL, template: template, kind: exchange.PathShape(exchange.PathOf(x.Request.URL)), member: member, state: state})
	}
	slices.SortFunc(out, func(a, b read) int { return strings.Compare(a.url, b.url) })
	return out
}

// catalogTasks makes a task of each state-changing operation the OpenAPI
// document declares on a path whose item the scan read: the operation's
// path is the resource's (PATCH or DELETE /items/{id}) or under it (POST
// /items/{id}/archive, or POST /items on the collection). The resource is
// one with the longest such path, of its kind and state (resources.pick
// says which); only player A plays these, from the catalog. A kind in
// controlled offers its own controls, which say what applies in each
// state: the catalog adds no task on it.
func catalogTasks(reads []read, doc *spec.Document, controlled map[string]bool) []task {
	if doc == nil || len(reads) == 0 {
		return nil
	}
	var out []task
	made := map[string]bool{}
	for _, op := range doc.Operations {
		if safe(op.Method) {
			continue
		}
		var best *read
		for i := range reads {
			r := &reads[i]
			if op.PathTemplate != r.template && !strings.HasPrefix(op.PathTemplate, strings.TrimSuffix(r.template, "/")+"/") {
				continue
			}
			if best == nil || len(r.template) > len(best.template) {
				best = r
			}
		}
		if best == nil {
			continue
		}
		name := operationLabel(op)
		key := best.kind + "\x00" + best.state + "\x00" + name
		if controlled[best.kind] || made[key] {
			continue
		}
		made[key] = true
		var resources []string
		for _, r := range reads {
			if r.template == best.template && r.kind == best.kind && r.state == best.state {
				resources = append(resources, r.url)
			}
		}
		out = append(out, task{TrialTask: exchange.TrialTask{Kind: best.kind, State: best.state, Operation: name}, resources: resources, op: op, member: best.member})
	}
	return out
}

// operationLabel names an operation as the plan shows it: its operationId,
// else its method and path.
func operationLabel(op *spec.Operation) string {
	if op.OperationID != "" {
		return op.OperationID
	}
	return op.Method + " " + op.PathTemplate
}

// declaredBody builds an operation's JSON request body from what the
// document says alone: the schema's own example, else each required member
// from its example, default, const or first enum value (recursing into
// objects), and the optional members that carry an example. It fails, with
// the member it could not fill, rather than guess a value. An operation
// without a JSON request body sends none.
func declaredBody(op *spec.Operation) (body any, ok bool, why string) {
	schema := requestSchema(op)
	if schema == nil {
		if op.RequestBodyRequired || len(op.RequestBody) > 0 {
			return nil, false, "its request body has no JSON schema"
		}
		return nil, true, ""
	}
	v, ok, why := declaredValue(schema, "", 0)
	if !ok {
		return nil, false, why
	}
	if m, isObj := v.(map[string]any); isObj && len(m) == 0 && op.Method == http.MethodPatch {
		return nil, false, "no member of its patch has a declared value"
	}
	return v, true, ""
}

// maxDepth bounds the recursion into a hostile document's nested schemas.
const maxDepth = 8

func declaredValue(schema map[string]any, at string, depth int) (any, bool, string) {
	for _, k := range []string{"example", "default", "const"} {
		if v, ok := schema[k]; ok {
			return v, true, ""
		}
	}
	if ex, ok := schema["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], true, ""
	}
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0], true, ""
	}
	props, _ := schema["properties"].(map[string]any)
	if schema["type"] != "object" && props == nil {
		if at == "" {
			at = "the body"
		}
		return nil, false, fmt.Sprintf("%s has no example, default, const or enum", at)
	}
	if depth >= maxDepth {
		return nil, false, fmt.Sprintf("%s nests deeper than %d levels", at, maxDepth)
	}
	out := map[string]any{}
	for name, p := range requiredMembers(schema) {
		if p == nil {
			return nil, false, fmt.Sprintf("required member %q has no schema", at+"/"+name)
		}
		v, ok, why := declaredValue(p, at+"/"+name, depth+1)
		if !ok {
			return nil, false, why
		}
		out[name] = v
	}
	for name, raw := range props {
		p, _ := raw.(map[string]any)
		if _, done := out[name]; done || p == nil {
			continue
		}
		if v, ok := p["example"]; ok {
			out[name] = v
		}
	}
	return out, true, ""
}

// requiredMembers yields each member an object schema requires, with its
// schema (nil when the schema does not describe it), in the order required
// lists them.
func requiredMembers(schema map[string]any) iter.Seq2[string, map[string]any] {
	return func(yield func(string, map[string]any) bool) {
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		for _, r := range required {
			name, _ := r.(string)
			if name == "" {
				continue
			}
			p, _ := props[name].(map[string]any)
			if !yield(name, p) {
				return
			}
		}
	}
}

// toolOf is the listed tool that projects op: the tool its x-mcp-tool
// names, else the tool named as its operationId.
func toolOf(op *spec.Operation, tools map[string]*mcp.Tool) *mcp.Tool {
	for _, name := range []string{op.MCPTool, op.OperationID} {
		if t := tools[name]; name != "" && t != nil {
			return t
		}
	}
	return nil
}

// declaredRun is player A's run of a task the document alone declares: a
// tools/call of the tool that projects the operation when the allow-list
// names it, else the operation over HTTP, every value taken from the
// resource's URL or the document. It returns why the task is not played
// instead when a value would have to be guessed or the allow-list names
// neither interface.
func declaredRun(in Input, t *task, tools map[string]*mcp.Tool, idx *spec.Index, res *resources) (exchange.TrialRun, string) {
	op := t.op
	u, _ := res.pick(t, nil) // a task's only run: its resources are never all taken
	_, vars, _ := idx.Bind(pathOf(u))
	if tool := toolOf(op, tools); tool != nil && in.Rules.AllowsTool(tool.Name) {
		args, why := declaredArguments(tool, vars)
		if why != "" {
			return exchange.TrialRun{}, why
		}
		call := toolCall(in.MCP.Endpoint.URL, tool, args)
		return run(in, t, exchange.PlayerCatalog, u, "application/json", call, idempotentVia(t, call)), ""
	}
	target, ok := expand(op.PathTemplate, u, idx)
	if !ok {
		return exchange.TrialRun{}, "its path takes a value the resource's URL does not give"
	}
	if !in.Rules.Allows(op.Method, target, op) {
		return exchange.TrialRun{}, "the allow-list names none of its interfaces"
	}
	for _, p := range op.Parameters {
		if p.Required && p.In != "path" {
			return exchange.TrialRun{}, fmt.Sprintf("its required %s parameter %q would have to be guessed", p.In, p.Name)
		}
	}
	body, ok, why := declaredBody(op)
	if !ok {
		return exchange.TrialRun{}, why + ", and a value would have to be guessed"
	}
	h := http.Header{}
	h.Set("Accept", "application/json, application/problem+json;q=0.9")
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
		ct := "application/json"
		if _, ok := op.RequestBody["application/json"]; !ok {
			if _, ok := op.RequestBody["application/merge-patch+json"]; ok {
				ct = "application/merge-patch+json"
			}
		}
		h.Set("Content-Type", ct)
	}
	call := exchange.TrialStep{Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Method: op.Method, URL: target, Header: h, Body: raw, BasedOn: u}}
	return run(in, t, exchange.PlayerCatalog, u, "application/json", call, idempotentVia(t, call)), ""
}

// declaredArguments fills a tool's required arguments: those named as the
// resource's path variables from its URL, the others from the input
// schema's example, default, const or enum; "" why when all were filled.
func declaredArguments(tool *mcp.Tool, vars map[string]string) (map[string]any, string) {
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		return nil, "the tool's inputSchema is not a JSON object"
	}
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	args := map[string]any{}
	for _, r := range required {
		name, _ := r.(string)
		p, _ := props[name].(map[string]any)
		if v, ok := vars[name]; ok {
			args[name] = typed(v, p)
			continue
		}
		if p == nil {
			return nil, fmt.Sprintf("the tool's required argument %q has no schema, and a value would have to be guessed", name)
		}
		v, ok, why := declaredValue(p, "/"+name, 0)
		if !ok {
			return nil, "in the tool's inputSchema, " + why + ", and a value would have to be guessed"
		}
		args[name] = v
	}
	return args, ""
}
