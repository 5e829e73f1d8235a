package scan_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/builtin"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/longtest"
	"github.com/agentready/agentready/internal/scan"
)

// stuck is a check that ignores its context: it runs until released.
type stuck struct {
	started chan<- struct{}
	release <-chan struct{}
}

func (stuck) Meta() checks.Meta {
	return checks.Meta{ID: "discovery-stuck", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning}
}

func (s stuck) Run(context.Context, *checks.Input) ([]finding.Finding, error) {
	s.started <- struct{}{}
	<-s.release
	return nil, nil
}

// TestInterruptionDuringTheChecksEndsThem: a scan interrupted while a check
// that never returns is running gives its report once the checks' grace is
// over, with that check not judged and no grade. The grace is shortened:
// TestInterruptionGivesTheChecksTheirGrace waits the user's.
func TestInterruptionDuringTheChecksEndsThem(t *testing.T) {
	t.Parallel()
	interruptDuringTheChecks(t, 100*time.Millisecond)
}

// TestInterruptionGivesTheChecksTheirGrace: with the grace a user's scan
// has, the report comes within 4 s of the interruption, which leaves the
// CLI time to write it within the 5 s it promises.
func TestInterruptionGivesTheChecksTheirGrace(t *testing.T) {
	longtest.Skip(t, "waits out the checks' 3 s grace")
	if took := interruptDuringTheChecks(t, scan.ChecksGrace); took > 4*time.Second {
		t.Errorf("the report came %v after the interruption; want it within the checks' grace", took)
	}
}

// interruptDuringTheChecks interrupts a scan while a check that never
// returns runs, with grace for the checks, and returns how long after the
// interruption the report came.
func interruptDuringTheChecks(t *testing.T, grace time.Duration) time.Duration {
	t.Helper()
	srv := httptest.NewServer(demo.New())
	defer srv.Close()
	reg, err := builtin.Registry()
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	start, _ := url.Parse(srv.URL + "/")
	opts := scan.WithChecksGrace(scan.Options{Checks: append(reg.All(), stuck{started, release}), Version: "test", Now: fixedClock}, grace)
	opts.Probe.Start, opts.Probe.Budget = start, time.Minute
	ctx, cancel := context.WithCancelCause(context.Background())
	interrupted := make(chan time.Time, 1)
	go func() {
		<-started
		interrupted <- time.Now()
		cancel(errors.New("interrupted by SIGINT"))
	}()
	type ran struct {
		rep *finding.Report
		err error
	}
	done := make(chan ran, 1)
	go func() {
		rep, err := scan.Run(ctx, opts)
		done <- ran{rep, err}
	}()
	var got ran
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the scan still runs 20 s later")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	took := time.Since(<-interrupted)
	rep := got.rep
	if want := "interrupted by SIGINT during the checks"; rep.Coverage.Interrupted != want || rep.Score.Grade != finding.GradeNotAssessed {
		t.Errorf("coverage.interrupted %q, grade %q; want %q and N/A", rep.Coverage.Interrupted, rep.Score.Grade, want)
	}
	for _, r := range rep.Checks {
		if r.ID == "discovery-stuck" && (r.Status != finding.StatusError || r.Reason != "the scan was interrupted before this check finished") {
			t.Errorf("the stuck check: %s %q", r.Status, r.Reason)
		}
	}
	return took
}
