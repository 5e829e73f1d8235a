package probe

import (
	"context"
	"testing"
)

// TestProgressCountsWhatStatsCount: the progress line is fed by the same
// counts the report gives, as they happen.
func TestProgressCountsWhatStatsCount(t *testing.T) {
	page := halBody(`{"_links": {"self": {"href": "/"}}}`)
	srv, _ := serve(t, routes{
		"/":  halBody(`{"_links": {"a": {"href": "/a"}, "b": {"href": "/b"}}}`),
		"/a": page, "/b": page,
	})
	var p Progress
	if got := p.Snapshot(); got != (ProgressSnapshot{}) {
		t.Fatalf("a new Progress reads %+v", got)
	}
	res := run(t, Config{Start: mustParse(t, srv.URL), progress: &p}, probeEach)
	got := p.Snapshot()
	want := ProgressSnapshot{Phase: PhaseProbe, Pages: res.Stats.Pages, Requests: res.Stats.Requests}
	if got != want || got.Pages != 3 || got.Requests <= 3 {
		t.Errorf("progress %+v, want %+v (3 pages and their HEAD probes)", got, want)
	}
	var none *Progress
	none.SetPhase(context.Background(), PhaseCrawl)
	none.addPage()
	if none.Snapshot() != (ProgressSnapshot{}) {
		t.Error("a nil Progress kept something")
	}
}
