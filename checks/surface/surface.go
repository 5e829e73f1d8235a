// Package surface checks that the projections of one API agree: the OpenAPI
// operations, the MCP tools, the links of llms.txt, the skills of the A2A
// agent card, the relations observed in hypermedia, the operations the
// Agent Skills index tells agents to call and the pages the sitemap lists
// should all name the same operations by the same names. Descriptions are never compared for
// truth: a declaration is a claim, and only disagreement is reported.
//
// The OpenAPI document anchors the comparison, so every check skips without
// one. Tools that map to no operation at all, and hint rules for tools the
// mcp family maps itself, are that family's to report; this one adds what
// only a cross-projection view sees.
package surface

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
)

// All returns the family's checks.
func All() []checks.Check { return []checks.Check{Renamed{}, Unknown{}, MCPHints{}} }

// family is embedded in every check of the family: it brings the matrix
// the checks' findings are read against.
type family struct{}

// Parts implements checks.WithParts.
func (family) Parts() []checks.Part { return []checks.Part{matrixSection{}} }

// matrixSection puts the operation × projection table in the report: it
// reads the same recording as the family's checks and is their reading aid.
type matrixSection struct{}

func (matrixSection) Annotate(in *checks.Input, rep *finding.Report) { rep.Surface = Matrix(in) }

// Matrix is the operation × projection table for the report, or nil when no
// OpenAPI document anchors it.
func Matrix(in *checks.Input) *finding.SurfaceMatrix {
	if in.Spec == nil {
		return nil
	}
	return build(in).matrix(in)
}

var seedRef = finding.SpecRef{Doc: "agentready", Section: "one declared surface", Level: "advice",
	URL: checks.DocsBase + "#family-surface"}

func needSpec(in *checks.Input) error {
	if in.Spec == nil {
		return checks.Skip("no OpenAPI document was given or found: the projections have nothing to be compared with")
	}
	return nil
}

// Renamed reports a projection that names an operation differently.
type Renamed struct{ family }

func (Renamed) Meta() checks.Meta {
	return checks.Meta{
		ID: "surface-renamed", Family: checks.FamilySurface, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Every projection calls an operation by its operationId",
		SpecRefs: []finding.SpecRef{seedRef, {Doc: "OpenAPI 3.1", Section: "4.8.10.1 operationId", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.0#fixed-fields-7"}},
		Help: `The same operation appears under a different name in one projection: an MCP tool, an
llms.txt link or an agent card skill whose name is near-identical to an operationId
(` + "`payOrders`" + ` for ` + "`payOrder`" + `), or that points at the operation's path under another name.
This is what hand-maintained copies look like after an edit reached some of them
and not the others; agents that match names across formats then miss the operation.

**How to fix:** derive every projection from one declared list of operations, so a
rename reaches them all; until then, rename the projection named in the finding.`,
	}
}

func (c Renamed) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needSpec(in); err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, e := range build(in).entries {
		if !e.renamed {
			continue
		}
		ev := e.ev
		ev.Expected, ev.Actual = e.op.OperationID, e.name
		out = append(out, checks.New(c.Meta(), e.projection+" "+e.name, fmt.Sprintf(
			"%s names %s %q (matched by %s), but the OpenAPI document calls it %q",
			e.projection, e.op.Key(), e.name, e.how, e.op.OperationID), ev))
	}
	return out, nil
}

// Unknown reports a projection that names an operation OpenAPI lacks.
type Unknown struct{ family }

func (Unknown) Meta() checks.Meta {
	return checks.Meta{
		ID: "surface-unknown-operation", Family: checks.FamilySurface, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Projections name only operations the OpenAPI document has",
		SpecRefs: []finding.SpecRef{seedRef},
		Help: `An llms.txt link to an operation's entry in the OpenAPI document, or an agent card skill
or an Agent Skills SKILL.md that says ` + "`POST /orders/{id}/gift-wrap`" + `, names an operation the
OpenAPI document does not have. Either the document is behind, or the projection advertises something the API
does not do; agents told about it will try to call it. (MCP tools that map to no
operation are reported by the mcp family.)

**How to fix:** add the operation to the OpenAPI document, or remove it from the
projection; better, generate both from the same list.`,
	}
}

func (c Unknown) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needSpec(in); err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, e := range build(in).entries {
		if !e.unknown {
			continue
		}
		ev := e.ev
		ev.Expected, ev.Actual = "an operation of the OpenAPI document", e.reference
		out = append(out, checks.New(c.Meta(), e.projection+" "+e.reference, fmt.Sprintf(
			"%s names %q as %s, which the OpenAPI document does not have", e.projection, e.name, e.reference), ev))
	}
	return out, nil
}

// MCPHints reports tools that only a near-identical name ties to an
// operation (so the mcp family could not map them) whose hints contradict
// the operation's method.
type MCPHints struct{ family }

func (MCPHints) Meta() checks.Meta {
	return checks.Meta{
		ID: "surface-mcp-hints", Family: checks.FamilySurface, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Renamed MCP tools keep hints that agree with their operation's method",
		SpecRefs: []finding.SpecRef{seedRef, {Doc: "MCP 2025-11-25", Section: "server/tools ToolAnnotations", Level: "SHOULD", URL: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools"}},
		Help: `A tool whose name is near-identical to an operationId, but not equal, escapes the mcp
family's parity rules, which map tools by exact name. Its ` + "`readOnlyHint`" + ` is then checked
here: true on an operation that is not GET or HEAD lets hosts run it without asking,
and missing on a GET makes hosts presume it destructive.

**How to fix:** rename the tool to the operationId (the mcp family then checks it
fully) and derive its hints from the method.`,
	}
}

func (c MCPHints) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needSpec(in); err != nil {
		return nil, err
	}
	if in.MCP == nil || !in.MCP.Assessed() {
		return nil, checks.Skip("no MCP endpoint was examined")
	}
	var out []finding.Finding
	for _, e := range build(in).entries {
		if e.tool == nil || !e.renamed {
			continue
		}
		safe := e.op.Method == "GET" || e.op.Method == "HEAD"
		var problem string
		switch {
		case e.tool.ReadOnly() && !safe:
			problem = "says readOnlyHint: true, but the operation is " + e.op.Method
		case !e.tool.ReadOnly() && safe:
			problem = "lacks readOnlyHint: true, but the operation is " + e.op.Method
		default:
			continue
		}
		ev := e.ev
		ev.Expected, ev.Actual = "hints derived from "+e.op.Method, strings.TrimSpace(problem)
		out = append(out, checks.New(c.Meta(), e.name, fmt.Sprintf("MCP tool %q (a rename of %s) %s", e.name, e.op.OperationID, problem), ev))
	}
	return out, nil
}
