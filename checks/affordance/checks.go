package affordance

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
)

// Shape checks that affordances and next_actions are well formed.
type Shape struct{ affordances }

func (Shape) Meta() checks.Meta {
	return checks.Meta{
		ID: idShape, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Affordances and next_actions are well formed",
		SpecRefs: []finding.SpecRef{refHybrid, refStateful},
		Help: `` + "`affordances`" + ` and ` + "`unavailableAffordances`" + ` are arrays of objects, each naming an
` + "`operation`" + `; ` + "`target`" + ` is a string, ` + "`arguments`" + ` and ` + "`constraints`" + ` are objects (each
constraint a schema fragment). ` + "`next_actions`" + ` is an array whose entries name a
` + "`tool`" + ` or an ` + "`operation`" + `. An entry without its identifier points at nothing: the
agent is told something applies but not what.

**How to fix:** emit the documented shape; generate affordances from the
operation catalog rather than by hand.`,
	}
}

func (c Shape) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// OperationUnresolved checks that affordance operations resolve to the operation catalog.
type OperationUnresolved struct{ affordances }

func (OperationUnresolved) Meta() checks.Meta {
	return checks.Meta{
		ID: idUnresolved, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Affordance operations resolve to the operation catalog",
		SpecRefs: []finding.SpecRef{refHybrid, refOpenAPI},
		Help: `The hybrid format keeps operations stable and described once, in the catalog,
and lets resources refer to them. The reference is an ` + "`x-operation-uri`" + ` or an
` + "`operationId`" + ` of the OpenAPI document. A reference that resolves to nothing is an
affordance pointing at nothing: the agent cannot learn the operation's
meaning, method or input. When the scan read the app's MCP tool catalog, a
tool name is a valid reference too.

**How to fix:** use the operation's operationId, or give it an
` + "`x-operation-uri`" + ` extension equal to the identifier the resources use.`,
	}
}

func (c OperationUnresolved) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// TargetMismatch checks that an affordance's target matches its operation's path.
type TargetMismatch struct{ affordances }

func (TargetMismatch) Meta() checks.Meta {
	return checks.Meta{
		ID: idTarget, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "An affordance's target matches its operation's path",
		SpecRefs: []finding.SpecRef{refHybrid, refOpenAPI},
		Help: `` + "`target`" + ` is the concrete URL the operation applies to now; it must match the
path template of the operation the affordance names. A target on another path
sends the agent's request to a different operation than the one it read about.

**How to fix:** build the target from the operation's path template.`,
	}
}

func (c TargetMismatch) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// Arguments checks that bound arguments fit the operation's input.
type Arguments struct{ affordances }

func (Arguments) Meta() checks.Meta {
	return checks.Meta{
		ID: idArguments, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Bound arguments fit the operation's input",
		SpecRefs: []finding.SpecRef{refHybrid, refOpenAPI},
		Help: `` + "`arguments`" + ` pre-binds inputs of the operation (its parameters and request
body members). A name the operation does not accept, or a value of the wrong
JSON type, makes the agent's call fail validation before anything happens.

**How to fix:** bind only the operation's inputs, with values of their types.`,
	}
}

func (c Arguments) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// ConstraintsWiden checks that constraints only narrow the operation's schema.
type ConstraintsWiden struct{ affordances }

func (ConstraintsWiden) Meta() checks.Meta {
	return checks.Meta{
		ID: idConstraints, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Constraints only narrow the operation's schema",
		SpecRefs: []finding.SpecRef{refHybrid},
		Help: `Contextual constraints may narrow a stable operation (fewer enum values, a
required reason) but never widen or redefine it. A constraint on a field the
operation does not have, one that makes a required field optional, changes
its type, or loosens an enum or a bound promises the agent something the
operation will reject.

**How to fix:** derive constraints from the operation's schema and only
tighten them.`,
	}
}

func (c ConstraintsWiden) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// VersionMismatch checks that validForVersion equals the representation's version.
type VersionMismatch struct{ affordances }

func (VersionMismatch) Meta() checks.Meta {
	return checks.Meta{
		ID: idVersionMismatch, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "validForVersion equals the representation's version",
		SpecRefs: []finding.SpecRef{refHybrid, refETag},
		Help: `` + "`validForVersion`" + ` binds an affordance to the state it was computed from, so the
client can send a conditional request and tell "your view was stale" from
"the operation does not exist". It must equal the representation's own
version: its ` + "`version`" + ` member or its ETag. Any other value makes every
conditional request fail.

**How to fix:** set validForVersion from the same version the
representation exposes.`,
	}
}

func (c VersionMismatch) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// VersionUnbound checks that affordances of a versioned resource carry validForVersion.
type VersionUnbound struct{ affordances }

func (VersionUnbound) Meta() checks.Meta {
	return checks.Meta{
		ID: idVersionUnbound, Family: checks.FamilyAffordance, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "Affordances of a versioned resource carry validForVersion",
		SpecRefs: []finding.SpecRef{level(refHybrid, "advice"), refETag},
		Help: `The resource exposes a version (a ` + "`version`" + ` member or an ETag) but its
affordances do not say which version they were computed for. Clients cannot
make the conditional request that detects a stale affordance.

**How to fix:** add ` + "`validForVersion`" + ` to each affordance.`,
	}
}

func (c VersionUnbound) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// NextActionUnknown checks that next_actions name operations that exist.
type NextActionUnknown struct{ affordances }

func (NextActionUnknown) Meta() checks.Meta {
	return checks.Meta{
		ID: idNextUnknown, Family: checks.FamilyAffordance, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "next_actions name operations that exist",
		SpecRefs: []finding.SpecRef{refStateful, refOpenAPI},
		Help: `Each next_actions entry tells the model which call it may make next; the
server rejects anything not on the list. An entry naming an operation the
catalog does not have leaves the model with an action it cannot take. Tools
are resolved through the OpenAPI document's ` + "`x-mcp-tool`" + ` and operationId, and
through the app's MCP tool catalog when the scan read one.

**How to fix:** name documented operations or tools only.`,
	}
}

func (c NextActionUnknown) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// TerminalNextActions checks that terminal states offer no next_actions.
type TerminalNextActions struct{ affordances }

func (TerminalNextActions) Meta() checks.Meta {
	return checks.Meta{
		ID: idTerminal, Family: checks.FamilyAffordance, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Terminal states offer no next_actions",
		SpecRefs: []finding.SpecRef{level(refStateful, "SHOULD")},
		Help: `An empty next_actions means the flow is finished. A resource whose state says
it is over (cancelled, completed, closed, refunded, …) but still lists next
actions contradicts itself, and the model will try them.

**How to fix:** compute next_actions from the state machine, so terminal
states yield an empty list.`,
	}
}

func (c TerminalNextActions) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// InternalName checks that model-facing members carry no internal names.
type InternalName struct{ affordances }

func (InternalName) Meta() checks.Meta {
	return checks.Meta{
		ID: idLeak, Family: checks.FamilyAffordance, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Model-facing members carry no internal names",
		SpecRefs: []finding.SpecRef{level(refStateful, "SHOULD NOT")},
		Help: `Representations that guide agents should carry business state only. A
` + "`handler`" + ` member, a fully qualified class name or an internal service URL
(localhost, *.internal, cluster DNS, private addresses) tells the model how
the backend is built, which it cannot use and may try to call, and tells an
attacker the same.

**How to fix:** keep flow definitions and handler names on the server; expose
nodes, missing fields, allowed patches and next actions.`,
	}
}

func (c InternalName) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}
