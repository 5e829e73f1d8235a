package checks_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
)

// outcome is a check whose Run ends as told.
type outcome struct {
	id  string
	run func() ([]finding.Finding, error)
}

func (o outcome) Meta() checks.Meta {
	return checks.Meta{ID: o.id, Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning}
}

func (o outcome) Run(context.Context, *checks.Input) ([]finding.Finding, error) { return o.run() }

func TestEvaluateEndsEachCheckOnItsOwn(t *testing.T) {
	cs := []checks.Check{
		outcome{"discovery-pass", func() ([]finding.Finding, error) { return nil, nil }},
		outcome{"discovery-fail", func() ([]finding.Finding, error) {
			return []finding.Finding{{CheckID: "discovery-fail", Severity: finding.SeverityError}}, nil
		}},
		outcome{"discovery-skip", func() ([]finding.Finding, error) { return nil, checks.Skip("nothing to judge") }},
		outcome{"discovery-error", func() ([]finding.Finding, error) { return nil, errors.New("broken") }},
		outcome{"discovery-panic", func() ([]finding.Finding, error) { panic("boom") }},
	}
	u, _ := url.Parse("http://app.test/")
	results, fs := checks.Evaluate(context.Background(), checks.NewInput(u, &exchange.Recording{}), cs)
	want := []finding.CheckStatus{finding.StatusPass, finding.StatusFail, finding.StatusSkip, finding.StatusError, finding.StatusError}
	for i, r := range results {
		if r.ID != cs[i].Meta().ID || r.Status != want[i] {
			t.Errorf("result %d = %s %s, want %s %s", i, r.ID, r.Status, cs[i].Meta().ID, want[i])
		}
	}
	if results[1].Severity != finding.SeverityError || results[1].Findings != 1 || len(fs) != 1 {
		t.Errorf("failed check: %+v, findings %d", results[1], len(fs))
	}
	if !strings.Contains(results[4].Reason, "check panicked: boom") || results[2].Reason != "nothing to judge" {
		t.Errorf("reasons: skip %q, panic %q", results[2].Reason, results[4].Reason)
	}
}

// withContext is a check whose Run is given its context.
type withContext struct {
	id  string
	run func(context.Context) ([]finding.Finding, error)
}

func (w withContext) Meta() checks.Meta {
	return checks.Meta{ID: w.id, Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning}
}

func (w withContext) Run(ctx context.Context, _ *checks.Input) ([]finding.Finding, error) {
	return w.run(ctx)
}

// TestEvaluateReturnsOnceItsContextIsDone: a check that ignores the context
// does not hold Evaluate back once it is done, and no check left unjudged
// passes: one that returned on the cancellation with nothing found, one
// still running and one never started are errors that say why.
func TestEvaluateReturnsOnceItsContextIsDone(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	started := make(chan struct{}, 16)
	ignoresContext := func(context.Context) ([]finding.Finding, error) {
		started <- struct{}{}
		<-release
		return nil, nil
	}
	cs := []checks.Check{
		withContext{"discovery-quick", func(context.Context) ([]finding.Finding, error) { return nil, nil }},
		withContext{"discovery-honours", func(ctx context.Context) ([]finding.Finding, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, nil
		}},
	}
	// Eight at a time: the quick one done, the eight after it fill every
	// slot and the last one never starts.
	for i := range 8 {
		cs = append(cs, withContext{fmt.Sprintf("discovery-stuck-%d", i), ignoresContext})
	}
	u, _ := url.Parse("http://app.test/")
	ctx, cancel := context.WithCancelCause(context.Background())
	type evaluated struct {
		results []finding.CheckResult
		fs      []finding.Finding
	}
	done := make(chan evaluated, 1)
	go func() {
		results, fs := checks.Evaluate(ctx, checks.NewInput(u, &exchange.Recording{}), cs)
		done <- evaluated{results, fs}
	}()
	for range 8 {
		<-started
	}
	cancel(errors.New("the scan was interrupted"))
	var got evaluated
	select {
	case got = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Evaluate still waits for the checks 5 s after its context was cancelled")
	}
	if r := got.results[0]; r.Status != finding.StatusPass {
		t.Errorf("the check judged in time: %s %q", r.Status, r.Reason)
	}
	for _, r := range got.results[1:9] {
		if r.Status != finding.StatusError || r.Reason != "the scan was interrupted before this check finished" {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Reason)
		}
	}
	if r := got.results[9]; r.ID != "discovery-stuck-7" || r.Status != finding.StatusError || r.Reason != "the scan was interrupted before this check ran" {
		t.Errorf("%s: %s %q", r.ID, r.Status, r.Reason)
	}
	if len(got.fs) != 0 {
		t.Errorf("findings: %v", got.fs)
	}
}

// countingReader counts the pages it is given and cancels the evaluation at
// the first.
type countingReader struct {
	read   *atomic.Int64
	cancel context.CancelCauseFunc
}

func (countingReader) PageKey() string                   { return "counting" }
func (countingReader) ReadsPage(*exchange.Exchange) bool { return true }
func (r countingReader) ReadPage(*checks.Input, *exchange.Exchange, *halview.View) {
	r.read.Add(1)
	r.cancel(errors.New("the scan was interrupted"))
}

// readingEveryPage is a check that reads every page through the shared
// reading, and closes done once it has.
type readingEveryPage struct {
	reader countingReader
	done   chan struct{}
}

func (readingEveryPage) Meta() checks.Meta {
	return checks.Meta{ID: "discovery-pages", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning}
}
func (c readingEveryPage) Parts() []checks.Part { return []checks.Part{c.reader} }
func (c readingEveryPage) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	in.ReadPages(c.reader)
	close(c.done)
	return nil, nil
}

// TestReadingThePagesEndsWithTheEvaluation: the reading of every page, shared
// by the checks, stops at the batch in which Evaluate's context ends.
func TestReadingThePagesEndsWithTheEvaluation(t *testing.T) {
	var xs []*exchange.Exchange
	// Each page of a shape of its own: past the first pages of a shape, a
	// page is left unread by the crawl.
	for i := range 26 * 26 {
		xs = append(xs, checkstest.Exchange(exchange.PurposeCrawl, "GET", fmt.Sprintf("http://app.test/%c%c", 'a'+i/26, 'a'+i%26)).Status(200).
			Header("Content-Type", "application/hal+json").Body(`{"_links": {"self": {"href": "/items"}}}`).Build())
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	read := &atomic.Int64{}
	check := readingEveryPage{countingReader{read, cancel}, make(chan struct{})}
	results, _ := checks.Evaluate(ctx, checkstest.Input("http://app.test/", nil, xs...), []checks.Check{check})
	// Evaluate no longer waits for it: the reading goes on, or not, after.
	<-check.done
	if n := read.Load(); n == 0 || n > 64 {
		t.Errorf("%d of %d pages read after the cancellation at the first; want one batch at most", n, len(xs))
	}
	if r := results[0]; r.Status != finding.StatusError || r.Reason != "the scan was interrupted before this check finished" {
		t.Errorf("the check: %s %q", r.Status, r.Reason)
	}
}
