package scan

import (
	"context"
	"net/url"

	"github.com/agentready/agentready/probe"
)

// Recording is a scan as sent and seen: the probe's outcome, with the
// callers its views were recorded as and the active probes, and nothing of
// their credentials. It is all a run of the checks reads besides the options
// that judge (checks, policy, access rules), so a recording saved with
// --record is judged again offline, to the same report, by Options.Replay.
type Recording struct {
	Target  *url.URL
	Outcome *probe.Outcome
	// TLSUnverified is set when the servers' certificates were not
	// verified (--insecure): a replay warns as the scan did, since what was
	// recorded may not have come from the target.
	TLSUnverified bool
	// plans are what the checks judging resources planned, for the shard
	// stage; nil for a whole scan and for a replay.
	plans *resourcePlans
}

// record runs the session the options describe.
func record(ctx context.Context, opts Options) (*Recording, error) {
	plans := &resourcePlans{}
	slot := &specSlot{}
	s := session(opts, planner(opts.Probe.Start, opts.Checks, slot, opts.Shard, plans))
	s.FollowUp = followUps(opts.Probe.Start, opts.Checks, opts.Shard, plans)
	s.OnSpec = slot.set
	// A replay loads the document again from its text.
	s.KeepSpecText = s.KeepSpecText || opts.Record != nil
	out, err := probe.RunSession(ctx, s)
	if err != nil {
		return nil, err
	}
	return &Recording{Target: opts.Probe.Start, Outcome: out, plans: plans,
		TLSUnverified: opts.Probe.TLS != nil && opts.Probe.TLS.InsecureSkipVerify}, nil
}
