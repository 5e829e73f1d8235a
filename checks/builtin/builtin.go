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
	"github.com/agentready/agentready/checks/leakage"
	mcpchecks "github.com/agentready/agentready/checks/mcp"
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
		mcpchecks.All(),
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
