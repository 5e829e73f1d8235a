package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
)

// TestSessionAsIdentitiesLabelsNumbersAndRedacts: each identity's view is
// labelled with its name, every exchange has its own ID, ascending from the
// privileged view to the lower ones, the privileged credential is redacted,
// and a lower identity fetches what PlanAsIdentity plans from the privileged
// recording.
func TestSessionAsIdentitiesLabelsNumbersAndRedacts(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/hal+json")
		if r.URL.Path == "/" {
			_, _ = w.Write([]byte(`{"_links":{"self":{"href":"/"},"item":{"href":"/items/1"}}}`))
			return
		}
		_, _ = w.Write([]byte(`{"_links":{"self":{"href":"/items/1"}}}`))
	}))
	defer srv.Close()
	start, _ := url.Parse(srv.URL + "/")
	var planned []int
	s := Session{
		Config: Config{Start: start, Budget: 30 * time.Second, MaxPages: 10, Concurrency: 1},
		Identities: Describe([]Identity{
			{Caller: exchange.Caller{Name: "anon"}},
			{Caller: exchange.Caller{Name: "admin", Roles: []string{"admin"}}, Header: http.Header{"Authorization": {"Bearer top-secret"}}},
		}, nil),
		PlanAsIdentity: func(privileged *exchange.Recording, pages int) Planner {
			planned = append(planned, len(privileged.Exchanges), pages)
			return func(crawled, _ []*exchange.Exchange) []exchange.PlannedRequest {
				return []exchange.PlannedRequest{{Purpose: "test/extra", Method: http.MethodGet, URL: srv.URL + "/items/2"}}
			}
		},
	}
	out, err := RunSession(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	views := out.Views
	if len(views) != 2 || views[0].Name != "anon" || views[1].Name != "admin" || views[1].Recording != out.Recording {
		t.Fatalf("views %+v", views)
	}
	// Each view carries its identity's Caller as Describe made it, and the
	// most privileged one is the caller of the outcome's recording.
	for i, v := range views {
		if !reflect.DeepEqual(v.Caller, s.Identities[i].Caller) {
			t.Errorf("view %d's caller %+v, want the identity's %+v", i, v.Caller, s.Identities[i].Caller)
		}
	}
	if !reflect.DeepEqual(out.Caller, s.Identities[1].Caller) {
		t.Errorf("the outcome's caller %+v, want admin's %+v", out.Caller, s.Identities[1].Caller)
	}
	if len(planned) != 2 || planned[0] != 2 || planned[1] != 5 {
		t.Errorf("PlanAsIdentity saw %v, want the privileged 2 exchanges and 5 pages", planned)
	}
	ids := map[string]bool{}
	last := ""
	for _, v := range append(views[1:], views[0]) {
		for _, x := range v.Recording.Exchanges {
			if x.Identity != v.Name {
				t.Errorf("%s labelled %q in %s's view", x.ID, x.Identity, v.Name)
			}
			if ids[x.ID] || x.ID <= last {
				t.Errorf("ID %s repeated or out of order after %s", x.ID, last)
			}
			ids[x.ID], last = true, x.ID
			if got := x.Request.Header.Get("Authorization"); v.Name == "admin" && got != "REDACTED" {
				t.Errorf("admin request header %q, want REDACTED", got)
			}
		}
	}
	if n := len(views[0].Recording.Exchanges); n != 3 {
		t.Errorf("anon view has %d exchanges, want 2 crawled and 1 planned", n)
	}
	// 30s, of which the probes of every identity get 8/10, split in two.
	if !strings.Contains(strings.Join(out.Notes, "\n"), "each got 12s of the budget to crawl and probe, and 5 pages") {
		t.Errorf("notes %q lack the budget split", out.Notes)
	}
	if seen["Bearer top-secret"] == 0 || seen[""] == 0 {
		t.Errorf("server saw %v, want requests with the credential and without", seen)
	}
}
