package scan

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/probe"
)

func TestCrawlAsLabelsNumbersAndRedacts(t *testing.T) {
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
	opts := &Options{
		Probe: probe.Config{Start: start, Budget: 30 * time.Second, MaxPages: 10, Concurrency: 1},
		Identities: []Identity{
			{Name: "anon"},
			{Name: "admin", Header: http.Header{"Authorization": {"Bearer top-secret"}}},
		},
	}
	res, views, err := crawlAs(context.Background(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(views) != 2 || views[0].Name != "anon" || views[1].Name != "admin" || views[1].Recording != res.Recording {
		t.Fatalf("views %+v", views)
	}
	// The privileged view is numbered first, then each lower one in rank
	// order, so IDs are unique and ascending in that order.
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
	// anon crawled both pages itself, so only the missing sibling was added.
	if n := len(views[0].Recording.Exchanges); n != 3 {
		t.Errorf("anon view has %d exchanges, want 2 crawled and 1 missing sibling", n)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "each got 15s of the budget to crawl and probe, and 5 pages") {
		t.Errorf("notes %q lack the budget split", res.Notes)
	}
	if seen["Bearer top-secret"] == 0 || seen[""] == 0 {
		t.Errorf("server saw %v, want requests with the credential and without", seen)
	}
}

func TestMissingSibling(t *testing.T) {
	for in, want := range map[string]string{
		"http://a.test/orders/1?x=1": "http://a.test/orders/" + MissingSegment,
		"http://a.test/orders/":      "http://a.test/" + MissingSegment,
		"http://a.test/":             "",
	} {
		got, ok := MissingSibling(in)
		if got != want || ok != (want != "") {
			t.Errorf("MissingSibling(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}
