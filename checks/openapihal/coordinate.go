package openapihal

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// Coordinate matching (HDTC §2.C): for a relation offered with an href, an
// agent looks for an operation whose x-hal-rel lists the relation and whose
// path template matches the href. The three ways this fails are three
// checks, so that each says exactly what to fix.

// verdict is the outcome of matching one offer.
type verdict int

const (
	matched verdict = iota
	skipped
	unlisted
	wrongCoordinate
	methodMismatch
)

// match is one offer judged against the spec.
type match struct {
	o       offer
	verdict verdict
	listing []*spec.Operation // operations whose x-hal-rel lists the relation
	at      []*spec.Operation // operations at the path template the href matches
	tmpl    string            // that template, "" when none matches
}

// pathMatcher matches concrete paths to templates once per distinct path:
// the same links recur in many representations, and the index tries every
// template on each call.
type pathMatcher struct {
	ix   *spec.Index
	seen map[string]pathMatch
}

type pathMatch struct {
	tmpl string
	ops  map[string]*spec.Operation
}

func newPathMatcher(d *spec.Document) *pathMatcher {
	return &pathMatcher{ix: d.Index(), seen: map[string]pathMatch{}}
}

func (pm *pathMatcher) match(path string) (string, map[string]*spec.Operation) {
	if m, ok := pm.seen[path]; ok {
		return m.tmpl, m.ops
	}
	tmpl, ops := pm.ix.MatchPath(path)
	pm.seen[path] = pathMatch{tmpl, ops}
	return tmpl, ops
}

func judge(pm *pathMatcher, rels relIndex, o offer) match {
	m := match{o: o, verdict: skipped}
	if o.offOrigin || strings.EqualFold(o.rel, "self") || strings.EqualFold(o.rel, "curies") {
		return m
	}
	tmpl, ops := pm.match(o.path)
	m.tmpl = tmpl
	for _, method := range slices.Sorted(maps.Keys(ops)) {
		m.at = append(m.at, ops[method])
	}
	// A HAL-FORMS template keyed "default" names no relation: only its
	// method and target can be matched.
	if o.template && o.rel == "default" {
		if len(m.at) > 0 && ops[o.method] == nil && o.method != "" {
			m.verdict = methodMismatch
		}
		return m
	}
	m.listing = rels.listing(o.rel)
	if len(m.listing) == 0 {
		if !isExempt(o.rel) {
			m.verdict = unlisted
		}
		return m
	}
	var candidates []*spec.Operation
	for _, op := range m.listing {
		if op.PathTemplate == tmpl && tmpl != "" {
			candidates = append(candidates, op)
		}
	}
	switch {
	case len(candidates) == 0:
		m.verdict = wrongCoordinate
	case o.method != "" && !hasMethod(candidates, o.method):
		m.verdict = methodMismatch
		m.at = candidates
	default:
		m.verdict = matched
	}
	return m
}

func hasMethod(ops []*spec.Operation, method string) bool {
	for _, op := range ops {
		if op.Method == method {
			return true
		}
	}
	return false
}

var matchesKey = checks.NewKey[[]match]()

// matches judges every offer once per Input.
func matches(in *checks.Input) []match {
	return checks.Memo(in, matchesKey, func() []match {
		a, rels, pm := analyze(in), relsOfSpec(in), newPathMatcher(in.Spec)
		out := make([]match, len(a.offers))
		for i, o := range a.offers {
			out[i] = judge(pm, rels, o)
		}
		return out
	})
}

// group collects the matches of one verdict under a key, keeping the first
// occurrence as evidence and counting the rest.
type group struct {
	first match
	count int
}

func grouped(ms []match, v verdict, key func(match) string) ([]string, map[string]*group) {
	var order []string
	groups := map[string]*group{}
	for _, m := range ms {
		if m.verdict != v {
			continue
		}
		k := key(m)
		g := groups[k]
		if g == nil {
			g = &group{first: m}
			groups[k] = g
			order = append(order, k)
		}
		g.count++
	}
	return order, groups
}

func offerEvidence(o offer, expected, actual string) finding.Evidence {
	ev := checks.Evidence(o.x, []string{"Accept", "Prefer"}, []string{"Content-Type", "Preference-Applied"})
	ev.JSONPointer, ev.Expected, ev.Actual = o.pointer, expected, actual
	ev.Excerpt = checks.Excerpt(o.x)
	return ev
}

func describeOffer(o offer) string {
	kind := "relation"
	if o.template {
		kind = "HAL-FORMS template"
	}
	return fmt.Sprintf("%s %q → %s", kind, o.rel, o.href)
}

func times(n int) string {
	if n == 1 {
		return "in 1 representation"
	}
	return fmt.Sprintf("in %d representations", n)
}

func shapeOf(path string) string { return exchange.PathShape(path) }

// UnlistedRel: a relation that no operation lists.
type UnlistedRel struct{ probes }

