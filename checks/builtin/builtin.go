// Package builtin is the one explicit list of checks. Adding a check means
// adding it to its family's All and nothing else here.
package builtin

import (
	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/checks/vary"
)

// All returns every built-in check.
func All() []checks.Check {
	var all []checks.Check
	for _, family := range [][]checks.Check{
		negotiation.All(),
		vary.All(),
	} {
		all = append(all, family...)
	}
	return all
}

// Registry builds the validated registry of every built-in check.
func Registry() (*checks.Registry, error) { return checks.NewRegistry(All()...) }
