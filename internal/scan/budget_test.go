package scan_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/longtest"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// testBudget is short, so that the budget and not the per-request timeout
// or the crawl's end is what stops a scan of these servers.
const testBudget = 5 * time.Second

// hangGuard ends a test whose scan never returns. It is not a performance
// figure: the unbounded scans of these servers run for minutes or forever,
// and what proves the budget held are the notes and counts each test reads.
const hangGuard = 3 * time.Minute

// scanWithin scans h with the test budget and fails when the scan does not
// return at all.
func scanWithin(t *testing.T, h http.Handler, opts scan.Options) *finding.Report {
	t.Helper()
	opts.Probe.Budget = testBudget
	done := make(chan *finding.Report, 1)
	go func() {
		var rep *finding.Report
		defer func() { done <- rep }() // also after a t.FailNow in runOn
		r, err := runOn(t, h, opts)
		if err != nil {
			t.Error(err)
			return
		}
		rep = r
	}()
	select {
	case rep := <-done:
		if rep == nil {
			t.FailNow()
		}
		renderAll(t, rep)
		return rep
	case <-time.After(hangGuard):
		t.Fatalf("a scan with a budget of %s had not returned after %s", testBudget, hangGuard)
		return nil
	}
}

func noteWith(t *testing.T, rep *finding.Report, part string) {
	t.Helper()
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, part) }) {
		t.Errorf("no note mentions %q: %q", part, rep.Notes)
	}
}

// TestLinkFloodStaysWithinBudget: every page is 1.96 MB and links to 90,000
// URLs over 10,000 path shapes.
func TestLinkFloodStaysWithinBudget(t *testing.T) {
	longtest.Skip(t, "scans 2 MB pages with 90,000 links each until a 5 s budget ends")
	rep := scanWithin(t, hostile.LinkFlood(), scan.Options{})
	noteWith(t, rep, "took 1000 of 91001 links from GET /")
	noteWith(t, rep, "cut by the per-page bound (--max-links-per-page)")
	if rep.Stats.Skipped["max-links-per-page"] < 90_000 {
		t.Errorf("skipped %v, want the links cut counted", rep.Stats.Skipped)
	}
}

// stallingAfterCrawl answers the crawl at once and holds every other
// request (planned probes, follow-ups, MCP) until the client gives up.
func stallingAfterCrawl() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Accept") == probe.CrawlAccept {
			w.Header().Set("Content-Type", "application/hal+json")
			w.Write([]byte(`{"_links": {"self": {"href": "/"}, "items": {"href": "/items/1"}}}`))
			return
		}
		<-r.Context().Done()
	})
}

func TestSlowProbesAndMCPStayWithinBudget(t *testing.T) {
	longtest.Skip(t, "waits out a 5 s budget")
	// A per-request timeout longer than the budget: only the budget can end
	// the stalled requests.
	rep := scanWithin(t, stallingAfterCrawl(), scan.Options{Probe: probe.Config{Timeout: time.Minute}})
	noteWith(t, rep, "the planned probes stopped when the time for crawling and probing ran out")
	noteWith(t, rep, "the MCP endpoint was not examined: the budget ran out")
	// Cut by its budget, not interrupted: graded on what it reached.
	if rep.Stats.Interrupted || rep.Coverage.Stopped() || !slices.Equal(rep.Stats.BudgetCut, []string{finding.CutProbes, finding.CutMCP}) {
		t.Errorf("interrupted %v (%q), budget cut %q; want the probes and MCP cut", rep.Stats.Interrupted, rep.Coverage.Interrupted, rep.Stats.BudgetCut)
	}
	if rep.Score.Grade == finding.GradeNotAssessed {
		t.Errorf("a scan cut by its budget has no grade: %s", rep.Score.Basis)
	}
	if rep.MCP != nil {
		t.Errorf("an MCP examination cut half-way was reported: %+v", rep.MCP)
	}
}
