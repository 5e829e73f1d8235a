// Package drift checks the agent surface against the one a baseline report
// recorded (--baseline): tools and operations removed or renamed, inputs
// narrowed, tool hints that no longer protect, relations and skills gone,
// and on the output side, responses, error responses, tool output schemas,
// prompts and resources that promise clients less than they did.
// Agents are built against a surface; changing it under them breaks them
// without a single failed request, so this family compares declarations,
// not behaviour. Breaking changes are errors and compatible ones info; the
// comparison itself is internal/surfacediff's.
//
// The family brings the surface snapshot every report carries, so that any
// saved report can serve as the next scan's baseline.
package drift

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/surfacediff"
)

// All returns the family's checks, one per kind of change, in ID order.
func All() []checks.Check {
	return []checks.Check{Annotations{}, InputSchema{}, OutputSchema{}, ProblemTypes{}, Prompts{}, Relations{}, Removed{}, Renamed{},
		Resources{}, ResponseSchema{}, Skills{}}
}

// contract is the clause every check rests on: the surface the app itself
// published in the baseline, which agents were built against.
var contract = finding.SpecRef{Doc: "agentready", Section: "the baseline surface", Level: "contract",
	URL: "https://github.com/agentready/agentready/blob/main/docs/ci.md#gating-agent-surface-changes"}

// family is embedded in every check of the family: it brings the snapshot.
type family struct{}

// Parts implements checks.WithParts.
func (family) Parts() []checks.Part { return []checks.Part{snapshotSection{}} }

// snapshotSection puts the scan's surface snapshot in the report, for a
// later scan to compare with, and says which parts of the baseline could
// not be compared.
type snapshotSection struct{}

func (snapshotSection) Annotate(in *checks.Input, rep *finding.Report) {
	now := Snapshot(in)
	rep.Snapshot = now
	if in.Baseline != nil {
		rep.Notes = append(rep.Notes, uncompared(in.Baseline, now)...)
	}
	if n := unrecordedResponses(now); n > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("drift: the responses of %d operation(s) were not recorded: the document's response schemas pass the %d MiB a snapshot keeps; they are not compared", n, maxResponseBytes>>20))
	}
}

// unrecordedResponses counts the operations whose responses the snapshot
// left unknown (past maxResponseBytes).
func unrecordedResponses(s *finding.Snapshot) int {
	if s.OpenAPI == nil {
		return 0
	}
	n := 0
	for _, op := range s.OpenAPI.Operations {
		if op.Responses == nil {
			n++
		}
	}
	return n
}

// uncompared says which parts of the baseline's surface this scan did not
// see, so that no drift there means nothing.
func uncompared(before, after *finding.Snapshot) []string {
	var gone []string
	for _, p := range []struct {
		name          string
		before, after bool
	}{
		{"MCP tools", before.MCP != nil, after.MCP != nil},
		{"OpenAPI operations", before.OpenAPI != nil, after.OpenAPI != nil},
		{"hypermedia relations", before.Hypermedia != nil, after.Hypermedia != nil},
		{"agent card skills", before.AgentCard != nil, after.AgentCard != nil},
	} {
		if p.before && !p.after {
			gone = append(gone, p.name)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return []string{"drift: the baseline records " + strings.Join(gone, ", ") + ", which this scan did not see; they were not compared"}
}

// Annotations reports tool hints that no longer protect what the baseline's
// did, and other changes to the annotations.
type Annotations struct{ family }

func (Annotations) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-annotations", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Tool annotations keep the safety they declared in the baseline",
		SpecRefs: []finding.SpecRef{contract},
		Needs:    checks.NeedsMCP,
		Help: `Hosts decide from a tool's hints whether to ask the user first: a read-only,
non-destructive tool often runs without confirmation. Turning readOnlyHint off, or
destructiveHint on (dropping a hint counts, since MCP's defaults are the riskier reading),
is breaking (error): agents were configured on the old promise. Any other change to the
annotations is compatible (info).

**How to fix:** keep the hints true to what the tool does; if the tool now changes state,
give the changing behaviour a new tool and keep the read-only one.`,
	}
}

func (c Annotations) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, c.Meta(), surfacediff.KindAnnotations, surfacediff.PartMCP)
}

// InputSchema reports changes to what tools and operations accept.
type InputSchema struct{ family }

