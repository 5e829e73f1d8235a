package probe

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// A stale step goes out only after the call succeeded and when the read
// carried an entity tag, which it takes as If-Match; a stale step not sent
// takes its re-read with it.
func TestTrialStaleStepTakesTheReadsTag(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("If-Match"))
		mu.Unlock()
		if r.Method == http.MethodGet && r.URL.Path == "/items/1" {
			w.Header().Set("ETag", `"v1"`)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"state":"draft"}`))
	}))
	defer srv.Close()
	start, _ := url.Parse(srv.URL + "/")
	steps := func(item string) []exchange.TrialStep {
		get := func(role string) exchange.TrialStep {
			return exchange.TrialStep{Role: role, Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Purpose: "trial/B/" + role, Method: http.MethodGet, URL: srv.URL + item}}
		}
		call := exchange.TrialStep{Role: exchange.StepCall, Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Purpose: "trial/B/call", Method: http.MethodPost, URL: srv.URL + item + "/publish", Header: http.Header{}}}
		stale := call
		stale.Role, stale.Purpose, stale.Header = exchange.StepStale, "trial/B/stale", http.Header{"If-Match": {exchange.StaleETag}}
		return []exchange.TrialStep{get(exchange.StepRead), call, get(exchange.StepReread), stale, get(exchange.StepReread)}
	}
	s := Session{
		Config: Config{Start: start, Budget: 30 * time.Second, MaxPages: 1},
		Trial: &TrialSession{
			Plan: func(View, *spec.Document, *mcp.Snapshot) *exchange.TrialPlan {
				return &exchange.TrialPlan{Tasks: []exchange.TrialTask{{ID: 1}}, Runs: []exchange.TrialRun{
					{Task: 1, Player: "B", Resource: srv.URL + "/items/1", Steps: steps("/items/1")},
					{Task: 1, Player: "B", Resource: srv.URL + "/items/2", Steps: steps("/items/2")},
				}}
			},
			Confirm: func(*exchange.TrialPlan) error { return nil },
		},
	}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	tagged, untagged := out.Trial.Runs[0], out.Trial.Runs[1]
	if want := []string{"read", "call", "reread", "stale", "reread"}; !slices.Equal(tagged.Roles, want) {
		t.Errorf("roles %v, want %v", tagged.Roles, want)
	}
	if got := tagged.Exchanges[3].Request.Header.Get("If-Match"); got != `"v1"` {
		t.Errorf("stale If-Match %q, want the read's tag", got)
	}
	if want := []string{"read", "call", "reread"}; !slices.Equal(untagged.Roles, want) {
		t.Errorf("without a tag: roles %v, want %v", untagged.Roles, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.ContainsFunc(seen, func(r string) bool { return r == "POST /items/1/publish "+exchange.StaleETag }) {
		t.Errorf("the placeholder was sent: %q", seen)
	}
}
