// Package affordance checks runtime affordances that refer to a stable
// operation catalog: the hybrid format, where a resource lists the
// operations that apply now ("affordances": [{operation, target, arguments,
// constraints, validForVersion}], "unavailableAffordances": [{operation,
// reason}]), and the stateful-action format, where every response says which
// tools may be called next ("next_actions"). References must resolve to the
// OpenAPI document, bindings must fit the operation's input, constraints may
// only narrow it, versions must match the representation, and model-facing
// members must not leak implementation names.
//
// References resolve against the OpenAPI document (x-operation-uri,
// operationId, x-mcp-tool) and, when the scan read one, the MCP tool catalog.
package affordance

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/finding"
)

// Check IDs.
const (
	idShape           = "affordance-shape"
	idUnresolved      = "affordance-operation-unresolved"
	idTarget          = "affordance-target-mismatch"
	idArguments       = "affordance-arguments"
	idConstraints     = "affordance-constraints-widen"
	idVersionMismatch = "affordance-version-mismatch"
	idVersionUnbound  = "affordance-version-unbound"
	idNextUnknown     = "affordance-next-action-unknown"
	idTerminal        = "affordance-terminal-next-actions"
	idLeak            = "affordance-internal-name"
)

var specChecks = map[string]bool{idUnresolved: true, idTarget: true, idArguments: true, idConstraints: true, idNextUnknown: true}

// All returns the family's checks.
func All() []checks.Check {
	out := make([]checks.Check, len(rules))
	for i, m := range rules {
		out[i] = rule{meta: m, needsSpec: specChecks[m.ID]}
	}
	return append(out, StaleVersion{}, TransitionExecuted{})
}

type rule struct {
	meta      checks.Meta
	needsSpec bool
}

func (r rule) Meta() checks.Meta { return r.meta }

// Parts implements checks.WithParts: the state matrix reads the affordances
// and next actions.
func (rule) Parts() []checks.Part { return hypermedia.Parts() }

var specIssuesKey = checks.NewKey[map[string][]hypermedia.Issue]()

func (r rule) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if r.needsSpec {
		if err := in.NeedSpec(); err != nil {
			return nil, err
		}
	}
	a := analyze(in)
	if a.docs == 0 {
		return nil, checks.Skip("no crawled JSON response carried affordances, unavailableAffordances or next_actions")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	issues := a.issues
	if r.needsSpec {
		issues = checks.Memo(in, specIssuesKey, func() map[string][]hypermedia.Issue { return specIssues(in, a) })
	}
	return hypermedia.Findings(r.meta, issues[r.meta.ID]), nil
}

const (
	seedHybrid   = "Stable Verbs, Dynamic Affordances"
	seedStateful = "Stateful business actions for agents"
)

var (
	refHybrid = finding.SpecRef{Doc: "agent-readiness guidance", Section: seedHybrid, Level: "MUST",
		URL: "https://github.com/agentready/agentready/blob/main/docs/hypermedia.md#hybrid-affordances"}
	refStateful = finding.SpecRef{Doc: "agent-readiness guidance", Section: seedStateful, Level: "MUST",
		URL: "https://github.com/agentready/agentready/blob/main/docs/hypermedia.md#stateful-actions"}
	refOpenAPI = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "4.8.10 Operation Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.0#operation-object"}
	refETag    = finding.SpecRef{Doc: "RFC 9110", Section: "13.1.1", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1"}
)

func level(r finding.SpecRef, l string) finding.SpecRef { r.Level = l; return r }
