package scan

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// TrialOptions enable a trial: the tasks the API declares, played by three
// deterministic players after the passive scan, under the consent rules of
// active probes. docs/trials.md describes it.
type TrialOptions struct {
	// Plan plans the trial (checks/builtin.TrialPlanner); it holds the
	// allow-list and the bounds.
	Plan checks.TrialPlanner
	// PlanOnly shows the plan and sends none of it (--trial-plan).
	PlanOnly bool
	// Confirm sees the plan before any of it is sent; an error sends
	// nothing and is returned from Run. Required unless PlanOnly.
	Confirm func(*exchange.TrialPlan) error
	// Reset brings the target back to the state the scan saw between runs;
	// nil when the runs act on distinct resources.
	Reset func(context.Context) error
	// ResetOnlyBeforeRuns skips the reset after the last run, for an app
	// that is stopped once the scan ends (probe.TrialSession).
	ResetOnlyBeforeRuns bool
}

// trialSession hands the probe the trial, planned as the identity it runs
// as; nil when no trial was asked for.
func (t *TrialOptions) trialSession() *probe.TrialSession {
	if t == nil || t.Plan == nil {
		return nil
	}
	plan := func(v probe.View, doc *spec.Document, snap *mcp.Snapshot) *exchange.TrialPlan {
		return t.Plan(checks.IdentityView{Caller: v.Caller, Recording: v.Recording, MCP: v.MCP}, doc, snap)
	}
	return &probe.TrialSession{Plan: plan, PlanOnly: t.PlanOnly, Confirm: t.Confirm, Reset: t.Reset, OnlyBeforeRuns: t.ResetOnlyBeforeRuns}
}
