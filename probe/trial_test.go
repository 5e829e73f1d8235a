package probe

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
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

// A cleanup goes to the URL the attempt's answer gives: a 201's Location,
// else the id in its body filling the item path, and only on the target's
// origin and at the item path the cleanup was planned for; a cleanup not
// sent takes its read with it.
func TestTrialCleanupTakesTheCreatedURL(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/located":
			w.Header().Set("Location", "/located/7")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"ignored"}`))
		case r.Method == http.MethodPost && r.URL.Path == "/bodied":
			_, _ = w.Write([]byte(`{"name":"x","id":12}`))
		case r.Method == http.MethodPost && r.URL.Path == "/elsewhere":
			w.Header().Set("Location", "http://other.example/elsewhere/3")
			w.WriteHeader(http.StatusCreated)
		case r.Method == http.MethodDelete:
			_, _ = w.Write([]byte(`{"ok":true}`))
		case r.Method == http.MethodGet && (r.URL.Path == "/located/7" || r.URL.Path == "/bodied/12"):
			w.WriteHeader(http.StatusNotFound)
		default:
			_, _ = w.Write([]byte(`[]`))
		}
	}))
	defer srv.Close()
	start, _ := url.Parse(srv.URL + "/")
	runOn := func(collection string) exchange.TrialRun {
		get := func(role, u string) exchange.TrialStep {
			return exchange.TrialStep{Role: role, Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Purpose: "trial/A/" + role, Method: http.MethodGet, URL: u}}
		}
		call := exchange.TrialStep{Role: exchange.StepCall, Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Purpose: "trial/A/call", Method: http.MethodPost, URL: srv.URL + collection, Header: http.Header{}}}
		cleanup := exchange.TrialStep{Role: exchange.StepCleanup, Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{Purpose: "trial/A/cleanup", Method: http.MethodDelete, URL: exchange.CreatedURL}}
		return exchange.TrialRun{Task: 1, Player: "A", Resource: srv.URL + collection, CreatedAt: srv.URL + collection + "/{item_id}",
			Steps: []exchange.TrialStep{get(exchange.StepRead, srv.URL+collection), call, get(exchange.StepReread, srv.URL+collection), cleanup, get(exchange.StepCleanupRead, exchange.CreatedURL)}}
	}
	s := Session{
		Config: Config{Start: start, Budget: 30 * time.Second, MaxPages: 1},
		Trial: &TrialSession{
			Plan: func(View, *spec.Document, *mcp.Snapshot) *exchange.TrialPlan {
				return &exchange.TrialPlan{Tasks: []exchange.TrialTask{{ID: 1}}, Runs: []exchange.TrialRun{runOn("/located"), runOn("/bodied"), runOn("/elsewhere")}}
			},
			Confirm: func(*exchange.TrialPlan) error { return nil },
		},
	}
	out, err := RunSession(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"/located/7", "/bodied/12"} {
		r := out.Trial.Runs[i]
		if roles := []string{"read", "call", "reread", "cleanup", "cleanup-read"}; !slices.Equal(r.Roles, roles) {
			t.Fatalf("run %d: roles %v, want %v", i, r.Roles, roles)
		}
		if d, g := r.Exchanges[3].Request, r.Exchanges[4].Request; d.Method != http.MethodDelete || d.URL != srv.URL+want || g.URL != srv.URL+want {
			t.Errorf("run %d: cleanup %s %s then %s, want DELETE and GET %s", i, d.Method, d.URL, g.URL, want)
		}
	}
	if want := []string{"read", "call", "reread"}; !slices.Equal(out.Trial.Runs[2].Roles, want) {
		t.Errorf("created off the origin: roles %v, want %v", out.Trial.Runs[2].Roles, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.ContainsFunc(seen, func(r string) bool { return strings.Contains(r, "(") }) {
		t.Errorf("the placeholder was sent: %q", seen)
	}
}
