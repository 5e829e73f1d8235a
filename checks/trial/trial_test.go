package trial

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
)

const order = "http://a/orders/1"

func body(state string, version int) string {
	return fmt.Sprintf(`{"id":1,"state":%q,"version":%d}`, state, version)
}

func get(purpose, b string) *exchange.Exchange {
	return checkstest.Exchange(purpose, http.MethodGet, order).Status(200).Header("Content-Type", "application/json").Body(b).Build()
}

// gone is a read of a resource that is no longer there.
func gone(purpose string, status int) *exchange.Exchange {
	return checkstest.Exchange(purpose, http.MethodGet, order).Status(status).Header("Content-Type", "application/problem+json").
		Body(fmt.Sprintf(`{"title":"gone","status":%d}`, status)).Build()
}

func httpCall(status int) *exchange.Exchange {
	return checkstest.Exchange("trial/B/call", http.MethodPost, order+"/cancellation").Status(status).Header("Content-Type", "application/json").Body(`{}`).Build()
}

func rpcError(code int) *exchange.Exchange {
	return checkstest.Exchange("trial/A/call", http.MethodPost, "http://a/mcp").Status(200).Header("Content-Type", "application/json").
		Body(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":"failed"}}`, code)).Build()
}

func toolCall(isError bool) *exchange.Exchange {
	return checkstest.Exchange("trial/A/call", http.MethodPost, "http://a/mcp").Status(200).Header("Content-Type", "application/json").
		Body(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"isError":%t}}`, isError)).Build()
}

// played is a plan of one task and one run that sent xs, in the roles given.
func played(task exchange.TrialTask, player, via string, roles []string, xs ...*exchange.Exchange) *exchange.TrialPlan {
	for i, x := range xs {
		x.ID = fmt.Sprintf("x%04d", i+1)
	}
	task.ID = 1
	steps := []exchange.TrialStep{{Role: exchange.StepCall, Via: via}}
	return &exchange.TrialPlan{Reset: exchange.ResetRestart, Sent: true, Tasks: []exchange.TrialTask{task},
		Runs: []exchange.TrialRun{{Task: 1, Player: player, Resource: order, Steps: steps, Exchanges: xs, Roles: roles}}}
}

var (
	yes, no   = true, false
	callRoles = []string{exchange.StepRead, exchange.StepCall, exchange.StepReread}
	repeated  = []string{exchange.StepRead, exchange.StepCall, exchange.StepReread, exchange.StepRepeat, exchange.StepReread}
	cancel    = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "cancelOrder"}
	readOnly  = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "cancelOrder", ReadOnly: &yes}
	archive   = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "archiveOrder", Destructive: &no, ReadOnly: &no}
	// unhinted leaves destructiveHint out, which defaults to true.
	unhinted = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "archiveOrder", ReadOnly: &no}
	destroy  = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "archiveOrder", Destructive: &yes, ReadOnly: &no}
	idem     = exchange.TrialTask{Kind: "/orders/{id}", State: "paid", Operation: "shipOrder", Idempotent: &yes, ReadOnly: &no}
	// toCancelled declares its target state; listed is also in the
	// resource's next_actions.
	toCancelled = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "cancelOrder", Target: "cancelled"}
	listed      = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "cancelOrder", Target: "cancelled", NextAction: true}
	listedFree  = exchange.TrialTask{Kind: "/orders/{id}", State: "pending", Operation: "cancelOrder", NextAction: true}
	staleRoles  = []string{exchange.StepRead, exchange.StepCall, exchange.StepReread, exchange.StepStale, exchange.StepReread}
	// notify is a tool that acts on no resource: its kind is the endpoint.
	notify   = exchange.TrialTask{Kind: "/mcp", Operation: "notifyTeam"}
	callOnly = []string{exchange.StepCall}
)

// staleCall is B's affordance request sent again on the read's entity tag.
func staleCall(status int) *exchange.Exchange {
	x := checkstest.Exchange("trial/B/stale", http.MethodPost, order+"/cancellation").ReqHeader("If-Match", `"v1"`).
		Status(status).Header("Content-Type", "application/json").Body(`{}`).Build()
	x.Request.Body = `{}`
	return x
}

var cases = []struct {
	name string
	plan *exchange.TrialPlan
	want []string
	// outcome is the run's outcome in the Trials section.
	outcome string
}{
	{"completed as declared", played(cancel, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), get("trial/A/reread", body("cancelled", 2))), nil, "completed"},
	{"read-only tool changed state", played(readOnly, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), get("trial/A/reread", body("cancelled", 2))),
		[]string{"trial-read-only-changed-state"}, "completed"},
	{"read-only tool that changed nothing", played(readOnly, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), get("trial/A/reread", body("pending", 1))), nil, "no change"},
	{"read-only tool refused", played(readOnly, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(true), get("trial/A/reread", body("pending", 1))), nil, "refused"},
	{"non-destructive tool removed the resource", played(archive, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), gone("trial/A/reread", 404)),
		[]string{"trial-destructive-not-declared"}, "completed"},
	{"non-destructive tool left the resource gone for good", played(archive, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), gone("trial/A/reread", 410)),
		[]string{"trial-destructive-not-declared"}, "completed"},
	{"non-destructive tool that only changed the state", played(archive, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), get("trial/A/reread", body("archived", 2))), nil, "completed"},
	{"non-destructive tool refused, the resource gone anyway", played(archive, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(true), gone("trial/A/reread", 404)), nil, "refused"},
	{"destructive tool removed the resource", played(destroy, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), gone("trial/A/reread", 404)), nil, "completed"},
	{"tool without a destructive hint removed the resource", played(unhinted, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), gone("trial/A/reread", 404)), nil, "completed"},
	// Over HTTP there is no hint: a DELETE says what it does.
	{"HTTP call removed the resource", played(archive, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(204), gone("trial/B/reread", 404)), nil, "completed"},
	{"idempotent call changed state again", played(idem, "A", exchange.ViaMCP, repeated,
		get("trial/A/read", body("paid", 2)), toolCall(false), get("trial/A/reread", body("shipped", 3)),
		toolCall(false), get("trial/A/reread", body("shipped", 4))),
		[]string{"trial-idempotent-changed-again"}, "completed"},
	{"idempotent repeat changed nothing", played(idem, "A", exchange.ViaMCP, repeated,
		get("trial/A/read", body("paid", 2)), toolCall(false), get("trial/A/reread", body("shipped", 3)),
		toolCall(false), get("trial/A/reread", body("shipped", 3))), nil, "completed"},
	{"idempotent repeat refused", played(idem, "A", exchange.ViaMCP, repeated,
		get("trial/A/read", body("paid", 2)), toolCall(false), get("trial/A/reread", body("shipped", 3)),
		toolCall(true), get("trial/A/reread", body("shipped", 4))), nil, "completed"},
	{"tool failure as a protocol error", played(cancel, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), rpcError(-32603), get("trial/A/reread", body("pending", 1))),
		[]string{"trial-tool-error-as-protocol-error"}, "refused"},
	{"unknown method as a protocol error", played(cancel, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), rpcError(-32601), get("trial/A/reread", body("pending", 1))), nil, "refused"},
	{"tool failure in the result", played(cancel, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(true), get("trial/A/reread", body("pending", 1))), nil, "refused"},
	// A tool that acts on no resource the scan saw is sent alone, with
	// nothing to read: its result decides.
	{"tool on no resource, its result not an error", played(notify, "A", exchange.ViaMCP, callOnly, toolCall(false)), nil, "completed"},
	{"tool on no resource, its result an error", played(notify, "A", exchange.ViaMCP, callOnly, toolCall(true)), nil, "refused"},
	{"tool on no resource, its failure a protocol error", played(notify, "A", exchange.ViaMCP, callOnly, rpcError(-32603)),
		[]string{"trial-tool-error-as-protocol-error"}, "refused"},
	{"offered action refused", played(cancel, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(409), get("trial/B/reread", body("pending", 1))),
		[]string{"trial-offered-action-refused"}, "refused"},
	{"offered template refused", played(cancel, "C", exchange.ViaHTTP, callRoles,
		get("trial/C/read", body("pending", 1)), httpCall(422), get("trial/C/reread", body("pending", 1))),
		[]string{"trial-offered-action-refused"}, "refused"},
	// A has no offer to follow: a refusal of a catalog entry is an
	// invalid transition attempted, counted, not a broken promise.
	{"catalog entry refused", played(cancel, "A", exchange.ViaHTTP, callRoles,
		get("trial/A/read", body("pending", 1)), httpCall(409), get("trial/A/reread", body("pending", 1))), nil, "refused"},
	{"reached the declared state", played(toCancelled, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("cancelled", 2))), nil, "completed"},
	{"accepted, changed, not to the declared state", played(toCancelled, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("archived", 2))), nil, "wrong state"},
	{"accepted, the version moved, the state did not", played(listed, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("pending", 2))), nil, "wrong state"},
	{"listed next action without effect", played(listed, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), get("trial/A/reread", body("pending", 1))),
		[]string{"trial-next-action-no-effect"}, "no change"},
	{"listed next action without effect, no state declared", played(listedFree, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("pending", 1))),
		[]string{"trial-next-action-no-effect"}, "no change"},
	{"operation not listed, without effect", played(toCancelled, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("pending", 1))), nil, "no change"},
	{"listed next action refused", played(listed, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(409), get("trial/B/reread", body("pending", 1))),
		[]string{"trial-offered-action-refused"}, "refused"},
	// A re-read that failed does not show the declared state: not a
	// success, and no proof that nothing happened either.
	{"listed next action, the re-read failed", played(listed, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), gone("trial/A/reread", 503)), nil, "wrong state"},
	{"stale version accepted", played(toCancelled, "B", exchange.ViaHTTP, staleRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("cancelled", 2)),
		staleCall(200), get("trial/B/reread", body("cancelled", 3))),
		[]string{"trial-stale-version-accepted"}, "completed"},
	{"stale version refused", played(toCancelled, "B", exchange.ViaHTTP, staleRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("cancelled", 2)),
		staleCall(412), get("trial/B/reread", body("cancelled", 2))), nil, "completed"},
	{"stale version answered 200, nothing changed", played(toCancelled, "B", exchange.ViaHTTP, staleRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("cancelled", 2)),
		staleCall(200), get("trial/B/reread", body("cancelled", 2))), nil, "completed"},
	{"offered action failed on the server", played(cancel, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(500), get("trial/B/reread", body("pending", 1))), nil, "refused"},
}

func fired(t *testing.T, plan *exchange.TrialPlan) []string {
	t.Helper()
	in := checkstest.Input("http://a/", nil)
	in.Trial = plan
	var got []string
	for _, c := range All() {
		fs, _ := checkstest.Run(t, c, in)
		got = append(got, checkstest.IDs(fs)...)
	}
	slices.Sort(got)
	return got
}

func TestChecks(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fired(t, tc.plan); !slices.Equal(got, tc.want) {
				t.Errorf("fired %v, want %v", got, tc.want)
			}
			in := checkstest.Input("http://a/", nil)
			in.Trial = tc.plan
			rep := &finding.Report{}
			section{}.Annotate(in, rep)
			if got := rep.Trials.Tasks[0].Runs[0].Outcome; got != tc.outcome {
				t.Errorf("outcome %q, want %q", got, tc.outcome)
			}
		})
	}
}

// Without a played trial nothing is judged: a scan without --trial, and
// one that only printed the plan.
func TestSkipsWithoutAPlayedTrial(t *testing.T) {
	for name, plan := range map[string]*exchange.TrialPlan{"no trial": nil, "plan only": {PlanOnly: true, Reset: exchange.ResetDistinct}} {
		in := checkstest.Input("http://a/", nil)
		in.Trial = plan
		for _, c := range All() {
			if _, reason := checkstest.Run(t, c, in); reason == "" {
				t.Errorf("%s: %s was assessed", name, c.Meta().ID)
			}
		}
	}
}

// The section totals each player's runs, counts the catalog as what A
// read, and leaves a plan-only trial without figures.
func TestSection(t *testing.T) {
	plan := played(cancel, "B", exchange.ViaHTTP, callRoles,
		get("trial/B/read", body("pending", 1)), httpCall(409), get("trial/B/reread", body("pending", 1)))
	in := checkstest.Input("http://a/", nil)
	in.Trial = plan
	rep := &finding.Report{}
	section{}.Annotate(in, rep)
	b := rep.Trials.Players[1]
	if b.Player != "B" || b.Interface != finding.InterfaceReferenced || b.Tasks != 1 || b.Completed != 0 || b.Requests != 3 || b.Refused != 1 || b.Tokens == 0 {
		t.Errorf("player B = %+v", b)
	}
	if a := rep.Trials.Players[0]; a.Tasks != 0 {
		t.Errorf("player A played nothing, got %+v", a)
	}
	// A reads the catalog before it acts, as the interfaces section
	// counts it: here an MCP catalog of 1000 tokens.
	played := played(cancel, "A", exchange.ViaMCP, callRoles,
		get("trial/A/read", body("pending", 1)), toolCall(false), get("trial/A/reread", body("cancelled", 2)))
	in = checkstest.Input("http://a/", nil)
	in.Trial = played
	in.MCP = &mcp.Snapshot{Catalog: mcp.Catalog{Tokens: 1000, Tools: []mcp.ToolSummary{{Name: "cancelOrder"}}}}
	rep = &finding.Report{}
	section{}.Annotate(in, rep)
	if a := rep.Trials.Players[0]; a.Tokens <= 1000 || a.Tokens > 1100 {
		t.Errorf("player A read %d tokens, want the catalog's 1000 and the call's answer", a.Tokens)
	}
	plan.Sent, plan.PlanOnly = false, true
	in = checkstest.Input("http://a/", nil)
	in.Trial = plan
	rep = &finding.Report{}
	section{}.Annotate(in, rep)
	if r := rep.Trials.Tasks[0].Runs[0]; r.Outcome != "planned" || r.Requests != 0 || !rep.Trials.PlanOnly {
		t.Errorf("plan-only run = %+v", r)
	}
	rep = &finding.Report{}
	section{}.Annotate(checkstest.Input("http://a/", nil), rep)
	if rep.Trials != nil {
		t.Error("a scan without a trial has a Trials section")
	}
}

// A stale request the active stale-version probe already sent, identical,
// is judged by affordance-stale-version-executed, not twice.
func TestStaleJudgedOnceWithTheActiveProbe(t *testing.T) {
	plan := played(toCancelled, "B", exchange.ViaHTTP, staleRoles,
		get("trial/B/read", body("pending", 1)), httpCall(200), get("trial/B/reread", body("cancelled", 2)),
		staleCall(200), get("trial/B/reread", body("cancelled", 3)))
	in := checkstest.Input("http://a/", nil)
	in.Trial = plan
	if fs, _ := checkstest.Run(t, StaleVersionAccepted{}, in); len(fs) != 1 {
		t.Fatalf("without an active probe: %d findings, want 1", len(fs))
	}
	probe := checkstest.Exchange(purpose.ActiveStale, http.MethodPost, order+"/cancellation").ReqHeader("If-Match", `"v1"`).Status(200).Build()
	probe.Request.Body = `{}`
	in = checkstest.Input("http://a/", nil, probe)
	in.Trial = plan
	if fs, _ := checkstest.Run(t, StaleVersionAccepted{}, in); len(fs) != 0 {
		t.Errorf("the active probe sent the identical request: %d findings, want 0", len(fs))
	}
}
