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
		in := &checks.ActivePlanInput{Spec: doc, Needs: needs}
		for _, v := range vs {
			in.Views = append(in.Views, checks.IdentityView{Caller: checks.Caller{Name: v.Name}, Recording: v.Recording})
		}
		return a.Allow.PlanActive(in)
	}
	return &probe.ActivePlan{Plan: plan, Confirm: a.Confirm}
}

// ActiveConsent is what the user allowed the active probes to send, and
// how they agreed: what a recording keeps of ActiveOptions.
type ActiveConsent struct {
	// Allow is the allow-list as the user wrote it.
	Allow []string
	// Confirmed names how the user agreed, for the report.
	Confirmed string
}

// consent is what the report says of the options, nil when no active
// probe was planned.
func (a *ActiveOptions) consent(out *probe.ActiveOutcome) *ActiveConsent {
	if a == nil || out == nil {
		return nil
	}
	allow := []string{}
	if a.Allow != nil {
		allow = a.Allow.Strings()
	}
	return &ActiveConsent{Allow: allow, Confirmed: a.Confirmed}
}

// reported is what the checks and the report learn of the active probes:
// nothing when they were off.
func (c *ActiveConsent) reported(out *probe.ActiveOutcome) (*checks.ActiveRun, *finding.ActiveInfo) {
	if c == nil || out == nil {
		return nil, nil
	}
	return &checks.ActiveRun{Allow: c.Allow, Planned: out.Planned}, &finding.ActiveInfo{Allow: c.Allow, Confirmed: c.Confirmed, Sent: out.Sent}
}
