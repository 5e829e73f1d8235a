package probe

import (
	"context"
	"testing"
	"time"
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

// TestProgressNamesTheOldestRequestInFlight: a request counts as in flight
// from when it is sent until its answer's header is in, and the snapshot
// names the one sent first.
func TestProgressNamesTheOldestRequestInFlight(t *testing.T) {
	var p Progress
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	endB := p.Begin("GET", "/b", t0.Add(time.Second))
	endA := p.Begin("HEAD", "/a", t0)
	if got := p.Snapshot().Oldest; got != (InFlight{Method: "HEAD", Path: "/a", Since: t0}) {
		t.Errorf("oldest %+v, want HEAD /a", got)
	}
	endA()
	endA() // a second end is harmless
	if got := p.Snapshot().Oldest; got.Path != "/b" {
		t.Errorf("oldest %+v once /a is answered, want /b", got)
	}
	endB()
	if got := p.Snapshot().Oldest; got != (InFlight{}) {
		t.Errorf("oldest %+v with nothing in flight", got)
	}
	var none *Progress
	none.Begin("GET", "/", t0)()
}

// TestNoRequestStaysInFlight: once a scan is over, every request it sent
// has left the count, redirects and failures included.
func TestNoRequestStaysInFlight(t *testing.T) {
	srv, _ := serve(t, routes{"/": halBody(`{"_links": {"a": {"href": "/a"}, "gone": {"href": "/gone"}}}`), "/a": halBody(`{}`)})
	var p Progress
	run(t, Config{Start: mustParse(t, srv.URL), progress: &p}, probeEach)
	if got := p.Snapshot(); got.Requests < 3 || got.Oldest != (InFlight{}) {
		t.Errorf("after the scan: %+v", got)
	}
}
