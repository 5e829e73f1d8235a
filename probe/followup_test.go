package probe

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
)

func TestFollowUpRoundSeesFirstRoundAndRunsOnce(t *testing.T) {
	srv, rec := serve(t, routes{
		"/":         halBody(`{"_links":{"self":{"href":"/"}}}`),
		"/llms.txt": func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("- [a](/a)\n")) },
		"/a":        halBody(`{}`),
	})
	plan := func(_, _ []*exchange.Exchange) []exchange.PlannedRequest {
		return []exchange.PlannedRequest{{Purpose: "t/doc", Method: http.MethodGet, URL: srv.URL + "/llms.txt"}}
	}
	calls := 0
	cfg := Config{Start: mustParse(t, srv.URL+"/")}
	cfg.followUp = func(crawled, samples, probes []*exchange.Exchange) []exchange.PlannedRequest {
		calls++
		if len(probes) != 1 || probes[0].Purpose != "t/doc" || string(probes[0].Response.Body) != "- [a](/a)\n" {
			t.Errorf("follow-up saw probes %+v", probes)
		}
		return []exchange.PlannedRequest{
			{Purpose: "t/link", Method: http.MethodHead, URL: srv.URL + "/a", BasedOn: srv.URL + "/llms.txt"},
			{Purpose: "t/doc", Method: http.MethodGet, URL: srv.URL + "/llms.txt"}, // already sent
			{Purpose: "t/link", Method: http.MethodGet, URL: "http://elsewhere.test/x"},
			{Purpose: "t/link", Method: http.MethodPost, URL: srv.URL + "/a"},
		}
	}
	res := run(t, cfg, plan)
	if calls != 1 {
		t.Errorf("follow-up planned %d times, want once", calls)
	}
	if x := res.Recording.Probe("t/link", srv.URL+"/llms.txt"); x == nil || x.Request.Method != http.MethodHead || x.Response.Status != 200 {
		t.Errorf("follow-up probe missing or wrong: %+v", x)
	}
	var llms int
	for _, r := range rec.requests() {
		if r.Path == "/llms.txt" {
			llms++
		}
		if r.Method == http.MethodPost {
			t.Error("an unsafe follow-up was sent")
		}
	}
	if llms != 1 {
		t.Errorf("/llms.txt fetched %d times, want 1", llms)
	}
	if res.Stats.Skipped[skipProbeOffOrigin] != 1 {
		t.Errorf("off-origin follow-up not counted: %v", res.Stats.Skipped)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return n != "" }) {
		t.Error("refused unsafe follow-up left no note")
	}
}

// TestFollowUpRoundKeepsTimeWhenTheFirstRunsOut: a first round larger than
// the budget leaves the follow-up round time of its own, since the repeats
// that confirm a comparison are sent only then.
func TestFollowUpRoundKeepsTimeWhenTheFirstRunsOut(t *testing.T) {
	t.Parallel()
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("slow") {
			time.Sleep(50 * time.Millisecond)
		}
		halBody(`{}`)(w, r)
	}))
	plan := func(_, _ []*exchange.Exchange) []exchange.PlannedRequest {
		var out []exchange.PlannedRequest
		for i := range 200 {
			out = append(out, exchange.PlannedRequest{Purpose: "t/slow", Method: http.MethodGet, URL: fmt.Sprintf("%s/?slow&n=%d", srv.URL, i)})
		}
		return out
	}
	cfg := Config{Start: mustParse(t, srv.URL+"/"), Concurrency: 1, Budget: 1500 * time.Millisecond}
	cfg.followUp = func(_, _, _ []*exchange.Exchange) []exchange.PlannedRequest {
		return []exchange.PlannedRequest{{Purpose: "t/repeat", Method: http.MethodGet, URL: srv.URL + "/?repeat"}}
	}
	res := run(t, cfg, plan)
	if !slices.ContainsFunc(rec.requests(), func(r seenRequest) bool { return r.Query == "repeat" }) {
		t.Errorf("the follow-up was never sent; the first round sent %d probes", res.Stats.Probes)
	}
}
