package trialplan

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
)

// orderPage is a HAL order in state st that offers cancel by an affordance
// and a template, and pay by next_actions alone.
func orderPage(id int, st string) *exchange.Exchange {
	doc := fmt.Sprintf(`{"id":%d,"state":%q,"version":1,"_links":{"self":{"href":"/orders/%d"}},
	"affordances":[{"operation":"cancelOrder","method":"POST","target":"/orders/%d/cancellation","arguments":{"id":%d}}],
	"_templates":{"cancel":{"method":"POST","target":"/orders/%d/cancellation","contentType":"application/json",
		"properties":[{"name":"reason","required":true,"type":"text"}]},
		"default":{"method":"GET","target":"/orders/%d"}},
	"next_actions":[{"operation":"payOrder"},{"operation":"cancelOrder"}]}`, id, st, id, id, id, id, id)
	return checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, fmt.Sprintf("http://a/orders/%d", id)).
		Status(200).Header("Content-Type", "application/hal+json").Body(doc).Build()
}

func recording(xs ...*exchange.Exchange) *exchange.Recording {
	return &exchange.Recording{Target: "http://a/", Exchanges: xs}
}

func snapshot(tools ...string) *mcp.Snapshot {
	snap := &mcp.Snapshot{Endpoint: mcp.Endpoint{URL: "http://a/mcp"}, Verdict: mcp.Verdict{Era: mcp.EraModern}, Listings: []mcp.Listing{{}}}
	for _, raw := range tools {
		var t mcp.Tool
		if err := json.Unmarshal([]byte(raw), &t); err != nil {
			panic(err)
		}
		t.NameValid = true
		snap.Listings[0].Tools = append(snap.Listings[0].Tools, t)
	}
	snap.Catalog.Tokens = 100
	return snap
}

const cancelTool = `{"name":"cancelOrder","inputSchema":{"type":"object","properties":{"id":{"type":"integer"},"reason":{"type":"string"}},"required":["id"]},
	"annotations":{"idempotentHint":true}}`

