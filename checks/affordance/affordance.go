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

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		Shape{}, OperationUnresolved{}, TargetMismatch{}, Arguments{}, ConstraintsWiden{}, VersionMismatch{},
		VersionUnbound{}, NextActionUnknown{}, TerminalNextActions{}, InternalName{},
		StaleVersion{}, TransitionExecuted{},
	}
}

// affordances is embedded by the family's checks that judge the
// documents: their parts.
type affordances struct{}

// Parts implements checks.WithParts: the state matrix reads the affordances
// and next actions.
func (affordances) Parts() []checks.Part { return hypermedia.Parts() }

// judge is the findings of check m, a check on the documents alone, from
// the family's one analysis of them.
func judge(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	a, err := documents(ctx, in)
	if err != nil {
		return nil, err
	}
	return hypermedia.Findings(m, a.issues[m.ID]), nil
}

var specIssuesKey = checks.NewKey[map[string][]hypermedia.Issue]()

// judgeAgainstSpec is the findings of check m, which compares the
// affordances with the OpenAPI document.
func judgeAgainstSpec(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	if err := in.NeedSpec(); err != nil {
		return nil, err
	}
	a, err := documents(ctx, in)
	if err != nil {
		return nil, err
	}
	issues := checks.Memo(in, specIssuesKey, func() map[string][]hypermedia.Issue { return specIssues(in, a) })
	return hypermedia.Findings(m, issues[m.ID]), nil
}

// documents is the family's analysis, or why its checks are not assessed.
func documents(ctx context.Context, in *checks.Input) (*analysis, error) {
	a := analyze(in)
	if a.docs == 0 {
		return nil, checks.Skip("no crawled JSON response carried affordances, unavailableAffordances or next_actions")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return a, nil
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
