package halforms

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
)

// TemplatesMissing checks that A HAL-FORMS response has _templates.
type TemplatesMissing struct{ templates }

func (TemplatesMissing) Meta() checks.Meta {
	return checks.Meta{
		ID: idTemplatesMissing, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "A HAL-FORMS response has _templates",
		SpecRefs: []finding.SpecRef{refTemplates, halForms("Compliance", "MUST")},
		Help: `A HAL-FORMS document must be valid JSON with a ` + "`_templates`" + ` object; when it is
missing or unparsable, clients SHOULD ignore the whole document. A response
served as ` + "`application/prs.hal-forms+json`" + ` without templates tells an agent "this
is a form" and then gives it nothing to fill in.

**How to fix:** add ` + "`_templates`" + `, or, when the resource has no action to offer,
answer the HAL-FORMS request with 406 or plain HAL instead.`,
	}
}

func (c TemplatesMissing) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// TemplatesEmpty checks that _templates has at least one template.
type TemplatesEmpty struct{ templates }

func (TemplatesEmpty) Meta() checks.Meta {
	return checks.Meta{
		ID: idTemplatesEmpty, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "_templates has at least one template",
		SpecRefs: []finding.SpecRef{refTemplates},
		Help: `A valid HAL-FORMS document has at least one entry in ` + "`_templates`" + `. An empty
collection is a form with no action; clients cannot pick a default.

**How to fix:** omit the HAL-FORMS representation (answer 406) for resources
with no available action, as the demo app does for delivered orders.`,
	}
}

func (c TemplatesEmpty) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// MethodMissing checks that every template has a method.
type MethodMissing struct{ templates }

func (MethodMissing) Meta() checks.Meta {
	return checks.Meta{
		ID: idMethodMissing, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every template has a method",
		SpecRefs: []finding.SpecRef{refTemplate},
		Help: `` + "`method`" + ` is REQUIRED. When it is missing or empty, clients MUST treat the
template as GET, so a "cancel" form silently becomes a harmless read that the
agent believes succeeded.

**How to fix:** give every template its method, e.g. ` + "`\"method\": \"POST\"`" + `.`,
	}
}

func (c MethodMissing) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// MethodInvalid checks that A template's method is an HTTP method token.
type MethodInvalid struct{ templates }

func (MethodInvalid) Meta() checks.Meta {
	return checks.Meta{
		ID: idMethodInvalid, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "A template's method is an HTTP method token",
		SpecRefs: []finding.SpecRef{refTemplate, rfc9110Method},
		Help: `A method must be an HTTP method token (RFC 9110 §9.1). A value such as
` + "`\"PO ST\"`" + ` or ` + "`\"POST /orders\"`" + ` is not understood, and HAL-FORMS says a method that is
not understood MUST be treated as GET: the action is downgraded to a read.

**How to fix:** write the bare method name.`,
	}
}

func (c MethodInvalid) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// MethodUnrecognized checks that A template's method is written as registered (case-sensitive).
type MethodUnrecognized struct{ templates }

func (MethodUnrecognized) Meta() checks.Meta {
	return checks.Meta{
		ID: idMethodUnrecognized, Family: checks.FamilyHALForms, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "A template's method is written as registered (case-sensitive)",
		SpecRefs: []finding.SpecRef{level(refTemplate, "MUST"), rfc9110Method},
		Help: `Method names are case-sensitive (RFC 9110 §9.1): ` + "`post`" + ` is not ` + "`POST`" + `. Lenient
clients upper-case it, but a strict client does not understand it and MUST
then send GET. Spring HATEOAS 1.x documentation and samples show lowercase
methods; current versions emit upper case.

**How to fix:** emit methods in upper case (` + "`POST`" + `, ` + "`PATCH`" + `); upgrade the library if
it writes lower case.`,
	}
}

func (c MethodUnrecognized) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// TargetUnresolvable checks that every template has a target or a self link to fall back on.
type TargetUnresolvable struct{ templates }

func (TargetUnresolvable) Meta() checks.Meta {
	return checks.Meta{
		ID: idTargetUnresolvable, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every template has a target or a self link to fall back on",
		SpecRefs: []finding.SpecRef{level(refTemplate, "SHOULD")},
		Help: `A template submits to its ` + "`target`" + `, or, when that is absent or invalid, to the
document's ` + "`self`" + ` link. With neither, clients SHOULD ignore the template: the
action is advertised but cannot be performed.

**How to fix:** add a ` + "`target`" + ` to the template, or a ` + "`self`" + ` link to the document.`,
	}
}

