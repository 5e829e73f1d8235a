// Package builtin is the one explicit list of checks. Adding a check means
// adding it to its family's All and nothing else here.
package builtin

import (
	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/affordance"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/checks/drift"
	"github.com/agentready/agentready/checks/hal"
	"github.com/agentready/agentready/checks/halforms"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/trialplan"
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/checks/mcptools"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/checks/openapidoc"
	"github.com/agentready/agentready/checks/openapihal"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/checks/stateful"
	"github.com/agentready/agentready/checks/surface"
	"github.com/agentready/agentready/checks/trial"
	"github.com/agentready/agentready/checks/vary"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/spec"
)

// All returns every built-in check.
func All() []checks.Check {
	var all []checks.Check
	for _, family := range [][]checks.Check{
		negotiation.All(),
		vary.All(),
		hal.All(),
		halforms.All(),
		affordance.All(),
		stateful.All(),
		openapihal.All(),
		openapidoc.All(),
		problemjson.All(),
		mcptools.All(),
		leakage.All(),
		discovery.All(),
		surface.All(),
		drift.All(),
		trial.All(),
	} {
		all = append(all, family...)
	}
	return all
}

// Registry builds the validated registry of every built-in check.
func Registry() (*checks.Registry, error) { return checks.NewRegistry(All()...) }

// TrialOptions bound and shape a trial: the allow-list (as for active
// probes, with mcp: entries for tools), the tasks and writes per run (0
// takes the defaults) and how the target is reset (exchange.Reset*).
type TrialOptions struct {
	Allow               []string
	MaxTasks, MaxWrites int
	Reset               string
}

// TrialPlanner reads the trial's options into the planner the scan hands
// the probe; the planning stays under checks/internal, like the active
// probes'.
func TrialPlanner(o TrialOptions) (checks.TrialPlanner, error) {
	rules, err := activeplan.ParseRules(o.Allow)
	if err != nil {
		return nil, err
	}
	return func(view checks.IdentityView, doc *spec.Document, snap *mcp.Snapshot) *exchange.TrialPlan {
		return trialplan.Plan(trialplan.Input{Recording: view.Recording, Identity: view.Name, Spec: doc, MCP: snap,
			Rules: rules, MaxTasks: o.MaxTasks, MaxWrites: o.MaxWrites, Reset: o.Reset})
	}, nil
}

// ActiveAllowList reads the user's allow-list of active probes ("POST
// /orders/*/cancel" or an operationId) into the planner the scan hands it
// to. The planning itself stays under checks/internal, where only checks
// reach it; the CLI and the tests that build a scan come through here.
func ActiveAllowList(entries []string) (checks.ActivePlanner, error) {
	rules, err := activeplan.ParseRules(entries)
	if err != nil {
		return nil, err
	}
	return rules, nil
}
