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
	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/checks/mcptools"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/checks/openapidoc"
	"github.com/agentready/agentready/checks/openapihal"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/checks/stateful"
	"github.com/agentready/agentready/checks/surface"
	"github.com/agentready/agentready/checks/vary"
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
	} {
		all = append(all, family...)
	}
	return all
}

// Registry builds the validated registry of every built-in check.
func Registry() (*checks.Registry, error) { return checks.NewRegistry(All()...) }

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