func (c TargetUnresolvable) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// PropertyName checks that every property has a name.
type PropertyName struct{ templates }

func (PropertyName) Meta() checks.Meta {
	return checks.Meta{
		ID: idPropertyName, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every property has a name",
		SpecRefs: []finding.SpecRef{refProperties},
		Help: `` + "`name`" + ` is the one REQUIRED property attribute; clients ignore a property without
one, so the field it describes is never sent. ` + "`properties`" + ` itself must be an array
of property objects.

**How to fix:** name every property after the request field it fills.`,
	}
}

func (c PropertyName) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// PropertyDuplicate checks that property names are unique within a template.
type PropertyDuplicate struct{ templates }

func (PropertyDuplicate) Meta() checks.Meta {
	return checks.Meta{
		ID: idPropertyDuplicate, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Property names are unique within a template",
		SpecRefs: []finding.SpecRef{refProperties},
		Help: `Each property describes one request field, keyed by its name. Two properties
with one name give two prompts, two rules and one field: which constraints
apply, and which value is sent, depends on the client.

**How to fix:** merge the duplicates into one property.`,
	}
}

func (c PropertyDuplicate) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// Regex checks that regex compiles as an HTML pattern.
type Regex struct{ templates }

func (Regex) Meta() checks.Meta {
	return checks.Meta{
		ID: idRegex, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "regex compiles as an HTML pattern",
		SpecRefs: []finding.SpecRef{level(refProperties, "MUST")},
		Help: `` + "`regex`" + ` follows the HTML ` + "`pattern`" + ` attribute: an ECMAScript expression matched
against the whole value. A pattern that does not compile is ignored by
browsers and makes other clients fail, so the validation it promised never
happens. (Lookaround and backreferences are not judged.)

**How to fix:** test the pattern as ` + "`^(?:pattern)$`" + ` in a JavaScript console.`,
	}
}

func (c Regex) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// Bounds checks that min does not exceed max, nor minLength maxLength.
type Bounds struct{ templates }

func (Bounds) Meta() checks.Meta {
	return checks.Meta{
		ID: idRange, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "min does not exceed max, nor minLength maxLength",
		SpecRefs: []finding.SpecRef{level(refProperties, "MUST")},
		Help: `A property with ` + "`min`" + ` above ` + "`max`" + ` (or ` + "`minLength`" + ` above ` + "`maxLength`" + `) accepts no
value at all; an agent can never submit the form successfully.

**How to fix:** correct the bounds; they usually come from validation
annotations that disagree.`,
	}
}

func (c Bounds) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// RequiredMinItems checks that required agrees with options.minItems.
type RequiredMinItems struct{ templates }

func (RequiredMinItems) Meta() checks.Meta {
	return checks.Meta{
		ID: idRequiredMinItems, Family: checks.FamilyHALForms, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "required agrees with options.minItems",
		SpecRefs: []finding.SpecRef{level(refOptions, "SHOULD")},
		Help: `The spec asks authors to keep ` + "`required: true`" + ` consistent with ` + "`options.minItems`" + `:
a required property needs at least one selected item, and ` + "`minItems`" + ` of 1 or
more makes the property required. When they disagree, clients differ on
whether the field may be left empty.

**How to fix:** set ` + "`minItems: 1`" + ` on required properties and ` + "`required: true`" + ` when
` + "`minItems`" + ` is positive.`,
	}
}

func (c RequiredMinItems) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// OptionsSource checks that options has inline values or a link.
type OptionsSource struct{ templates }

func (OptionsSource) Meta() checks.Meta {
	return checks.Meta{
		ID: idOptionsSource, Family: checks.FamilyHALForms, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "options has inline values or a link",
		SpecRefs: []finding.SpecRef{level(refOptions, "SHOULD")},
		Help: `` + "`options`" + ` supplies the allowed values either ` + "`inline`" + ` or through a ` + "`link`" + `. With
neither, clients ignore ` + "`options`" + ` and show a free text field, so the agent guesses
values the server then rejects.

**How to fix:** add the values under ` + "`inline`" + `, or a ` + "`link`" + ` to fetch them.`,
	}
}

func (c OptionsSource) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// OptionsLinkHref checks that options.link has an href.
type OptionsLinkHref struct{ templates }

