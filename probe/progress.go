package probe

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is what a running scan has done so far, for a progress line: the
// probe adds to it as it goes, and another goroutine reads it at any time.
// A nil *Progress takes every call and keeps nothing.
type Progress struct {
	pages, requests atomic.Int64
	phase           atomic.Pointer[string]

	mu       sync.Mutex
	inFlight map[*InFlight]struct{}
}

// InFlight is a request sent and not yet answered: its method, its URL's
// path (the query may carry a credential, and the line has no room for
// it), and when it was sent.
type InFlight struct {
	Method, Path string
	Since        time.Time
}

// Phases of a scan, as a progress line names them.
const (
	PhaseCrawl  = "crawling"
	PhaseProbe  = "probing"
	PhaseActive = "active probes"
	PhaseMCP    = "MCP"
	PhaseChecks = "checking"
)

// ProgressSnapshot is one reading of a Progress.
type ProgressSnapshot struct {
	Phase           string
	Pages, Requests int
	// Oldest is the request in flight longest, the one a slow scan waits
	// on; zero when none is.
	Oldest InFlight
}

// SetPhase names what the scan is doing now. A phase is not entered once
// ctx is done: the scan was stopped in the phase before it, which is the
// one an interruption names, however late the watch of ctx reads it.
func (p *Progress) SetPhase(ctx context.Context, phase string) {
	if p != nil && ctx.Err() == nil {
		p.phase.Store(&phase)
	}
}

// Snapshot reads the counts. They add up over every identity a scan runs
// as, like the report's.
func (p *Progress) Snapshot() ProgressSnapshot {
	if p == nil {
		return ProgressSnapshot{}
	}
	s := ProgressSnapshot{Pages: int(p.pages.Load()), Requests: int(p.requests.Load())}
	if phase := p.phase.Load(); phase != nil {
		s.Phase = *phase
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for f := range p.inFlight {
		if s.Oldest.Since.IsZero() || f.Since.Before(s.Oldest.Since) {
			s.Oldest = *f
		}
	}
	return s
}

// Begin counts a request in flight from since until end is called (once;
// later calls do nothing). The transport calls it for every request, until
// the response's header is in: a stream's body may stay open for the whole
// scan.
func (p *Progress) Begin(method, path string, since time.Time) (end func()) {
	if p == nil {
		return func() {}
	}
	f := &InFlight{Method: method, Path: path, Since: since}
	p.mu.Lock()
	if p.inFlight == nil {
		p.inFlight = map[*InFlight]struct{}{}
	}
	p.inFlight[f] = struct{}{}
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.inFlight, f)
		p.mu.Unlock()
	}
}

func (p *Progress) addPage() {
	if p != nil {
		p.pages.Add(1)
	}
}

func (p *Progress) addRequest() {
	if p != nil {
		p.requests.Add(1)
	}
}
