// Package openapidoc checks the OpenAPI document itself: that it loads, that
// its operationIds are unique and that its path templates are valid, and
// how well an agent could plan calls from it alone (readiness.go). These
// checks need only the document, so `agentready lint` runs them without a
// network, and a scan runs them on the document it was given or found.
// They belong to the openapi-hal family, whose other checks compare the
// document with what the crawl observed.
package openapidoc

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/openapihal"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// All returns the checks of this package.
func All() []checks.Check {
	return append([]checks.Check{SpecInvalid{}, OperationIDUnique{}, PathTemplateValid{}}, Readiness()...)
}

// static is what the checks of the document share: the parts of their
// family. Each declares what it reads in its Meta (checks.DocOpenAPI).
type static struct{}

// Parts implements checks.WithParts: these checks belong to the openapi-hal
// family, and bring its parts like every check of it.
func (static) Parts() []checks.Part { return openapihal.Parts() }

// fetchEvidence is the exchange that fetched the document, when the scan
// fetched it, so that a finding about a served document shows the request.
func fetchEvidence(in *checks.Input) []finding.Evidence {
	if in.Recording == nil {
		return nil
	}
	var best *exchange.Exchange
	for x := range in.Recording.WithPurpose(checks.PurposeOpenAPI) {
		if x.Request.URL == in.Spec.Source || best == nil {
			best = x
		}
	}
	if best == nil {
		return nil
	}
	return []finding.Evidence{checks.Evidence(best, nil, []string{"Content-Type"})}
}

func located(f finding.Finding, loc finding.SourceLocation) finding.Finding {
	f.Location = &loc
	return f
}

// SpecInvalid reports what made the document fail to load cleanly.
type SpecInvalid struct{ static }

func (SpecInvalid) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-spec-invalid",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "The OpenAPI document parses, resolves and sticks to one version",
		Severity:  finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			{Doc: "OpenAPI 3.1.2", Section: "Format", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.2#format"},
			{Doc: "OpenAPI 3.1.2", Section: "Reference Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.2#reference-object"},
			{Doc: "OpenAPI 3.0.4", Section: "Schema Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.0.4#schema-object"},
		},
		Help: `An agent, a code generator and this scanner all read the OpenAPI document
before they call anything. A syntax error stops them at the first line; an
unresolvable ` + "`$ref`" + ` leaves a request body or a response without its schema;
a keyword of another OpenAPI version (` + "`type: [string, \"null\"]`" + ` in 3.0,
` + "`nullable`" + ` in 3.1) is read differently by each tool, or silently ignored.
The finding gives the line of each problem. Checks that do not need the
document still ran.

**How to fix:** correct the syntax at the line given; point each ` + "`$ref`" + ` at
a component that exists; write schemas in the dialect of the declared
` + "`openapi`" + ` version (3.0: ` + "`nullable: true`" + `, boolean ` + "`exclusiveMinimum`" + `;
3.1: ` + "`type`" + ` lists and numeric ` + "`exclusiveMinimum`" + `), or change the version.`,
	}
}

func (c SpecInvalid) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := in.NeedSpec(); err != nil {
		return nil, err
	}
	m := c.Meta()
	ev := fetchEvidence(in)
	var out checks.Findings
	for _, p := range in.Spec.Problems {
		f := checks.New(m, problemSubject(p), p.Message, ev...)
		if p.Warning {
			f.Severity = finding.SeverityWarning
		}
		out.Add(located(f, p.Location))
	}
	return out.List(), nil
}

// problemSubject keeps findings on different places apart without using the
// line, which moves with every edit above it.
func problemSubject(p spec.Problem) string {
	if p.Location.Pointer != "" {
		return p.Location.Pointer + " " + p.Message
	}
	return p.Message
}

// OperationIDUnique checks that operationIds identify one operation each.
type OperationIDUnique struct{ static }

func (OperationIDUnique) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-operation-id-unique",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "Every operationId is unique",
		Severity:  finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			{Doc: "OpenAPI 3.1.2", Section: "Operation Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.2#operation-object"},
		},
		Help: `An operationId "MUST be unique among all operations described in the API"
(OpenAPI, Operation Object). Agents, MCP tool generators and SDK generators
use it as the operation's name: two operations with one ID become one tool,
and the other cannot be called. The ID is case-sensitive, so ` + "`getUser`" + ` and
` + "`GetUser`" + ` are distinct for the specification, but they collide in
generators that change case (method names, file names on case-insensitive
disks), which is reported as a warning.

**How to fix:** give each operation its own operationId, following a naming
convention that also differs after case folding (for example
` + "`verbNoun`" + `: ` + "`listOrders`" + `, ` + "`getOrder`" + `, ` + "`cancelOrder`" + `).`,
	}
}

func (c OperationIDUnique) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := in.NeedOperations(); err != nil {
		return nil, err
	}
	m := c.Meta()
	exact := map[string]*spec.Operation{}
	folded := map[string]*spec.Operation{}
	var out checks.Findings
	for _, op := range in.Spec.Operations {
		id := op.OperationID
		if id == "" {
			continue
		}
		if first, dup := exact[id]; dup {
			out.Add(located(checks.New(m, id+" "+op.Key(), fmt.Sprintf(
				"operationId %q of %s is already used by %s (line %d); operationIds must be unique",
				id, op.Key(), first.Key(), first.Location.Line)), op.Location))
			continue
		}
		exact[id] = op
		low := strings.ToLower(id)
		if first, dup := folded[low]; dup {
			f := checks.New(m, id+" "+op.Key(), fmt.Sprintf(
				"operationId %q of %s differs only in case from %q of %s (line %d); generators that change case merge them",
				id, op.Key(), first.OperationID, first.Key(), first.Location.Line))
			f.Severity = finding.SeverityWarning
			out.Add(located(f, op.Location))
			continue
		}
		folded[low] = op
	}
	return out.List(), nil
}

// templateExpr reads the expressions of a path template, or an error for
// unbalanced or nested braces and empty names.
func templateExpr(path string) ([]string, error) {
	var names []string
	depth, start := 0, 0
	for i, r := range path {
		switch r {
		case '{':
			if depth > 0 {
				return nil, fmt.Errorf("nested '{' at offset %d", i)
			}
			depth, start = 1, i+1
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("'}' without '{' at offset %d", i)
			}
			depth = 0
			name := path[start:i]
			if name == "" {
				return nil, fmt.Errorf("empty expression {} at offset %d", i-1)
			}
			if strings.Contains(name, "/") {
				return nil, fmt.Errorf("expression {%s} spans a '/'", name)
			}
			names = append(names, name)
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("'{' at offset %d is never closed", start-1)
	}
	return names, nil
}

// normalizedTemplate replaces every expression by {}, so that templates that
// differ only in names compare equal.
func normalizedTemplate(path string) string {
	var b strings.Builder
	in := false
	for _, r := range path {
		switch {
		case r == '{':
			in = true
			b.WriteString("{}")
		case r == '}':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
