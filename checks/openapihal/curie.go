package openapihal

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// UndeclaredCurie: a namespaced relation from x-hal-rel used in a
// representation that declares no curies entry for its prefix.
type UndeclaredCurie struct{ probes }

func (UndeclaredCurie) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-undeclared-curie",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Namespaced x-hal-rel relations have their prefix declared in curies",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{halCuries},
		Help: `A namespaced relation such as ` + "`order:pay`" + ` is a HAL CURIE: the ` + "`curies`" + ` link
of the representation (or of an enclosing one) must declare the ` + "`order`" + ` prefix,
with a templated href containing ` + "`{rel}`" + `, so that the relation expands to a
URI whose page documents it. Without it the relation is an opaque string,
and clients that expand CURIEs before matching cannot find it in
` + "`x-hal-rel`" + `.

This check covers the relations that the OpenAPI document lists in
` + "`x-hal-rel`" + `, in every representation the scan saw, including the ones
fetched with ` + "`Prefer: namespaced-rels`" + `.

**How to fix:** add ` + "`\"curies\": [{\"name\": \"order\", \"href\": \"https://example.com/rels/order/{rel}\", \"templated\": true}]`" + `
to ` + "`_links`" + ` wherever a namespaced relation appears.`,
	}
}

func (c UndeclaredCurie) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needHALRel(in); err != nil {
		return nil, err
	}
	type group struct {
		o     offer
		rels  []string
		count int
	}
	var order []string
	groups := map[string]*group{}
	for _, o := range analyze(in).offers {
		prefix, _ := splitRel(o.rel)
		if o.template || prefix == "" || o.curies[strings.ToLower(prefix)] {
			continue
		}
		if len(relsOfSpec(in).listing(o.rel)) == 0 {
			continue // not an x-hal-rel relation; the hal family judges CURIEs in general
		}
		k := strings.ToLower(prefix) + "\x00" + exchange.PathShape(exchange.PathOf(o.x.Request.URL))
		g := groups[k]
		if g == nil {
			g = &group{o: o}
			groups[k] = g
			order = append(order, k)
		}
		g.count++
		if !containsFold(g.rels, o.rel) {
			g.rels = append(g.rels, o.rel)
		}
	}
	var out []finding.Finding
	for _, k := range order {
		g := groups[k]
		prefix, _ := splitRel(g.o.rel)
		msg := fmt.Sprintf("%s uses %s with no curies entry named %q in scope (%d links)",
			exchange.PathOf(g.o.x.Request.URL), strings.Join(g.rels, ", "), prefix, g.count)
		ev := offerEvidence(g.o, "curies entry named "+prefix, "(absent)")
		f := checks.New(c.Meta(), prefix, msg, ev)
		f.Location = locationOf(relsOfSpec(in).listing(g.o.rel)[0], true)
		out = append(out, f)
	}
	return out, ctx.Err()
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
