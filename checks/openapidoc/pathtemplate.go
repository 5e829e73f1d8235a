package openapidoc

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// PathTemplateValid checks the path templates under paths and their path
// parameters.
type PathTemplateValid struct{ static }

func (PathTemplateValid) Meta() checks.Meta {
	return checks.Meta{
		ID:        "openapi-hal-path-template-valid",
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Family:    checks.FamilyOpenAPIHAL,
		Title:     "Path templates are well formed and match their path parameters",
		Severity:  finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			{Doc: "OpenAPI 3.1.2", Section: "Path Templating", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.2#path-templating"},
			{Doc: "OpenAPI 3.1.2", Section: "Paths Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.2#paths-object"},
			{Doc: "OpenAPI 3.1.2", Section: "Parameter Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.2#parameter-object"},
		},
		Help: `Agents turn a link into an operation by matching its href against the path
templates, and fill a template from the operation's path parameters. That
only works when the two agree. OpenAPI requires that each ` + "`{expression}`" + `
"MUST correspond to a path parameter" declared on the path item or the
operation, that each ` + "`in: path`" + ` parameter's name "MUST correspond to a template
expression", that path parameters are ` + "`required: true`" + `, that paths begin with
` + "`/`" + `, and that templates differing only in their variable names
(` + "`/pets/{petId}`" + ` and ` + "`/pets/{name}`" + `) "MUST NOT exist". An unbalanced brace makes
the template unmatchable.

**How to fix:** declare one ` + "`in: path`" + `, ` + "`required: true`" + ` parameter per expression
(on the path item to share it between operations), remove or rename
parameters that no expression uses, balance the braces, and merge paths that
differ only in variable names.`,
	}
}

func (c PathTemplateValid) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := in.NeedOperations(); err != nil {
		return nil, err
	}
	v := &templateValidator{m: c.Meta(), doc: in.Spec, normalized: map[string]spec.PathItem{}, reported: map[string]bool{}}
	byPath := map[string][]*spec.Operation{}
	for _, op := range in.Spec.Operations {
		byPath[op.PathTemplate] = append(byPath[op.PathTemplate], op)
	}
	for _, item := range in.Spec.PathItems {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v.pathItem(item, byPath[item.Template])
	}
	return v.out.List(), nil
}

type templateValidator struct {
	m          checks.Meta
	doc        *spec.Document
	normalized map[string]spec.PathItem
	reported   map[string]bool // parameter pointers already reported
	out        checks.Findings
}

func (v *templateValidator) add(subject string, loc finding.SourceLocation, format string, args ...any) {
	v.out.Add(located(checks.New(v.m, subject, fmt.Sprintf(format, args...)), loc))
}

func (v *templateValidator) pathItem(item spec.PathItem, ops []*spec.Operation) {
	t := item.Template
	if !strings.HasPrefix(t, "/") {
		v.add(t, item.Location, "path %q does not begin with '/'; paths are appended to the server URL as written", t)
	}
	names, err := templateExpr(t)
	if err != nil {
		v.add(t, item.Location, "path %q is not a valid template: %v", t, err)
		return
	}
	if len(names) > 0 {
		norm := normalizedTemplate(t)
		if first, dup := v.normalized[norm]; dup {
			v.add(t, item.Location, "path %q differs from %q (line %d) only in variable names; such paths are identical and must not both exist",
				t, first.Template, first.Location.Line)
		} else {
			v.normalized[norm] = item
		}
	}
	inTemplate := map[string]bool{}
	for _, n := range names {
		inTemplate[n] = true
	}
	for _, op := range ops {
		v.operation(t, op, inTemplate)
	}
}

func (v *templateValidator) operation(t string, op *spec.Operation, inTemplate map[string]bool) {
	declared := map[string]bool{}
	for _, p := range op.Parameters {
		if p.In != "path" {
			continue
		}
		declared[p.Name] = true
		if v.reported[p.Location.Pointer] {
			continue
		}
		switch {
		case !inTemplate[p.Name]:
			v.reported[p.Location.Pointer] = true
			v.add(t+" "+p.Name, p.Location, "path parameter %q of %s matches no expression of the path template %q", p.Name, op.Key(), t)
		case !p.Required:
			v.reported[p.Location.Pointer] = true
			v.add(t+" "+p.Name+" required", p.Location, "path parameter %q of %s is not required: true; path parameters must be required", p.Name, op.Key())
		}
	}
	for _, name := range sortedSet(inTemplate) {
		if !declared[name] {
			v.add(op.Key()+" "+name, op.Location, "%s has the expression {%s} in its path but declares no in: path parameter %q", op.Key(), name, name)
		}
	}
}
