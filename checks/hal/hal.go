// Package hal checks HAL documents (draft-kelly-json-hal-11): the resource
// object, link objects, URI templates, CURIEs, self links, the stability of a
// relation's shape across responses, and deprecated links. It judges every
// crawled response served as application/hal+json; the document is decoded
// with member order kept and within bounds, so hostile bodies cannot blow up
// the scan, and every finding points at the offending member.
package hal

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/finding"
)

// Check IDs.
const (
	idRootObject      = "hal-root-object"
	idLinksShape      = "hal-links-shape"
	idHref            = "hal-link-href"
	idTemplatedString = "hal-templated-not-boolean"
	idUntemplated     = "hal-href-template-undeclared"
	idInvalidTemplate = "hal-invalid-template"
	idCurieUndefined  = "hal-curie-undefined"
	idCurieTemplate   = "hal-curie-malformed"
	idSelf            = "hal-self-link"
	idCardinality     = "hal-relation-cardinality"
	idOffOrigin       = "hal-off-origin-link"
	idDeprecation     = "hal-deprecated-link"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		RootObject{}, LinksShape{}, LinkHref{}, TemplatedNotBoolean{}, HrefTemplateUndeclared{}, InvalidTemplate{},
		CurieUndefined{}, CurieMalformed{}, SelfLink{}, RelationCardinality{}, OffOriginLink{}, DeprecatedLink{},
		DeadLinks{},
	}
}

// document is embedded by every check of the family that judges the HAL
// documents themselves.
type document struct{}

// Parts implements checks.WithParts: the state matrix reads the links.
func (document) Parts() []checks.Part { return hypermedia.Parts() }

