// Package openapihal checks the hypermedia-driven tool calling (HDTC) rules
// that tie an OpenAPI document to the HAL representations of the API it
// describes: every operation lists in x-hal-rel the link relations that
// invoke it, every relation a representation offers is listed by an
// operation whose path template matches the link's href, relations are
// unambiguous, and Prefer: namespaced-rels switches bare relations (pay) to
// namespaced ones (order:pay).
//
// The checks are pure: the recording gives the representations, in.Spec the
// operations. Those that need only the document (x-hal-rel well-formedness,
// collisions, state-changing operations without x-hal-rel) report Static, so
// that `agentready lint` runs them on a spec file alone.
package openapihal

import (
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		UnlistedRel{}, WrongCoordinate{}, MethodMismatch{}, UndeclaredCurie{},
		Malformed{}, Ambiguous{}, BareCollision{}, Unlinked{},
		NamespacedRels{}, NamespacedVary{}, UnknownPreference{},
		NeverOffered{}, UndeclaredResponse{}, ResponseSchema{},
	}
}

// static is what the checks that read only the OpenAPI document share:
// the parts of their family. Each declares what it reads in its Meta
// (checks.DocOpenAPI), which is what lint selects by.
type static struct{}

// family is the part every check of the family brings: the reader of every
// page's offers, shared with the other families' page readers.
var family = []checks.Part{offersReader{}}

// Parts are the family's parts, for its checks that live elsewhere
// (checks/openapidoc).
func Parts() []checks.Part { return family }

// Parts implement checks.WithParts, alike for every check of the family.
func (static) Parts() []checks.Part             { return family }
func (probes) Parts() []checks.Part             { return family }
func (UndeclaredResponse) Parts() []checks.Part { return family }
func (ResponseSchema) Parts() []checks.Part     { return family }