func (UnlistedRel) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-unlisted-rel",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Every offered relation is listed in some operation's x-hal-rel",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{hdtcMatch, hdtcBridge},
		Help: `An agent following HDTC turns a link into a tool call by finding the operation
whose ` + "`x-hal-rel`" + ` lists the link's relation. A relation that no operation lists
is a dead end: the agent sees an action and cannot call it, or guesses.

Only relations that act on the API count: ` + "`self`" + `, ` + "`curies`" + ` and the
IANA-registered relations (` + "`next`" + `, ` + "`collection`" + `, ` + "`service-desc`" + `, ...)
are exempt unless an operation lists them.

**How to fix:** add the relation to the ` + "`x-hal-rel`" + ` array of the operation the
link invokes, in both forms if the API offers both (` + "`[\"order:pay\", \"pay\"]`" + `).`,
	}
}

func (c UnlistedRel) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needHALRel(in); err != nil {
		return nil, err
	}
	order, groups := grouped(matches(in), unlisted, func(m match) string { return strings.ToLower(m.o.rel) })
	var out []finding.Finding
	for _, k := range order {
		g := groups[k]
		o := g.first.o
		msg := fmt.Sprintf("%s is offered %s, but no operation lists %q in x-hal-rel", describeOffer(o), times(g.count), o.rel)
		out = append(out, checks.New(c.Meta(), o.rel, msg, offerEvidence(o, "an operation with x-hal-rel containing "+o.rel, "none")))
	}
	return out, ctx.Err()
}

// WrongCoordinate: the relation is listed, but not on an operation whose
// path template matches the href.
type WrongCoordinate struct{ probes }

func (WrongCoordinate) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-wrong-coordinate",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "A relation's href matches the path template of an operation that lists it",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{hdtcMatch},
		Help: `HDTC matches on two coordinates: the relation must be in the operation's
` + "`x-hal-rel`" + ` **and** the link's href (base path stripped) must match the
operation's path template. When the link points somewhere else, for example
` + "`x-hal-rel`" + ` on ` + "`/orders/{id}/payment`" + ` while the link points at ` + "`/orders/1/pay`" + `,
the agent either refuses the call or extracts the wrong parameters.

**How to fix:** make the link point at the documented path, or move the
relation to the operation that really serves the href.`,
	}
}

func (c WrongCoordinate) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needHALRel(in); err != nil {
		return nil, err
	}
	order, groups := grouped(matches(in), wrongCoordinate, func(m match) string {
		return strings.ToLower(m.o.rel) + "\x00" + shapeOf(m.o.path)
	})
	var out []finding.Finding
	for _, k := range order {
		g := groups[k]
		o, listing := g.first.o, g.first.listing
		var templates []string
		for _, op := range listing {
			templates = append(templates, op.PathTemplate)
		}
		matchedBy := "no path template"
		if g.first.tmpl != "" {
			matchedBy = "only " + g.first.tmpl
		}
		msg := fmt.Sprintf("%s (%s) matches %s, but the operations listing %q are at %s",
			describeOffer(o), times(g.count), matchedBy, o.rel, keys(listing))
		f := checks.New(c.Meta(), o.rel, msg, offerEvidence(o, strings.Join(templates, " or "), o.path))
		f.Location = locationOf(listing[0], true)
		out = append(out, f)
	}
	return out, ctx.Err()
}

// MethodMismatch: a HAL-FORMS template's method is not the method of the
// operation its relation and target match.
type MethodMismatch struct{ probes }

func (MethodMismatch) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-method-mismatch",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "A HAL-FORMS template's method is the method of its matched operation",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{hdtcMatch, halFormsMethod},
		Help: `A HAL-FORMS template says which method to use. When its relation and target
match an operation whose method differs (the template says ` + "`PUT`" + `, the
operation is a ` + "`POST`" + `), an agent that trusts the template gets 405, and one
that trusts the OpenAPI document contradicts the server's own controls.

**How to fix:** make the template's ` + "`method`" + ` the operation's method, or document
the method the server really accepts.`,
	}
}

func (c MethodMismatch) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needHALRel(in); err != nil {
		return nil, err
	}
	order, groups := grouped(matches(in), methodMismatch, func(m match) string {
		return strings.ToLower(m.o.rel) + "\x00" + m.o.method + "\x00" + m.tmpl
	})
	var out []finding.Finding
	for _, k := range order {
		g := groups[k]
		o, at := g.first.o, g.first.at
		msg := fmt.Sprintf("%s (%s) says %s, but the matching operations are %s",
			describeOffer(o), times(g.count), o.method, keys(at))
		ev := offerEvidence(o, methods(at), o.method)
		ev.JSONPointer += "/method"
		f := checks.New(c.Meta(), o.rel+" "+o.method, msg, ev)
		f.Location = locationOf(at[0], false)
		out = append(out, f)
	}
	return out, ctx.Err()
}

func methods(ops []*spec.Operation) string {
	var ms []string
	for _, op := range ops {
		ms = append(ms, op.Method)
	}
	return strings.Join(ms, " or ")
}
