package scan

import (
	"context"
	"errors"

	"github.com/agentready/agentready/probe"
)

// interruptWatch remembers the phase a scan was in when its context was
// cancelled: by the time the report is built, the phases after it have
// been skipped and the progress names another.
type interruptWatch struct {
	ctx      context.Context
	progress *probe.Progress
	phase    string
	noted    chan struct{} // closed once phase is set
	stop     func() bool
}

// watchInterruption starts watching ctx.
func watchInterruption(ctx context.Context, progress *probe.Progress) *interruptWatch {
	w := &interruptWatch{ctx: ctx, progress: progress, noted: make(chan struct{})}
	w.stop = context.AfterFunc(ctx, func() {
		w.phase = progress.Snapshot().Phase
		close(w.noted)
	})
	return w
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
	case probe.PhaseChecks:
		return "during the checks"
	}
	return "before the crawl began"
}