func (OptionsLinkHref) Meta() checks.Meta {
	return checks.Meta{
		ID: idOptionsLinkHref, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "options.link has an href",
		SpecRefs: []finding.SpecRef{level(refOptions, "REQUIRED")},
		Help: `` + "`options.link.href`" + ` is REQUIRED: it is where the allowed values are fetched
from. Without it the values cannot be loaded.

**How to fix:** give the link its ` + "`href`" + ` (and ` + "`templated: true`" + ` if it is a template).`,
	}
}

func (c OptionsLinkHref) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// PropertyType checks that property types come from the listed set.
type PropertyType struct{ templates }

func (PropertyType) Meta() checks.Meta {
	return checks.Meta{
		ID: idPropertyType, Family: checks.FamilyHALForms, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "Property types come from the listed set",
		SpecRefs: []finding.SpecRef{level(refProperties, "OPTIONAL")},
		Help: `The spec lists the input types (` + "`text`, `number`, `date`, `email`" + `, …); anything else
is treated as ` + "`text`" + `. Types such as ` + "`checkbox`" + ` or ` + "`datetime`" + ` appear in implementations
and are harmless, but an agent learns nothing from them.

**How to fix:** use a listed type, or accept that clients read it as text.`,
	}
}

func (c PropertyType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// ContentType checks that templates submit JSON or form-encoded bodies.
type ContentType struct{ templates }

func (ContentType) Meta() checks.Meta {
	return checks.Meta{
		ID: idContentType, Family: checks.FamilyHALForms, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "Templates submit JSON or form-encoded bodies",
		SpecRefs: []finding.SpecRef{level(refTemplate, "SHOULD")},
		Help: `Clients MUST support ` + "`application/json`" + ` and SHOULD support
` + "`application/x-www-form-urlencoded`" + `; ` + "`contentType`" + ` SHOULD be one of them. Another type
(multipart, XML) may not be producible by a generic agent.

**How to fix:** accept JSON on the action, or document the other type.`,
	}
}

func (c ContentType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// TemplateOperation checks that every template matches a documented operation and relation.
type TemplateOperation struct{ templates }

func (TemplateOperation) Meta() checks.Meta {
	return checks.Meta{
		ID: idTemplateOperation, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every template matches a documented operation and relation",
		SpecRefs: []finding.SpecRef{openAPIOps, level(refTemplate, "")},
		Help: `An agent that plans with the OpenAPI document and acts through HAL-FORMS must
see the same action in both. A template whose method and target match no
operation, or whose key is not among the operation's ` + "`x-hal-rel`" + ` relations (as
` + "`pay`" + ` or its namespaced form ` + "`ord:pay`" + `), points at an undocumented or different action.

**How to fix:** document the operation, fix the template's target or method,
or add the template's relation to the operation's ` + "`x-hal-rel`" + `.`,
	}
}

func (c TemplateOperation) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// RequiredPropertyUnknown checks that required template properties exist in the request schema.
type RequiredPropertyUnknown struct{ templates }

func (RequiredPropertyUnknown) Meta() checks.Meta {
	return checks.Meta{
		ID: idPropertyUnknown, Family: checks.FamilyHALForms, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Required template properties exist in the request schema",
		SpecRefs: []finding.SpecRef{openAPIOps},
		Help: `A required property tells agents the request must carry that field. When the
operation's request schema does not define it, agents send a field the server
rejects or ignores, and the form can never be submitted as documented.

**How to fix:** rename the property after the schema's field, or add the
field to the schema.`,
	}
}

func (c RequiredPropertyUnknown) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}

// PropertySchema checks that template properties agree with the request schema.
type PropertySchema struct{ templates }

func (PropertySchema) Meta() checks.Meta {
	return checks.Meta{
		ID: idPropertySchema, Family: checks.FamilyHALForms, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Template properties agree with the request schema",
		SpecRefs: []finding.SpecRef{level(openAPIOps, "SHOULD")},
		Help: `Template properties and the operation's request schema should describe the
same fields: every property a field of the schema, and every field the schema
requires offered as a required property (PATCH templates may leave fields
optional). Otherwise agents filling the form omit a required field, or send
one the schema does not know.

**How to fix:** generate templates from the same model as the schema.`,
	}
}

func (c PropertySchema) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judgeAgainstSpec(ctx, in, c.Meta())
}
