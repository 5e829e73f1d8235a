// Package halforms checks HAL-FORMS documents (application/prs.hal-forms+json):
// the _templates collection, each template's method, target and content
// type, and each property's name, pattern, bounds and options. With an
// OpenAPI document loaded it also checks that every template names a
// documented operation and agrees with its request schema.
//
// The crawl asks for HAL-FORMS on the sampled resources that serve HAL or
// advertise HAL-FORMS. A resource that answers that request with 406, or with
// plain HAL, has no HAL-FORMS representation, which is not a defect: only
// responses actually served as HAL-FORMS are judged, and JSON responses (HAL
// ones included) that carry _templates anyway.
package halforms

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// Check IDs.
const (
	idTemplatesMissing   = "hal-forms-templates-missing"
	idTemplatesEmpty     = "hal-forms-templates-empty"
	idMethodMissing      = "hal-forms-method-missing"
	idMethodInvalid      = "hal-forms-method-invalid"
	idMethodUnrecognized = "hal-forms-method-unrecognized"
	idTargetUnresolvable = "hal-forms-target-unresolvable"
	idPropertyName       = "hal-forms-property-name"
	idPropertyDuplicate  = "hal-forms-property-duplicate"
	idRegex              = "hal-forms-regex"
	idRange              = "hal-forms-bounds"
	idRequiredMinItems   = "hal-forms-required-min-items"
	idOptionsSource      = "hal-forms-options-source"
	idOptionsLinkHref    = "hal-forms-options-link-href"
	idPropertyType       = "hal-forms-property-type"
	idContentType        = "hal-forms-content-type"
	idTemplateOperation  = "hal-forms-template-operation"
	idPropertyUnknown    = "hal-forms-required-property-unknown"
	idPropertySchema     = "hal-forms-property-schema"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		TemplatesMissing{}, TemplatesEmpty{}, MethodMissing{}, MethodInvalid{}, MethodUnrecognized{}, TargetUnresolvable{},
		PropertyName{}, PropertyDuplicate{}, Regex{}, Bounds{}, RequiredMinItems{}, OptionsSource{}, OptionsLinkHref{},
		PropertyType{}, ContentType{}, TemplateOperation{}, RequiredPropertyUnknown{}, PropertySchema{},
	}
}

// noDocs is the family's reason for not being assessed.
const noDocs = "no response was served as application/prs.hal-forms+json or carried _templates in other JSON"

// templates is embedded by every check of the family: its planner and
// its parts.
type templates struct{}

// Plan asks for HAL-FORMS; the scan plans once for every check.
func (templates) Plan(in *checks.PlanInput) []exchange.PlannedRequest {
	return hypermedia.PlanFetch(in)
}

// Parts implements checks.WithParts: the state matrix reads the templates.
func (templates) Parts() []checks.Part { return hypermedia.Parts() }

// judge is the findings of check m, a check on the documents alone, from
// the family's one analysis of them.
func judge(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	a := analyze(in)
	if a.docs == 0 {
		return nil, checks.Skip(noDocs)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return hypermedia.Findings(m, a.issues[m.ID]), nil
}

var specIssuesKey = checks.NewKey[map[string][]hypermedia.Issue]()

// judgeAgainstSpec is the findings of check m, which compares the
// templates with the OpenAPI document.
func judgeAgainstSpec(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	if err := in.NeedSpec(); err != nil {
		return nil, err
	}
	a := analyze(in)
	if a.docs == 0 {
		return nil, checks.Skip(noDocs)
	}
	if len(a.templates) == 0 {
		return nil, checks.Skip("no HAL-FORMS template had a usable method and target to compare with the OpenAPI document")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	issues := checks.Memo(in, specIssuesKey, func() map[string][]hypermedia.Issue { return specIssues(a, in.Spec) })
	return hypermedia.Findings(m, issues[m.ID]), nil
}

const specURL = "https://rwcbook.github.io/hal-forms/"

func halForms(anchor, level string) finding.SpecRef {
	return finding.SpecRef{Doc: "HAL-FORMS", Section: anchor, Level: level, URL: specURL + "#" + anchorID(anchor)}
}

// anchorID turns a heading into the asciidoc anchor the published page uses.
func anchorID(heading string) string {
	out := make([]byte, 0, len(heading)+1)
	out = append(out, '_')
	for i := 0; i < len(heading); i++ {
		c := heading[i]
		switch {
		case c >= 'A' && c <= 'Z':
			out = append(out, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			out = append(out, c)
		case c == ' ' || c == '-':
			out = append(out, '_')
		}
	}
	return string(out)
}

var (
	refTemplates  = halForms("The _templates Collection", "REQUIRED")
	refTemplate   = halForms("The _templates Elements", "REQUIRED")
	refProperties = halForms("The properties Array", "REQUIRED")
	refOptions    = halForms("The options Element", "OPTIONAL")
	rfc9110Method = finding.SpecRef{Doc: "RFC 9110", Section: "9.1", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-9.1"}
	openAPIOps    = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "4.8.10 Operation Object", Level: "MUST", URL: "https://spec.openapis.org/oas/v3.1.0#operation-object"}
)

func level(r finding.SpecRef, l string) finding.SpecRef { r.Level = l; return r }
