package trialplan

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// entryTarget is the URL a next_actions entry links (its target, else its
// href), resolved against the resource that lists it.
func entryTarget(resourceURL string, entry *jsonorder.Value) (string, bool) {
	for _, k := range []string{"target", "href"} {
		s, ok := entry.Get(k).Str()
		if !ok || s == "" {
			continue
		}
		base, err := url.Parse(resourceURL)
		if err != nil {
			return "", false
		}
		ref, err := base.Parse(s)
		if err != nil {
			return "", false
		}
		return ref.String(), true
	}
	return "", false
}

// flowRuns plans a step of a next_actions flow with the requests the
// active kinds build for one (activeplan.Node.Step), only where every
// value is declared: the node's own members (version, action_id), the
// schema's const, enum, example or default, and an idempotency key, which
// the client chooses by design. A step that needs a made-up value (a
// patch) is not played, and why says so. Player A takes it from the
// catalog (the MCP tool that projects the operation, else the operation
// over HTTP); player B too when the entry links its target.
func flowRuns(in Input, t *task, tools map[string]*mcp.Tool, idx *spec.Index, nodes []activeplan.Node, res *resources) ([]exchange.TrialRun, string) {
	op := activeplan.ActionOperations(in.Spec)[t.Operation]
	if op == nil {
		return nil, "no operation of the OpenAPI document has that name, so its request cannot be told"
	}
	// stepOn is the request on the resource u, built from what u itself
	// says (its version, its action_id).
	stepOn := func(u string) (exchange.TrialStep, string) {
		for i := range nodes {
			n := nodes[i]
			if n.X.Request.URL != u {
				continue
			}
			target, ok := n.Target(op)
			if !ok {
				return exchange.TrialStep{}, "its path takes a value the resource's URL does not give"
			}
			if why := undeclared(n, op); why != "" {
				return exchange.TrialStep{}, why + ", and a value would have to be made up"
			}
			return exchange.TrialStep{Via: exchange.ViaHTTP, PlannedRequest: n.Step(op, target, "", in.Identity, nil).PlannedRequest}, ""
		}
		return exchange.TrialStep{}, "the resource that lists it was not read whole"
	}
	first, why := stepOn(t.resources[0])
	if why != "" {
		return nil, why
	}
	// Each run acts on the resource res picks for it, as for the other
	// tasks; without a reset, one whose node cannot take the step is
	// passed over.
	var taken []string
	take := func() (string, exchange.TrialStep, bool) {
		for {
			u, ok := res.pick(t, taken)
			if !ok {
				return "", exchange.TrialStep{}, false
			}
			if u == t.resources[0] {
				taken = append(taken, u)
				return u, first, true
			}
			taken = append(taken, u)
			if st, why := stepOn(u); why == "" {
				return u, st, true
			}
		}
	}
	var runs []exchange.TrialRun
	if tool := toolOf(op, tools); tool != nil && in.Rules.AllowsTool(tool.Name) {
		if _, why := flowArguments(tool, first.Body, t.resources[0], idx); why != "" {
			return nil, why
		}
		if u, st, ok := take(); ok {
			args, _ := flowArguments(tool, st.Body, u, idx)
			call := toolCall(in.MCP.Endpoint.URL, tool, args)
			call.BasedOn = u
			runs = append(runs, run(in, t, exchange.PlayerCatalog, u, "application/json", call, idempotentVia(t, call)))
		}
	} else if len(tools) == 0 && in.Rules.Allows(op.Method, first.URL, op) {
		if u, st, ok := take(); ok {
			runs = append(runs, run(in, t, exchange.PlayerCatalog, u, "application/json", st, idempotentVia(t, st)))
		}
	}
	if t.entryTarget == first.URL && in.Rules.Allows(op.Method, first.URL, op) {
		if u, st, ok := take(); ok {
			runs = append(runs, run(in, t, exchange.PlayerReferences, u, "application/hal+json, application/json;q=0.9", st, idempotentVia(t, st)))
		}
	}
	if len(runs) == 0 {
		return nil, "the allow-list names none of its interfaces"
	}
	return runs, ""
}

// undeclared says which value of op's request the flow's node and the
// document leave to be made up, "" when none.
func undeclared(n activeplan.Node, op *spec.Operation) string {
	for _, p := range op.Parameters {
		if p.Required && p.In != "path" && !(p.In == "header" && http.CanonicalHeaderKey(p.Name) == "Idempotency-Key") {
			return fmt.Sprintf("its required %s parameter %q has no declared value", p.In, p.Name)
		}
	}
	if activeplan.JSONBody(op) == nil && (op.RequestBodyRequired || len(op.RequestBody) > 0) {
		return "its request body has no JSON schema"
	}
	if name := n.Undeclared(op); name != "" {
		return fmt.Sprintf("its required member %q has no declared value", name)
	}
	return ""
}

// flowArguments are a tool's arguments for a flow step: the path
// parameters from the resource's URL, then the step's body members the
// tool's inputSchema names, then, for a required argument neither gives,
// the schema's own declared value. why names a required argument none of
// them gives.
func flowArguments(tool *mcp.Tool, body []byte, resourceURL string, idx *spec.Index) (map[string]any, string) {
	var values map[string]any
	_ = json.Unmarshal(body, &values)
	vars := map[string]string{}
	if idx != nil {
		if _, v, ok := idx.Bind(pathOf(resourceURL)); ok {
			vars = v
		}
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		return nil, "the tool's inputSchema is not a JSON object"
	}
	props, _ := schema["properties"].(map[string]any)
	args := map[string]any{}
	for name, raw := range props {
		p, _ := raw.(map[string]any)
		if v, ok := vars[name]; ok {
			args[name] = typed(v, p)
		} else if v, ok := values[name]; ok {
			args[name] = v
		}
	}
	required, _ := schema["required"].([]any)
	for _, r := range required {
		name, _ := r.(string)
		if _, done := args[name]; done || name == "" {
			continue
		}
		p, _ := props[name].(map[string]any)
		v, ok, why := declaredValue(p, "/"+name, 0)
		if !ok {
			return nil, "in the tool's inputSchema, " + why + ", and a value would have to be made up"
		}
		args[name] = v
	}
	return args, ""
}