func rules(t *testing.T, entries ...string) activeplan.Rules {
	t.Helper()
	rs, err := activeplan.ParseRules(entries)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

type runLine struct{ player, resource, via string }

func lines(p *exchange.TrialPlan) []runLine {
	var out []runLine
	for _, r := range p.Runs {
		out = append(out, runLine{r.Player, exchange.PathOf(r.Resource), viaOfRun(r)})
	}
	return out
}

func viaOfRun(r exchange.TrialRun) string {
	for _, s := range r.Steps {
		if s.Role == exchange.StepCall {
			return s.Via
		}
	}
	return ""
}

// One task per operation an affordance or a template offers on a kind in
// a state; next_actions alone make a task only when its request can be
// told (flowRuns). Each player plays it through
// what it reads, only as far as the allow-list names it.
func TestTasksAndPlayers(t *testing.T) {
	rec := recording(orderPage(1, "pending"), orderPage(2, "pending"), orderPage(3, "paid"))
	p := Plan(Input{Recording: rec, Identity: "admin", MCP: snapshot(cancelTool), Rules: rules(t, "mcp:*", "POST /orders/*/cancellation"), Reset: exchange.ResetRestart})
	var tasks []string
	for _, tk := range p.Tasks {
		tasks = append(tasks, tk.Operation+" "+tk.State)
	}
	if want := []string{"cancelOrder pending", "cancelOrder paid"}; !slices.Equal(tasks, want) {
		t.Errorf("tasks %v, want %v", tasks, want)
	}
	// Without a document, the step next_actions alone names has no
	// request to send: a note per kind and state says so.
	if len(p.Notes) != 2 || !strings.Contains(p.Notes[0], "payOrder on /orders/{id} (pending) is not played: no operation of the OpenAPI document") {
		t.Errorf("notes %q, want one per state on the next_actions-only operation", p.Notes)
	}
	want := []runLine{{"A", "/orders/1", exchange.ViaMCP}, {"B", "/orders/1", exchange.ViaHTTP}, {"C", "/orders/1", exchange.ViaHTTP},
		{"A", "/orders/3", exchange.ViaMCP}, {"B", "/orders/3", exchange.ViaHTTP}, {"C", "/orders/3", exchange.ViaHTTP}}
	if got := lines(p); !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
	if p.Tasks[0].Idempotent == nil || !*p.Tasks[0].Idempotent {
		t.Error("the tool's idempotentHint was not carried onto the task")
	}
	a := p.Runs[0]
	roles := []string{}
	for _, s := range a.Steps {
		roles = append(roles, s.Role)
	}
	if want := []string{"read", "call", "reread", "repeat", "reread"}; !slices.Equal(roles, want) {
		t.Errorf("A's steps %v, want %v (the tool is declared idempotent)", roles, want)
	}
	call := a.Steps[1]
	if call.Tool != "cancelOrder" || call.Header.Get("Mcp-Name") != "cancelOrder" || !strings.Contains(string(call.Body), `"arguments":{"id":1}`) {
		t.Errorf("A's call = %s %s %s", call.Tool, call.Header, call.Body)
	}
	if c := p.Runs[2].Steps; c[0].Header.Get("Accept") != "application/prs.hal-forms+json, application/hal+json;q=0.9" ||
		string(c[1].Body) != `{"reason":"agentready active probe"}` || len(c) != 3 {
		t.Errorf("C's steps = %+v", c)
	}
	if b := p.Runs[1].Steps[1]; string(b.Body) != `{}` || b.URL != "http://a/orders/1/cancellation" {
		t.Errorf("B's call = %s %s: an affordance's arguments fill the path, not the body", b.URL, b.Body)
	}
	if p.Writes() != 8 {
		t.Errorf("writes %d, want 8 (A's call and repeat, B's and C's calls, twice)", p.Writes())
	}
}

// Nothing the allow-list does not name is planned: an HTTP rule allows no
// tools/call, and an mcp: rule no HTTP request.
func TestAllowList(t *testing.T) {
	rec := recording(orderPage(1, "pending"))
	httpOnly := Plan(Input{Recording: rec, MCP: snapshot(cancelTool), Rules: rules(t, "POST /orders/*/cancellation"), Reset: exchange.ResetRestart})
	if got, want := lines(httpOnly), []runLine{{"B", "/orders/1", "http"}, {"C", "/orders/1", "http"}}; !slices.Equal(got, want) {
		t.Errorf("HTTP rule: runs %v, want %v", got, want)
	}
	mcpOnly := Plan(Input{Recording: rec, MCP: snapshot(cancelTool), Rules: rules(t, "mcp:cancelOrder"), Reset: exchange.ResetRestart})
	if got, want := lines(mcpOnly), []runLine{{"A", "/orders/1", "mcp"}}; !slices.Equal(got, want) {
		t.Errorf("mcp: rule: runs %v, want %v", got, want)
	}
	none := Plan(Input{Recording: rec, MCP: snapshot(cancelTool), Rules: rules(t, "POST /other/*"), Reset: exchange.ResetRestart})
	if len(none.Runs) != 0 || len(none.Tasks) != 0 {
		t.Errorf("nothing allowed, got %d runs", len(none.Runs))
	}
}

// Without a reset, each run acts on a resource of its own: a task with
// fewer resources in its state than players is played by fewer.
func TestDistinctResources(t *testing.T) {
	rec := recording(orderPage(1, "pending"), orderPage(2, "pending"))
	p := Plan(Input{Recording: rec, MCP: snapshot(cancelTool), Rules: rules(t, "mcp:*", "POST /orders/*/cancellation"), Reset: exchange.ResetDistinct})
	want := []runLine{{"A", "/orders/1", "mcp"}, {"B", "/orders/2", "http"}}
	if got := lines(p); !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
	if b := p.Runs[1].Steps[1]; b.URL != "http://a/orders/2/cancellation" {
		t.Errorf("B's call went to %s, not to its own resource", b.URL)
	}
	if a := p.Runs[0].Steps[1]; !strings.Contains(string(a.Body), `"id":1`) {
		t.Errorf("A's call %s does not name its own resource", a.Body)
	}
}

// The bounds stop the plan and say so.
func TestBounds(t *testing.T) {
	rec := recording(orderPage(1, "pending"), orderPage(3, "paid"))
	in := Input{Recording: rec, MCP: snapshot(cancelTool), Rules: rules(t, "mcp:*", "POST /orders/*/cancellation"), Reset: exchange.ResetRestart}
	in.MaxTasks = 1
	if p := Plan(in); len(p.Tasks) != 1 || !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "trial.tasks") }) {
		t.Errorf("tasks %d, notes %q", len(p.Tasks), p.Notes)
	}
	in.MaxTasks, in.MaxWrites = 0, 5
	if p := Plan(in); len(p.Tasks) != 1 || p.Writes() > 5 || !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "trial.writes") }) {
		t.Errorf("tasks %d, writes %d, notes %q", len(p.Tasks), p.Writes(), p.Notes)
	}
}

// Without an MCP catalog, A calls the OpenAPI operation; a resource
// without a state, or a control with a safe method, is no task.
func TestNoStateNoTask(t *testing.T) {
	stateless := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, "http://a/notes/1").Status(200).
		Header("Content-Type", "application/hal+json").
		Body(`{"affordances":[{"operation":"archiveNote","method":"POST","target":"/notes/1/archive"}]}`).Build()
	p := Plan(Input{Recording: recording(stateless), Rules: rules(t, "POST /notes/*/archive"), Reset: exchange.ResetRestart})
	if len(p.Tasks) != 0 {
		t.Errorf("tasks %+v on a resource without a state", p.Tasks)
	}
	if p := Plan(Input{Rules: rules(t, "mcp:*")}); p == nil || len(p.Runs) != 0 {
		t.Error("a plan without a recording should be empty, not nil")
	}
}