func (InputSchema) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-input-schema", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Tool and operation inputs accept what the baseline accepted",
		SpecRefs: []finding.SpecRef{contract},
		Needs:    checks.NeedsMCP,
		Help: `An agent fills a tool's input schema, or an operation's parameters and body, the way
it learned from the baseline. Breaking (error): a property removed, a new required
property, a property made required, a type narrowed, an enum shrunk or added. Any other
change to the schema is compatible (info), and is listed so that a reviewer sees it.
The evidence gives each change as a JSON pointer into the report's snapshot, with the
value before (expected) and after (got).

**How to fix:** add new inputs as optional properties with a default, widen rather than
narrow, and rewrite the baseline with ` + "`agentready baseline write`" + ` once a breaking change
is intended and announced.`,
	}
}

func (c InputSchema) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, c.Meta(), surfacediff.KindInputSchema, surfacediff.PartMCP, surfacediff.PartOpenAPI)
}

// Relations reports relations of the baseline no longer declared or offered.
type Relations struct{ family }

func (Relations) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-relations", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Relations of the baseline are still declared and offered",
		SpecRefs: []finding.SpecRef{contract},
		Needs:    checks.NeedsMCP,
		FiredBy:  "relation no longer offered",
		Help: `Hypermedia agents find operations by link relation: a relation dropped from an
operation's x-hal-rel, or no longer offered in the _links of resources of a path shape
the baseline saw offer it, breaks the agents that follow it. A path shape this scan did
not reach is not compared.

**How to fix:** keep offering the relation (deprecate it in the documentation first), or
rewrite the baseline with ` + "`agentready baseline write`" + ` when its removal is intended.`,
	}
}

func (c Relations) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, c.Meta(), surfacediff.KindRelations, surfacediff.PartOpenAPI, surfacediff.PartHypermedia)
}

// Removed reports tools and operations of the baseline that are gone.
type Removed struct{ family }

func (Removed) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-removed", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "No tool or operation of the baseline surface is gone",
		SpecRefs: []finding.SpecRef{contract},
		Needs:    checks.NeedsMCP,
		Help: `An agent, or a client generated from the OpenAPI document, calls tools and operations
by name. A tool the catalog no longer lists, or an operation the document no longer
declares, fails every agent built against the baseline, and no request of the scan shows
it: the scan compares this surface with the one the baseline report recorded.
A tool renamed with the same input schema, or an operation whose operationId or path
alone changed, is reported by drift-renamed instead.

**How to fix:** keep the tool or operation (deprecate it first: OpenAPI ` + "`deprecated: true`" + `,
a description that says what replaces it), or, when the removal is intended, rewrite the
baseline with ` + "`agentready baseline write`" + ` in the same change so reviewers see it.`,
	}
}

func (c Removed) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, c.Meta(), surfacediff.KindRemoved, surfacediff.PartMCP, surfacediff.PartOpenAPI)
}

// Renamed reports tools and operations of the baseline under a new name.
type Renamed struct{ family }

func (Renamed) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-renamed", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "No tool or operation of the baseline surface is renamed",
		SpecRefs: []finding.SpecRef{contract},
		Needs:    checks.NeedsMCP,
		Help: `A tool listed under a new name with the same input schema and hints, an operation with
a new operationId at the same method and path, or one moved to a new path under the same
operationId, is one change: a rename. Agents call the old name and get an unknown-tool
error (or a 404) although the capability is still there.

**How to fix:** keep the old name as an alias until agents have moved (list both tools,
keep the operationId), or rewrite the baseline with ` + "`agentready baseline write`" + ` when the
rename is intended.`,
	}
}

func (c Renamed) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, c.Meta(), surfacediff.KindRenamed, surfacediff.PartMCP, surfacediff.PartOpenAPI)
}

// Skills reports skills the agent card no longer lists.
type Skills struct{ family }

func (Skills) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-skills", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "The agent card keeps the skills of the baseline",
		SpecRefs: []finding.SpecRef{contract},
		Needs:    checks.NeedsMCP,
		FiredBy:  "skill removed",
		Help: `Other agents pick this one by the skills its A2A agent card lists; a skill that is
gone makes them route tasks to an agent that no longer claims to do them.

**How to fix:** keep the skill listed while it is served, or rewrite the baseline with
` + "`agentready baseline write`" + ` when it is retired.`,
	}
}

