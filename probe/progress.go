package probe

import (
	"context"
	"sync/atomic"
)

// Progress is what a running scan has done so far, for a progress line: the
// probe adds to it as it goes, and another goroutine reads it at any time.
// A nil *Progress takes every call and keeps nothing.
type Progress struct {
	pages, requests atomic.Int64
	phase           atomic.Pointer[string]
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
	return s
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
