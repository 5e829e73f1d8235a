package scan

import (
	"context"
	"errors"
	"time"

	"github.com/agentready/agentready/probe"
)

// interruptWatch remembers the phase a scan was in when its context was
// cancelled: by the time the report is built, the phases after it have
// been skipped and the progress names another.
type interruptWatch struct {
	ctx      context.Context
	progress *probe.Progress
	phase    string
	at       time.Time     // when ctx was cancelled
	noted    chan struct{} // closed once phase and at are set
	stop     func() bool
	grace    time.Duration // checksGrace, unless a test shortens it
}

// watchInterruption starts watching ctx; the checks may run for grace
// once it is cancelled.
func watchInterruption(ctx context.Context, progress *probe.Progress, grace time.Duration) *interruptWatch {
	w := &interruptWatch{ctx: ctx, progress: progress, noted: make(chan struct{}), grace: grace}
	w.stop = context.AfterFunc(ctx, func() {
		w.at, w.phase = time.Now(), progress.Snapshot().Phase
		close(w.noted)
	})
	return w
}

// checksGrace is how long the checks may still run once the scan is
// interrupted: a partial report is written within 5 s of a signal, and
// rendering and writing it takes the rest.
const checksGrace = 3 * time.Second

// errInterrupted is why a check was not judged: context.Cause of the
// checks' context once the grace has passed.
var errInterrupted = errors.New("the scan was interrupted")

// checksContext is the context the checks run in. It is not cancelled with
// the scan's, so that what was crawled is still judged, but it is done
// the grace after the scan's was cancelled; its cancel is to be called
// once the checks have run, before reason.
func (w *interruptWatch) checksContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(w.ctx))
	stop := context.AfterFunc(w.ctx, func() {
		select {
		case <-w.noted:
		case <-ctx.Done():
			// The checks are over: reason may have ended the watch.
			return
		}
		timer := time.AfterFunc(time.Until(w.at.Add(w.grace)), func() { cancel(errInterrupted) })
		context.AfterFunc(ctx, func() { timer.Stop() })
	})
	return ctx, func() {
		stop()
		cancel(nil)
	}
}

// reason says what stopped the scan and in which phase ("interrupted by
// SIGINT during the crawl"), or "" when nothing did. A deadline on ctx is a
// budget the caller set, not an interruption. recorded is whether the
// recording says its scan was interrupted, for a replay of one.
func (w *interruptWatch) reason(recorded bool) string {
	// The watch ends here: a cancellation after the report is built does
	// not change it.
	stopped := w.stop()
	if !errors.Is(w.ctx.Err(), context.Canceled) {
		if recorded {
			return "the recorded scan was interrupted"
		}
		return ""
	}
	phase := w.progress.Snapshot().Phase
	if !stopped {
		<-w.noted
		phase = w.phase
	}
	what := "interrupted"
	if cause := context.Cause(w.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		what = cause.Error()
	}
	return what + " " + during(phase)
}

// during names a phase of the progress line as the report tells it.
func during(phase string) string {
	switch phase {
	case probe.PhaseCrawl:
		return "during the crawl"
	case probe.PhaseProbe:
		return "during the planned probes"
	case probe.PhaseActive:
		return "during the active probes"
	case probe.PhaseMCP:
		return "during the MCP examination"
	case probe.PhaseTrial:
		return "during the trial"
	case probe.PhaseChecks:
		return "during the checks"
	}
	return "before the crawl began"
}
