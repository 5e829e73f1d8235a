package probe

import (
	"context"
	"fmt"
	"time"
)

// schedule shares the one budget of a scan (--budget) among its phases. Each
// phase has a time, measured from the start, by which it must end:
//
//   - the crawl and the planned probes of every identity, by 8/10 of the
//     budget (the crawl itself by 3/4 of that; see Run);
//   - what is sent after them (the MCP examination, the catalog listed as
//     each identity, the active probes), by 9/10;
//   - the checks and the reports take the rest. They send nothing, and they
//     are bounded by sampling rather than cut, so the report always comes.
//
// Time spent waiting for the user to confirm active probes does not count.
type schedule struct {
	began  time.Time
	budget time.Duration
	paused time.Duration
}

func newSchedule(budget time.Duration) *schedule {
	if budget <= 0 {
		budget = defaultBudget
	}
	return &schedule{began: time.Now(), budget: budget}
}

// probing is the time the probe runs of every identity share.
func (s *schedule) probing() time.Duration { return s.budget * 8 / 10 }

// sendingEnds is when the requests sent after the probe runs must end.
func (s *schedule) sendingEnds() time.Duration { return s.budget * 9 / 10 }

// untilProbed is ctx, ended when the probe runs must end.
func (s *schedule) untilProbed(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, s.began.Add(s.probing()+s.paused))
}

// untilSent is ctx, ended when the requests sent after the probe runs must
// end.
func (s *schedule) untilSent(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, s.began.Add(s.sendingEnds()+s.paused))
}

// pause leaves d out of the budget.
func (s *schedule) pause(d time.Duration) { s.paused += d }

// ranOut is the note for a phase the budget cut short.
func (s *schedule) ranOut(what string) string {
	return fmt.Sprintf("%s: the budget ran out (requests end at %s of the %s budget; the checks and reports take the rest)",
		what, s.sendingEnds(), s.budget)
}
