package trial

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

const items = "http://a/items"

// creation is a run of POST /items whose answer names the created item by
// its id, with the roles and exchanges of the cleanup that followed.
func creation(steps []exchange.TrialStep, noCleanup string, status int, tail ...*exchange.Exchange) *exchange.TrialPlan {
	read := func(role string) *exchange.Exchange {
		return checkstest.Exchange("trial/A/"+role, http.MethodGet, items).Status(200).Header("Content-Type", "application/json").Body(`[]`).Build()
	}
	call := checkstest.Exchange("trial/A/call", http.MethodPost, items).Status(status).Header("Content-Type", "application/json").Body(`{"id":"4","name":"n"}`).Build()
	xs := append([]*exchange.Exchange{read("read"), call, read("reread")}, tail...)
	roles := []string{exchange.StepRead, exchange.StepCall, exchange.StepReread, exchange.StepCleanup, exchange.StepCleanupRead}[:len(xs)]
	for i, x := range xs {
		x.ID = fmt.Sprintf("x%04d", i+1)
	}
	return &exchange.TrialPlan{Reset: exchange.ResetDistinct, Sent: true,
		Tasks: []exchange.TrialTask{{ID: 1, Kind: "/items", Operation: "createItem"}},
		Runs: []exchange.TrialRun{{Task: 1, Player: "A", Resource: items, Steps: steps, Exchanges: xs, Roles: roles,
			CreatedAt: items + "/{item_id}", NoCleanup: noCleanup}}}
}

func answered(method string, status int) *exchange.Exchange {
	return checkstest.Exchange("trial/A/cleanup", method, items+"/4").Status(status).Header("Content-Type", "application/json").Body(`{}`).Build()
}

// Each run that created a resource says its URL and whether it was
// cleaned; the section totals them and lists what was left, and the
// cleanup is not counted as the player's requests.
func TestCleanupInTheSection(t *testing.T) {
	planned := []exchange.TrialStep{{Role: exchange.StepCall, Via: exchange.ViaHTTP}, {Role: exchange.StepCleanup}, {Role: exchange.StepCleanupRead}}
	callOnly := []exchange.TrialStep{{Role: exchange.StepCall, Via: exchange.ViaHTTP}}
	for name, tc := range map[string]struct {
		plan             *exchange.TrialPlan
		created, cleanup string
		why              string
	}{
		"cleaned":         {plan: creation(planned, "", 201, answered(http.MethodDelete, 200), answered(http.MethodGet, 404)), created: items + "/4", cleanup: "cleaned"},
		"delete refused":  {plan: creation(planned, "", 201, answered(http.MethodDelete, 405), answered(http.MethodGet, 200)), created: items + "/4", cleanup: "left", why: "the DELETE was refused with 405"},
		"still there":     {plan: creation(planned, "", 201, answered(http.MethodDelete, 200), answered(http.MethodGet, 200)), created: items + "/4", cleanup: "left", why: "the DELETE was accepted, and the resource still answers 200"},
		"not allowed":     {plan: creation(callOnly, "the allow-list does not name DELETE /items/{item_id}", 201), created: items + "/4", cleanup: "left", why: "the allow-list does not name DELETE /items/{item_id}"},
		"refused attempt": {plan: creation(planned, "", 422)},
	} {
		in := checkstest.Input("http://a/", nil)
		in.Trial = tc.plan
		rep := &finding.Report{}
		section{}.Annotate(in, rep)
		tr := rep.Trials
		r := tr.Tasks[0].Runs[0]
		if r.Created != tc.created || r.Cleanup != tc.cleanup || r.CleanupNote != tc.why {
			t.Errorf("%s: created %q %q %q, want %q %q %q", name, r.Created, r.Cleanup, r.CleanupNote, tc.created, tc.cleanup, tc.why)
		}
		if r.Requests != 3 || tr.Players[0].Requests != 3 {
			t.Errorf("%s: %d requests (player %d), want the read, the call and the re-read alone", name, r.Requests, tr.Players[0].Requests)
		}
		wantLeft := 0
		if tc.cleanup == "left" {
			wantLeft = 1
		}
		if created := min(1, len(tc.created)); tr.Created != created || tr.Cleaned != created-wantLeft || tr.Left != wantLeft || len(tr.LeftBehind) != wantLeft {
			t.Errorf("%s: created %d, cleaned %d, left %d %+v", name, tr.Created, tr.Cleaned, tr.Left, tr.LeftBehind)
		}
		if wantLeft == 1 && (tr.LeftBehind[0].URL != items+"/4" || tr.LeftBehind[0].Why != tc.why) {
			t.Errorf("%s: left behind %+v", name, tr.LeftBehind)
		}
	}
}
