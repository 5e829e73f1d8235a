package scan

import (
	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// ActiveOptions enable active probes: state-changing requests, planned from
// the crawl, limited to what Allow names, sent only after Confirm agrees.
type ActiveOptions struct {
	// Allow is the user's allow-list, which plans the probes
	// (checks/internal/activeplan.Rules); nothing it does not name is sent.
	Allow checks.ActivePlanner
	// Confirm sees the exact requests before any is sent; an error sends
	// none and is returned from Run (the CLI asks on a TTY, or has --yes).
	// It is required: without it Run refuses to send anything.
	Confirm func([]exchange.ActiveRequest) error
	// Confirmed names how the user agreed, for the report.
	Confirmed string
}

// activePlan hands the probe the allow-list's planning, for the kinds of
// probe the selected checks judge.
func (a *ActiveOptions) activePlan(needs checks.Needs) *probe.ActivePlan {
	if a == nil {
		return nil
	}
	plan := func(vs []probe.View, doc *spec.Document) []exchange.ActiveRequest {
		if a.Allow == nil {
			return nil
		}
		return a.Allow.PlanActive(&checks.ActivePlanInput{Views: identityViews(vs), Spec: doc, Needs: needs})
	}
	var allow []string
	if a.Allow != nil {
		allow = a.Allow.Strings()
	}
	return &probe.ActivePlan{Plan: plan, Confirm: a.Confirm, Allow: allow, Confirmed: a.Confirmed}
}

// activeReported is what the checks and the report learn of the active
// probes: nothing when they were off.
func activeReported(out *probe.ActiveOutcome) (*checks.ActiveRun, *finding.ActiveInfo) {
	if out == nil {
		return nil, nil
	}
	return &checks.ActiveRun{Allow: out.Allow, Planned: out.Planned}, &finding.ActiveInfo{Allow: out.Allow, Confirmed: out.Confirmed, Sent: out.Sent}
}