// judge is the findings of check m, from the family's one analysis of the
// HAL documents.
func judge(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	a := analyze(in)
	if a.docs == 0 {
		return nil, checks.Skip("no crawled response was served as application/hal+json")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return hypermedia.Findings(m, a.issues[m.ID]), nil
}

const draftURL = "https://datatracker.ietf.org/doc/html/draft-kelly-json-hal-11"

func draft(section, level string) finding.SpecRef {
	return finding.SpecRef{Doc: "draft-kelly-json-hal-11", Section: section, Level: level, URL: draftURL + "#section-" + section}
}

var rfc6570 = finding.SpecRef{Doc: "RFC 6570", Section: "2", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc6570#section-2"}

// RootObject checks that A HAL document's root is a resource object.
type RootObject struct{ document }

func (RootObject) Meta() checks.Meta {
	return checks.Meta{
		ID: idRootObject, Family: checks.FamilyHAL, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "A HAL document's root is a resource object",
		SpecRefs: []finding.SpecRef{draft("3", "MUST")},
		Help: `A HAL document is JSON whose root is a Resource Object (draft §3). A body served
as ` + "`application/hal+json`" + ` that is an array, a string or not JSON at all breaks every
HAL client: there is nowhere to find ` + "`_links`" + `.

**How to fix:** serve a JSON object at the root, with the state as members and
the links under ` + "`_links`" + `; serve other bodies with another media type.`,
	}
}

func (c RootObject) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// LinksShape checks that _links maps relations to link objects or arrays of them.
type LinksShape struct{ document }

func (LinksShape) Meta() checks.Meta {
	return checks.Meta{
		ID: idLinksShape, Family: checks.FamilyHAL, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "_links maps relations to link objects or arrays of them",
		SpecRefs: []finding.SpecRef{draft("4.1.1", "MUST")},
		Help: `` + "`_links`" + ` is an object whose keys are link relation types and whose values are
a Link Object or an array of Link Objects (draft §4.1.1). A string, a number or
an array of strings where a link object belongs is not a link: agents that
follow relations find nothing, or crash on the type.

**How to fix:** write every link as ` + "`{\"href\": \"...\"}`" + `, and use an array only for
relations that can have several targets.`,
	}
}

func (c LinksShape) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// LinkHref checks that every link object has an href.
type LinkHref struct{ document }

func (LinkHref) Meta() checks.Meta {
	return checks.Meta{
		ID: idHref, Family: checks.FamilyHAL, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every link object has an href",
		SpecRefs: []finding.SpecRef{draft("5.1", "REQUIRED")},
		Help: `` + "`href`" + ` is the one required member of a Link Object (draft §5.1): a URI or a URI
Template. A link without it cannot be followed; an agent that chose the
relation is left with nothing to request.

**How to fix:** give every link an ` + "`href`" + ` string, or drop the link.`,
	}
}

func (c LinkHref) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// TemplatedNotBoolean checks that templated is the boolean true, not a string.
type TemplatedNotBoolean struct{ document }

func (TemplatedNotBoolean) Meta() checks.Meta {
	return checks.Meta{
		ID: idTemplatedString, Family: checks.FamilyHAL, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "templated is the boolean true, not a string",
		SpecRefs: []finding.SpecRef{draft("5.2", "SHOULD")},
		Help: `` + "`templated`" + ` is a boolean; clients treat any value other than ` + "`true`" + ` as false
(draft §5.2). ` + "`\"templated\": \"true\"`" + ` is therefore read as *not templated*, and the
client requests the template text itself, braces included.

**How to fix:** emit ` + "`\"templated\": true`" + ` without quotes; check the serializer's
handling of booleans.`,
	}
}

func (c TemplatedNotBoolean) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// HrefTemplateUndeclared checks that an href with a template expression declares templated: true.
type HrefTemplateUndeclared struct{ document }

func (HrefTemplateUndeclared) Meta() checks.Meta {
	return checks.Meta{
		ID: idUntemplated, Family: checks.FamilyHAL, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "An href with a template expression declares templated: true",
		SpecRefs: []finding.SpecRef{draft("5.1", "SHOULD"), draft("5.2", "SHOULD")},
		Help: `When ` + "`href`" + ` is a URI Template the link SHOULD carry ` + "`\"templated\": true`" + ` (draft
§5.1, §5.2). Without it clients treat ` + "`/orders{?state}`" + ` as a literal URL and request
it verbatim, which usually answers 400 or 404.

**How to fix:** add ` + "`\"templated\": true`" + ` to links whose href contains ` + "`{…}`" + `.`,
	}
}

func (c HrefTemplateUndeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// InvalidTemplate checks that templated hrefs are valid RFC 6570 URI Templates.
type InvalidTemplate struct{ document }

func (InvalidTemplate) Meta() checks.Meta {
	return checks.Meta{
		ID: idInvalidTemplate, Family: checks.FamilyHAL, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Templated hrefs are valid RFC 6570 URI Templates",
		SpecRefs: []finding.SpecRef{draft("5.1", "MUST"), rfc6570},
		Help: `A templated ` + "`href`" + ` is an RFC 6570 URI Template (draft §5.1). Unbalanced braces,
empty expressions, the reserved operators ` + "`= , ! @ |`" + `, bad variable names or
prefix lengths outside 1–9999 make the template unexpandable: a conforming
client rejects it, a lenient one sends garbage.

**How to fix:** correct the template; OpenAPI-style ` + "`{id}`" + ` is fine, but operators
must be one of ` + "`+ # . / ; ? &`" + `.`,
	}
}

func (c InvalidTemplate) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// CurieUndefined checks that every CURIE prefix has a curies entry.
type CurieUndefined struct{ document }

func (CurieUndefined) Meta() checks.Meta {
	return checks.Meta{
		ID: idCurieUndefined, Family: checks.FamilyHAL, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every CURIE prefix has a curies entry",
		SpecRefs: []finding.SpecRef{draft("8.3", "MUST")},
		Help: `A relation such as ` + "`ord:pay`" + ` is a CURIE: the prefix ` + "`ord`" + ` names a ` + "`curies`" + ` link
whose templated href expands the relation to its documentation (draft §8.3).
With no such entry the relation cannot be expanded: agents cannot look up
what it means, and ` + "`ord:pay`" + ` is misread as a URI with the scheme ` + "`ord`" + `.

**How to fix:** add ` + "`\"curies\": [{\"name\": \"ord\", \"href\": \"https://…/rels/{rel}\", \"templated\": true}]`" + `
to ` + "`_links`" + ` (of the resource or an enclosing one).`,
	}
}

func (c CurieUndefined) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// CurieMalformed checks that curies entries are named, templated and contain {rel}.
type CurieMalformed struct{ document }

func (CurieMalformed) Meta() checks.Meta {
	return checks.Meta{
		ID: idCurieTemplate, Family: checks.FamilyHAL, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "curies entries are named, templated and contain {rel}",
		SpecRefs: []finding.SpecRef{draft("8.3", "SHOULD")},
		Help: `Each ` + "`curies`" + ` entry has a ` + "`name`" + ` (the prefix) and a templated href containing
the token ` + "`{rel}`" + ` (draft §8.3). Without ` + "`{rel}`" + ` every relation of the prefix
expands to the same page; without ` + "`templated: true`" + ` clients do not expand it at all.

**How to fix:** write entries as ` + "`{\"name\": \"ord\", \"href\": \"https://…/{rel}\", \"templated\": true}`" + `.`,
	}
}

func (c CurieMalformed) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// SelfLink checks that resources have a self link.
type SelfLink struct{ document }

func (SelfLink) Meta() checks.Meta {
	return checks.Meta{
		ID: idSelf, Family: checks.FamilyHAL, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Resources have a self link",
		SpecRefs: []finding.SpecRef{draft("8.1", "SHOULD")},
		Help: `Each Resource Object, embedded ones included, SHOULD have a ` + "`self`" + ` link to its own
URI (draft §8.1). Agents use it to refresh a resource, to act on an embedded
item, and to know which URL a representation belongs to.

**How to fix:** add ` + "`\"self\": {\"href\": \"/orders/1\"}`" + ` to every resource's ` + "`_links`" + `.`,
	}
}

func (c SelfLink) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// RelationCardinality checks that A relation keeps one shape: a link object or an array.
type RelationCardinality struct{ document }

func (RelationCardinality) Meta() checks.Meta {
	return checks.Meta{
		ID: idCardinality, Family: checks.FamilyHAL, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "A relation keeps one shape: a link object or an array",
		SpecRefs: []finding.SpecRef{draft("4.1.1", "SHOULD NOT")},
		Help: `Servers SHOULD NOT switch a relation between a single Link Object and an array
(draft §4.1.1); a change of cardinality should get a new relation. Clients are
written against one shape and break on the other, typically when a collection
happens to have exactly one item.

**How to fix:** always emit the relation as an array if it can ever hold more
than one link, even when it holds one.`,
	}
}

func (c RelationCardinality) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// OffOriginLink checks that links stay on the API's origin unless they are meant to leave.
type OffOriginLink struct{ document }

func (OffOriginLink) Meta() checks.Meta {
	return checks.Meta{
		ID: idOffOrigin, Family: checks.FamilyHAL, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "Links stay on the API's origin unless they are meant to leave",
		SpecRefs: []finding.SpecRef{draft("5.1", "")},
		Help: `Most links of a document resolve to the API's own origin. One that resolves
elsewhere, where the rest do not, is often a leaked internal or staging host,
an absolute URL built from the wrong configuration, or an intentional hand-off
that an agent should treat with care (credentials are not sent across origins).

**How to fix:** build links from the request's public origin, or relative to
it; ignore this note for deliberate external links.`,
	}
}

func (c OffOriginLink) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// DeprecatedLink checks that deprecated links are reported with their documentation.
type DeprecatedLink struct{ document }

func (DeprecatedLink) Meta() checks.Meta {
	return checks.Meta{
		ID: idDeprecation, Family: checks.FamilyHAL, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "Deprecated links are reported with their documentation",
		SpecRefs: []finding.SpecRef{draft("5.4", "SHOULD")},
		Help: `A Link Object with ` + "`deprecation`" + ` will be removed later; its value is a URL that
SHOULD explain the deprecation, and clients SHOULD tell their users when they
follow such a link (draft §5.4). The scanner lists them so you can check the
documentation exists and plan the migration of agents.

**How to fix:** nothing, if the deprecation is intended; make sure the URL
documents the replacement.`,
	}
}

func (c DeprecatedLink) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}
