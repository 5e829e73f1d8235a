package trialplan

import (
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// toolTasks makes a task of each listed tool, in listing order, that is
// not marked read-only, projects no OpenAPI operation and acts on no
// resource the scan saw (no task, affordance or next_actions names it).
// What such a tool acts on is not an HTTP resource a player can read
// before and after, so only player A plays it, with its declared values
// alone, and its result decides: a result not marked isError is success.
// Its kind is the MCP endpoint's path, where the call goes; it has no
// state.
func toolTasks(snap *mcp.Snapshot, tools map[string]*mcp.Tool, doc *spec.Document, named map[string]bool) []task {
	if len(tools) == 0 {
		return nil
	}
	if doc != nil {
		for _, op := range doc.Operations {
			if t := toolOf(op, tools); t != nil {
				named[t.Name] = true
			}
		}
	}
	kind := exchange.PathOf(snap.Endpoint.URL)
	var out []task
	for i := range snap.Listings[0].Tools {
		t := &snap.Listings[0].Tools[i]
		if tools[t.Name] != t || named[t.Name] {
			continue // a repeated name, or a tool that acts on a resource
		}
		if t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint {
			continue
		}
		named[t.Name] = true
		out = append(out, task{TrialTask: exchange.TrialTask{Kind: kind, Operation: t.Name}, resources: []string{snap.Endpoint.URL}, tool: t})
	}
	return out
}

// namedByResources are the operations the crawled resources name: the
// tasks made of their controls, and every affordance, template and
// next_actions entry, played or not.
func namedByResources(tasks []task, resources []*resource, idx *spec.Index) map[string]bool {
	named := map[string]bool{}
	for _, t := range tasks {
		named[t.Operation] = true
	}
	for _, r := range resources {
		for _, o := range r.offers {
			named[operationName(o, idx)] = true
			named[o.Name] = true
		}
		for _, n := range r.nextActions {
			named[n] = true
		}
	}
	return named
}

// notAllowed is why a tool task is not played when the allow-list does
// not name its tool; the plan counts those in one note.
const notAllowed = "the allow-list does not name it"

// toolRun is player A's run of a tool task: the tools/call alone, with the
// arguments the tool's inputSchema declares values for (there is no
// resource to read, and no read would show a repeat's effect); why it is
// not played instead, when a value would have to be guessed or the
// allow-list does not name the tool.
func toolRun(in Input, t *task) (exchange.TrialRun, string) {
	if !in.Rules.AllowsTool(t.tool.Name) {
		return exchange.TrialRun{}, notAllowed
	}
	args, why := declaredArguments(t.tool, nil)
	if why != "" {
		return exchange.TrialRun{}, why
	}
	call := toolCall(in.MCP.Endpoint.URL, t.tool, args)
	call.Purpose, call.Role = Purpose(exchange.PlayerCatalog, exchange.StepCall), exchange.StepCall
	return exchange.TrialRun{Task: t.ID, Player: exchange.PlayerCatalog, Resource: in.MCP.Endpoint.URL, Identity: in.Identity,
		Steps: []exchange.TrialStep{call}}, ""
}