func (c Skills) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, c.Meta(), surfacediff.KindSkills, surfacediff.PartAgentCard)
}

// outputs is the clause of the output-side checks, besides the baseline:
// a client generated from the document reads what its responses declare.
var outputs = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "4.8.17", Level: "contract", URL: "https://spec.openapis.org/oas/v3.1.0#responses-object"}

// howToVersion is the fix every output-side check gives.
const howToVersion = `**How to fix:** deprecate first: keep what clients read, mark it ` + "`deprecated: true`" + ` and say
in its description what replaces it, and serve the new shape beside it (a new operation,
tool or media type version) until clients have moved. When the break is intended and
announced, rewrite the baseline with ` + "`agentready baseline write`" + ` (or
` + "`agentready lint --write-baseline`" + `) in the same change, so that reviewers see it.`

// ResponseSchema reports success responses that promise less than the
// baseline's.
type ResponseSchema struct{ family }

func (ResponseSchema) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-response-schema", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Operation responses still carry what the baseline declared",
		SpecRefs: []finding.SpecRef{contract, outputs},
		Needs:    checks.NeedsMCP,
		Help: `Agents and generated clients read an operation's responses the way the baseline declared
them: the status, the media type, the properties of the body. Breaking (error): a success
or redirect status no longer declared, a media type dropped, a property removed or no
longer required (it may be absent now), a type changed to admit values it did not (or
null), an enum narrowed (a value an agent waits for never comes) or added where any value
went. Compatible (info): a property added, required or not, an enum grown, a type
narrowed, a status or media type added. Absent from an older baseline is unknown: its
responses are not compared.

` + howToVersion,
	}
}

func (c ResponseSchema) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeRecorded(in, c.Meta(), surfacediff.KindResponseSchema, surfacediff.PartOpenAPI, responsesRecorded)
}

// ProblemTypes reports error responses of the baseline that are gone or
// changed.
type ProblemTypes struct{ family }

func (ProblemTypes) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-problem-types", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Operations still declare the error responses and problem types of the baseline",
		SpecRefs: []finding.SpecRef{contract, outputs, {Doc: "RFC 9457", Section: "4", Level: "contract", URL: "https://www.rfc-editor.org/rfc/rfc9457#section-4"}},
		Needs:    checks.NeedsMCP,
		Help: `An error response an operation declares (4xx, 5xx, a range or default), with its problem
schema, tells an agent which failures to expect and how to recover: a documented 409
means "reload and retry", a pinned problem type selects a handler (RFC 9457 §4: a problem
type is defined by its URI, title and status). Breaking (error): an error status no
longer declared (also when only a range or default covers it now), its media type
dropped, a problem type no longer declared, or its schema changed as
drift-response-schema says. Compatible (info): an error status added, a problem type
added.

A problem type is pinned in the ` + "`application/problem+json`" + ` schema of an error
response: ` + "`const`" + ` or ` + "`enum`" + ` on its ` + "`type`" + ` property, directly, through ` + "`$ref`" + ` and
` + "`allOf`" + `, or in every member of a ` + "`oneOf`" + ` or ` + "`anyOf`" + `. Each is compared by its URI, and
the rest of the schema without it, so that a type dropped is one change that names
it.

` + howToVersion,
	}
}

func (c ProblemTypes) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeRecorded(in, c.Meta(), surfacediff.KindProblemTypes, surfacediff.PartOpenAPI, responsesRecorded)
}

// OutputSchema reports tool output schemas that promise less than the
// baseline's.
type OutputSchema struct{ family }

func (OutputSchema) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-output-schema", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:   checks.FirstRelease,
		Title:   "Tool output schemas still promise what the baseline's did",
		Needs:   checks.NeedsMCP,
		FiredBy: "output schema property removed",
		SpecRefs: []finding.SpecRef{contract, {Doc: "MCP 2025-06-18", Section: "server/tools#output-schema", Level: "MUST",
			URL: "https://modelcontextprotocol.io/specification/2025-06-18/server/tools#output-schema"}},
		Help: `A tool's outputSchema is the shape of the structuredContent it returns; servers MUST
conform to it, and clients validate and parse what they receive by it. Breaking (error):
the schema no longer declared, a property removed or no longer required, a type changed
to admit values it did not, an enum narrowed. Compatible (info): a schema declared where
there was none, a property added, an enum grown. A baseline written before snapshots
recorded output schemas is not compared.

` + howToVersion,
	}
}

