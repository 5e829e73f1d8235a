package conneg

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// probedTypes are the types every probed resource is asked for besides
// those it declares or the site serves: the formats agents and browsers ask
// for. A framework's browsable HTML or its XML renderer answers one of these
// beside the JSON the crawl got.
var probedTypes = []string{
	"text/html", "application/json", "application/hal+json", "application/vnd.api+json",
	"application/xml", "text/markdown", "text/plain",
}

// Bounds on the representation probes: one resource per path shape is asked
// for at most maxRepresentations types, so a site of a hundred shapes costs
// at most eight hundred requests, like the crawl's own per-shape bounds.
const (
	maxRepresentations = 8
	maxSiteTypes       = 16
)

// planRepresentations asks the first sample of each path shape for each type
// it may also serve (representationTypes), one GET per type with that type
// alone, so that a second representation is learned rather than guessed.
func planRepresentations(in *checks.PlanInput) []exchange.PlannedRequest {
	site := siteTypes(in.Crawled)
	var out []exchange.PlannedRequest
	seen := map[string]bool{}
	for _, s := range in.Samples {
		if s.Response == nil || s.Request.Method != http.MethodGet || s.Response.MediaType() == "" {
			continue
		}
		shape := exchange.PathShape(exchange.PathOf(s.Request.URL))
		if seen[shape] {
			continue
		}
		seen[shape] = true
		u := s.Request.URL
		for _, mt := range representationTypes(in, s, site) {
			out = append(out, exchange.PlannedRequest{
				Purpose: TypePurpose(mt), Method: http.MethodGet, URL: u,
				Header: http.Header{"Accept": {mt}}, BasedOn: u,
			})
		}
	}
	return out
}

// representationTypes are the types s is asked for, at most
// maxRepresentations: those its OpenAPI operation declares for a 2xx, those
// its Link header names as alternates, the probed set, then the types the
// site served elsewhere (vendor types included). Its own type and the
// alternate the first round asks for anyway are left out.
func representationTypes(in *checks.PlanInput, s *exchange.Exchange, site []string) []string {
	own := s.Response.MediaType()
	skip := map[string]bool{own: true, Alternate(own): true, "": true}
	var out []string
	add := func(raw string) {
		mt, _ := exchange.MediaTypeOf(raw)
		mt = strings.ToLower(mt)
		if len(out) >= maxRepresentations || skip[mt] || !concreteType(mt) {
			return
		}
		skip[mt] = true
		out = append(out, mt)
	}
	if in.Spec != nil {
		if op := in.Spec.Index().Match(http.MethodGet, s.Request.URL); op != nil {
			for _, code := range slices.Sorted(maps.Keys(op.Responses)) {
				if strings.HasPrefix(code, "2") {
					for _, mt := range slices.Sorted(maps.Keys(op.Responses[code].Content)) {
						add(mt)
					}
				}
			}
		}
	}
	for _, l := range s.Response.Links() {
		if l.HasRel("alternate") && !l.Anchored() {
			add(l.Params["type"])
		}
	}
	for _, mt := range probedTypes {
		add(mt)
	}
	for _, mt := range site {
		add(mt)
	}
	return out
}

// concreteType reports a type/subtype a server can answer with: no
// wildcard, and not an error format, which no resource is a representation
// in.
func concreteType(mt string) bool {
	major, minor, ok := strings.Cut(mt, "/")
	return ok && major != "" && minor != "" && !strings.Contains(mt, "*") &&
		!strings.ContainsAny(mt, " \t,;\"") && !strings.Contains(minor, "problem+")
}

// siteTypes are the media types of the crawl's 2xx GET answers, the first
// maxSiteTypes in order.
func siteTypes(crawled []*exchange.Exchange) []string {
	set := map[string]bool{}
	for _, x := range crawled {
		if Is2xx(x) && x.Request.Method == http.MethodGet {
			if mt := x.Response.MediaType(); mt != "" {
				set[mt] = true
			}
		}
	}
	types := slices.Sorted(maps.Keys(set))
	return types[:min(len(types), maxSiteTypes)]
}

// Alternate is the second representation r was shown to serve, which the
// preference checks weigh against its own type: the paired alternate when
// the alternate probe got it, else the first type, in order, that a probe
// asking for it alone was served; "" when none was, or r refused the crawl.
func (v *View) Alternate(r Resource) string {
	if r.Refused() {
		return ""
	}
	if alt := Alternate(r.Own); alt != "" && AltServed(v.Probe(PurposeAlt, r), alt) {
		return alt
	}
	var served []string
	for _, x := range v.Guesses(r) {
		mt := v.GuessedType(x)
		if mt != r.Own && AltServed(x, mt) {
			served = append(served, mt)
		}
	}
	if len(served) == 0 {
		return ""
	}
	return slices.Min(served)
}