// Clauses the family cites. HDTC is a published protocol description, not an
// IETF document; its "must" is a protocol rule, cited with its section.
var (
	hdtcMatch = finding.SpecRef{Doc: "HDTC protocol", Section: "2.C Contextual Validation", Level: "MUST",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi-hal.md#the-hdtc-rules"}
	hdtcBridge = finding.SpecRef{Doc: "HDTC protocol", Section: "2.B Link-Schema Bridge", Level: "MUST",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi-hal.md#the-hdtc-rules"}
	hdtcNegotiation = finding.SpecRef{Doc: "HDTC protocol", Section: "2.A Capability Negotiation", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi-hal.md#the-hdtc-rules"}
	hdtcServer = finding.SpecRef{Doc: "HDTC protocol", Section: "3 Implementation Guide (server side)", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi-hal.md#the-hdtc-rules"}
	hdtcCoverage = finding.SpecRef{Doc: "HDTC protocol", Section: "4 Advantages (state safety)", Level: "",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi-hal.md#the-hdtc-rules"}
	hdtcCollision = finding.SpecRef{Doc: "HDTC protocol", Section: "2.C Contextual Validation", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/openapi-hal.md#the-hdtc-rules"}
	halCuries = finding.SpecRef{Doc: "draft-kelly-json-hal-11", Section: "8.3", Level: "SHOULD",
		URL: "https://datatracker.ietf.org/doc/html/draft-kelly-json-hal-11#section-8.3"}
	halFormsMethod = finding.SpecRef{Doc: "HAL-FORMS", Section: "The _templates Collection (method)", Level: "",
		URL: "https://rwcbook.github.io/hal-forms/#_the_code__templates_code_collection"}
	rfc7240Section2 = finding.SpecRef{Doc: "RFC 7240", Section: "2", Level: "MUST",
		URL: "https://www.rfc-editor.org/rfc/rfc7240#section-2"}
	rfc7240Applied = finding.SpecRef{Doc: "RFC 7240", Section: "3", Level: "MAY",
		URL: "https://www.rfc-editor.org/rfc/rfc7240#section-3"}
	oasExtensions = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "Specification Extensions", Level: "",
		URL: "https://spec.openapis.org/oas/v3.1.2#specification-extensions"}
	oasResponses = finding.SpecRef{Doc: "OpenAPI 3.1", Section: "Responses Object", Level: "SHOULD",
		URL: "https://spec.openapis.org/oas/v3.1.2#responses-object"}
)

// needHALRel skips unless a spec is loaded and uses x-hal-rel: without it
// the API does not claim to follow HDTC, and nothing can be matched.
func needHALRel(in *checks.Input) error {
	if err := in.NeedSpec(); err != nil {
		return err
	}
	if in.Spec.Swagger2 {
		return checks.Skip("the OpenAPI document is Swagger 2.0, whose operations are not checked")
	}
	if !usesHALRel(in.Spec) {
		return checks.Skip("no operation of the OpenAPI document has x-hal-rel")
	}
	return nil
}

func usesHALRel(d *spec.Document) bool {
	if d.UsesHALRel {
		return true
	}
	for _, op := range d.Operations {
		if hasHALRel(op) {
			return true
		}
	}
	return false
}

// rawHALRel is x-hal-rel as written, and whether the operation has it. The
// decoded extension is preferred; HALRelsRaw and HALRels are the fallback
// for documents built without Extensions.
func rawHALRel(op *spec.Operation) (any, bool) {
	if v, ok := op.Extensions["x-hal-rel"]; ok {
		return v, true
	}
	if op.HALRelsRaw != nil {
		return op.HALRelsRaw, true
	}
	if op.HALRels != nil {
		out := make([]any, len(op.HALRels))
		for i, r := range op.HALRels {
			out[i] = r
		}
		return out, true
	}
	return nil, op.HALRelLocation != nil
}

// hasHALRel reports whether the operation carries x-hal-rel at all, even a
// malformed one.
func hasHALRel(op *spec.Operation) bool {
	_, ok := rawHALRel(op)
	return ok
}

// relsOf reads x-hal-rel leniently, so that one malformed value gives one
// finding (from the well-formedness check) rather than one per rule: a
// string counts as a space-separated list, as the rel parameter of a Link
// header would, and non-strings, empty strings and repeats are dropped.
func relsOf(op *spec.Operation) []string {
	var out []string
	add := func(r string) {
		if r = strings.TrimSpace(r); r != "" && !containsFold(out, r) {
			out = append(out, r)
		}
	}
	raw, _ := rawHALRel(op)
	switch v := raw.(type) {
	case string:
		for _, r := range strings.Fields(v) {
			add(r)
		}
	case []string:
		for _, r := range v {
			add(r)
		}
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// lists reports whether the operation lists rel. Relation names compare
// case-insensitively (RFC 8288 §2.1.1 for registered names; CURIEs are
// matched the same way so that Order:pay and order:pay are one relation).
func lists(op *spec.Operation, rel string) bool {
	return containsFold(relsOf(op), rel)
}

// relIndex maps each relation (lower case) to the operations whose x-hal-rel
// lists it, in document order, so that matching thousands of links against
// thousands of operations stays linear.
type relIndex map[string][]*spec.Operation

func newRelIndex(d *spec.Document) relIndex {
	ix := relIndex{}
	for _, op := range d.Operations {
		for _, r := range relsOf(op) {
			ix[strings.ToLower(r)] = append(ix[strings.ToLower(r)], op)
		}
	}
	return ix
}

// listing returns the operations whose x-hal-rel lists rel.
func (ix relIndex) listing(rel string) []*spec.Operation { return ix[strings.ToLower(rel)] }

var relsKey = checks.NewKey[relIndex]()

// relsOfSpec is the Input's relation index, built once.
func relsOfSpec(in *checks.Input) relIndex {
	return checks.Memo(in, relsKey, func() relIndex { return newRelIndex(in.Spec) })
}

// splitRel separates a CURIE into prefix and local name; prefix is "" for a
// bare relation and for absolute URIs, which are not namespaced relations.
func splitRel(rel string) (prefix, local string) {
	p, l, ok := strings.Cut(rel, ":")
	if !ok || p == "" || l == "" || strings.HasPrefix(l, "//") || isURIScheme(p) {
		return "", rel
	}
	return p, l
}

func isURIScheme(p string) bool {
	switch strings.ToLower(p) {
	case "http", "https", "urn", "tag", "mailto":
		return true
	}
	return false
}

// exempt relations are never required to appear in x-hal-rel: HAL's own
// reserved relation and the IANA-registered relations, which navigate rather
// than invoke an operation. An operation may still list one, and then the
// coordinate rules apply to it.
var exempt = map[string]bool{
	"curies": true,
	"about":  true, "alternate": true, "api-catalog": true, "appendix": true, "archives": true,
	"author": true, "blocked-by": true, "bookmark": true, "canonical": true, "chapter": true,
	"cite-as": true, "collection": true, "contents": true, "convertedfrom": true, "copyright": true,
	"create-form": true, "current": true, "deprecation": true, "describedby": true, "describes": true,
	"disclosure": true, "duplicate": true, "edit": true, "edit-form": true, "edit-media": true,
	"enclosure": true, "external": true, "first": true, "glossary": true, "help": true, "hosts": true,
	"hub": true, "icon": true, "index": true, "item": true, "last": true, "latest-version": true,
	"license": true, "linkset": true, "lrdd": true, "manifest": true, "me": true, "memento": true,
	"monitor": true, "monitor-group": true, "next": true, "next-archive": true, "original": true,
	"payment": true, "predecessor-version": true, "prev": true, "prev-archive": true, "preview": true,
	"previous": true, "privacy-policy": true, "profile": true, "related": true, "replies": true,
	"search": true, "section": true, "self": true, "service": true, "service-desc": true,
	"service-doc": true, "service-meta": true, "start": true, "status": true, "subsection": true,
	"successor-version": true, "sunset": true, "tag": true, "terms-of-service": true, "timegate": true,
	"timemap": true, "type": true, "up": true, "version-history": true, "via": true,
	"working-copy": true, "working-copy-of": true,
}

func isExempt(rel string) bool { return exempt[strings.ToLower(rel)] }

// locationOf is where a finding about op points: the x-hal-rel key when
// wanted and known, otherwise the operation.
func locationOf(op *spec.Operation, halRel bool) *finding.SourceLocation {
	if halRel && op.HALRelLocation != nil {
		l := *op.HALRelLocation
		return &l
	}
	if l, ok := op.ExtensionLocations["x-hal-rel"]; halRel && ok {
		return &l
	}
	if op.Location.File == "" && op.Location.Line == 0 {
		return nil
	}
	l := op.Location
	return &l
}

// opKeys names operations as findings do ("GET /orders").
func opKeys(ops []*spec.Operation) []string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Key()
	}
	return names
}

// keys names operations in a message: the first few, then how many more.
func keys(ops []*spec.Operation) string { return checks.JoinFew(opKeys(ops)) }

// specEvidence names an operation in a finding that has no exchange behind
// it, as static findings do: the method and path template, with what
// x-hal-rel says.
func specEvidence(op *spec.Operation, expected, actual string) finding.Evidence {
	return finding.Evidence{Method: op.Method, URL: op.PathTemplate, Header: "x-hal-rel", Expected: expected, Actual: actual}
}