func (c OutputSchema) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeRecorded(in, c.Meta(), surfacediff.KindOutputSchema, surfacediff.PartMCP, func(s *finding.Snapshot) bool {
		return s.MCP != nil && s.MCP.OutputSchemas
	})
}

// Prompts reports prompts of the baseline that are gone or changed.
type Prompts struct{ family }

func (Prompts) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-prompts", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:   checks.FirstRelease,
		Title:   "MCP prompts of the baseline are still listed with the arguments they took",
		Needs:   checks.NeedsMCP,
		FiredBy: "prompt removed",
		SpecRefs: []finding.SpecRef{contract, {Doc: "MCP 2025-06-18", Section: "server/prompts", Level: "contract",
			URL: "https://modelcontextprotocol.io/specification/2025-06-18/server/prompts"}},
		Help: `Hosts offer a server's prompts to users by name (slash commands) and fill their arguments.
Breaking (error): a prompt no longer listed, an argument removed, a new required argument,
an argument made required. Compatible (info): an optional argument added, an argument no
longer required, and a rewritten description or title, which is listed because the
prompt's text reaches the model. A prompt added is not a change.

` + howToVersion,
	}
}

func (c Prompts) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeRecorded(in, c.Meta(), surfacediff.KindPrompts, surfacediff.PartMCP, func(s *finding.Snapshot) bool {
		return s.MCP != nil && s.MCP.Prompts != nil
	})
}

// Resources reports resources of the baseline that are gone or changed.
type Resources struct{ family }

func (Resources) Meta() checks.Meta {
	return checks.Meta{
		ID: "drift-resources", Family: checks.FamilyDrift, Severity: finding.SeverityError,
		Since:   checks.FirstRelease,
		Title:   "MCP resources of the baseline are still listed with their media type",
		Needs:   checks.NeedsMCP,
		FiredBy: "resource media type changed",
		SpecRefs: []finding.SpecRef{contract, {Doc: "MCP 2025-06-18", Section: "server/resources", Level: "contract",
			URL: "https://modelcontextprotocol.io/specification/2025-06-18/server/resources"}},
		Help: `Clients read a server's resources by URI (templates by their URI template) and parse the
contents by their mimeType. Breaking (error): a resource or template no longer listed, its
mimeType changed. Compatible (info): a new name, title or description. A resource added is
not a change.

` + howToVersion,
	}
}

func (c Resources) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeRecorded(in, c.Meta(), surfacediff.KindResources, surfacediff.PartMCP, func(s *finding.Snapshot) bool {
		return s.MCP != nil && s.MCP.Resources != nil
	})
}

// responsesRecorded reports a snapshot that records the responses of at
// least one operation: one written before snapshots did records none.
func responsesRecorded(s *finding.Snapshot) bool {
	if s.OpenAPI == nil {
		return false
	}
	for _, op := range s.OpenAPI.Operations {
		if op.Responses != nil {
			return true
		}
	}
	return false
}

// judgeRecorded is judge for a kind of change that only snapshots recording
// it can show: both must, or the check skips (an older baseline, a server
// that did not answer the listing) rather than see everything as gone.
func judgeRecorded(in *checks.Input, m checks.Meta, kind surfacediff.Kind, part string, recorded func(*finding.Snapshot) bool) ([]finding.Finding, error) {
	if in.Baseline == nil {
		return nil, checks.Skip("no baseline with a surface snapshot was given (--baseline)")
	}
	if !compares([]string{part}, in.Baseline, Snapshot(in)) {
		return nil, checks.Skip("the baseline and this scan did not both see " + partNames([]string{part}))
	}
	if !recorded(in.Baseline) {
		return nil, checks.Skip("the baseline does not record this part of the surface (it may predate this check: rewrite it with this release)")
	}
	if !recorded(Snapshot(in)) {
		return nil, checks.Skip("this scan did not see this part of the surface")
	}
	return findingsOf(in, m, kind), nil
}

var changesKey = checks.NewKey[[]surfacediff.Change]()

// judge is the findings of check m: the changes of kind between the
// baseline's surface and this scan's, when both saw one of the parts of the
// surface that kind compares.
func judge(in *checks.Input, m checks.Meta, kind surfacediff.Kind, parts ...string) ([]finding.Finding, error) {
	if in.Baseline == nil {
		return nil, checks.Skip("no baseline with a surface snapshot was given (--baseline)")
	}
	now := Snapshot(in)
	if !compares(parts, in.Baseline, now) {
		return nil, checks.Skip("the baseline and this scan did not both see " + partNames(parts))
	}
	return findingsOf(in, m, kind), nil
}

// findingsOf is a finding per change of kind since the baseline.
func findingsOf(in *checks.Input, m checks.Meta, kind surfacediff.Kind) []finding.Finding {
	changes := checks.Memo(in, changesKey, func() []surfacediff.Change { return surfacediff.Compare(in.Baseline, Snapshot(in)) })
	var out []finding.Finding
	for _, ch := range changes {
		if ch.Kind == kind {
			out = append(out, changeFinding(in, m, ch))
		}
	}
	return out
}

var partLabels = map[string]string{
	surfacediff.PartMCP: "MCP tools", surfacediff.PartOpenAPI: "an OpenAPI document",
	surfacediff.PartHypermedia: "HAL resources", surfacediff.PartAgentCard: "an agent card",
}

func partNames(parts []string) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = partLabels[p]
	}
	return strings.Join(names, " or ")
}

// compares reports whether both snapshots have one of the parts.
func compares(parts []string, before, after *finding.Snapshot) bool {
	for _, p := range parts {
		if has(before, p) && has(after, p) && judges(p, before) {
			return true
		}
	}
	return false
}

func has(s *finding.Snapshot, part string) bool {
	switch part {
	case surfacediff.PartMCP:
		return s.MCP != nil
	case surfacediff.PartOpenAPI:
		return s.OpenAPI != nil
	case surfacediff.PartHypermedia:
		return s.Hypermedia != nil
	case surfacediff.PartAgentCard:
		return s.AgentCard != nil
	}
	return false
}

// judges reports whether the baseline has anything of the part that could
// be gone: an app that never had an agent card has no skill to lose.
func judges(part string, before *finding.Snapshot) bool {
	return part != surfacediff.PartAgentCard || len(before.AgentCard.Skills) > 0
}

func changeFinding(in *checks.Input, m checks.Meta, ch surfacediff.Change) finding.Finding {
	msg := "breaking: " + ch.Summary
	if !ch.Breaking {
		m.Severity = finding.SeverityInfo
		msg = "compatible: " + ch.Summary
	}
	where := whereSeen(in, ch)
	var ev []finding.Evidence
	for i, d := range ch.Diffs {
		e := finding.Evidence{Method: where.Method, URL: where.URL, JSONPointer: d.Pointer, Expected: d.Before, Actual: d.After}
		if i == 0 {
			e = where
			e.JSONPointer, e.Expected, e.Actual = d.Pointer, d.Before, d.After
		}
		ev = append(ev, e)
	}
	return checks.New(m, ch.Subject, msg, ev...)
}

// whereSeen is the exchange that shows the part of the surface as it is
// now: the tool listing, the OpenAPI document, a resource of the path
// shape, the agent card.
func whereSeen(in *checks.Input, ch surfacediff.Change) finding.Evidence {
	var x *exchange.Exchange
	switch ch.Part {
	case surfacediff.PartMCP:
		x = toolListing(in)
	case surfacediff.PartOpenAPI:
		if in.Spec != nil {
			return finding.Evidence{Method: "GET", URL: in.Spec.Source}
		}
	case surfacediff.PartHypermedia:
		x = crawledOfShape(in, ch.Name)
	case surfacediff.PartAgentCard:
		x = agentCardExchange(in)
	}
	if x == nil {
		return finding.Evidence{Method: "GET", URL: fmt.Sprint(in.Target)}
	}
	return checks.Evidence(x, nil, nil)
}

func toolListing(in *checks.Input) *exchange.Exchange {
	if in.MCP == nil || len(in.MCP.Listings) == 0 || len(in.MCP.Listings[0].Pages) == 0 {
		return nil
	}
	if c := in.MCP.Listings[0].Pages[0].Call; c != nil {
		return c.Exchange
	}
	return nil
}

func crawledOfShape(in *checks.Input, shape string) *exchange.Exchange {
	for _, x := range in.Recording.Exchanges {
		if x.Purpose == exchange.PurposeCrawl && exchange.PathShape(exchange.PathOf(x.Request.URL)) == shape {
			return x
		}
	}
	return nil
}
