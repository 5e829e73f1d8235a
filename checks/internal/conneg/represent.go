package conneg

import (
	"encoding/json"
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
	for _, s := range representedSamples(in.Samples) {
		for _, mt := range representationTypes(in, s, site) {
			out = append(out, askFor(s.Request.URL, TypePurpose(mt), mt))
		}
	}
	return out
}

// representedSamples are the samples whose representations are asked for:
// the first of each path shape that answered a GET with a media type.
func representedSamples(samples []*exchange.Exchange) []*exchange.Exchange {
	var out []*exchange.Exchange
	seen := map[string]bool{}
	for _, s := range samples {
		if s.Response == nil || s.Request.Method != http.MethodGet || s.Response.MediaType() == "" {
			continue
		}
		shape := exchange.PathShape(exchange.PathOf(s.Request.URL))
		if !seen[shape] {
			seen[shape] = true
			out = append(out, s)
		}
	}
	return out
}

// askFor is a GET of u that asks for mt alone.
func askFor(u, purpose, mt string) exchange.PlannedRequest {
	return exchange.PlannedRequest{Purpose: purpose, Method: http.MethodGet, URL: u, Header: http.Header{"Accept": {mt}}, BasedOn: u}
}

// purposeRenderedPrefix names the probes that ask a resource for a type its
// answer to OPTIONS listed among those it renders (renderedTypes).
const purposeRenderedPrefix = "negotiation/renders/"

// RenderedPurpose is the purpose of the probe that asks a resource for mt,
// a type its OPTIONS answer listed.
func RenderedPurpose(mt string) string { return purposeRenderedPrefix + mt }

// Bounds on what an OPTIONS body gives: the body read, the list entries
// read, and the types asked for beyond those already asked.
const (
	maxOptionsBody   = 64 << 10
	maxListedTypes   = 32
	maxRenderedTypes = 4
)

// renderedKeys are the members of an OPTIONS body that list the media types
// a resource produces: Django REST framework's renders (beside parses, what
// it accepts), and the produces of other frameworks' metadata.
var renderedKeys = []string{"renders", "produces"}

// PlanRendered asks, in the follow-up round, each resource whose
// representations were asked for (representedSamples) for the types its
// answer to OPTIONS lists as those it renders and the first round did not
// ask for: the OPTIONS probe is sent in the first round, so what its body
// says is known only now. The battery that ranks two types is planned from
// the first round's types alone (View.Alternate), and there is no third
// round: a type learned here counts as one the resource serves (vary-accept
// judges its answer) but is not ranked against its own.
func PlanRendered(v *View, samples []*exchange.Exchange) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, s := range representedSamples(samples) {
		r := Resource{Crawl: s, Own: s.Response.MediaType()}
		asked := map[string]bool{r.Own: true, Alternate(r.Own): true}
		for _, x := range v.Guesses(r) {
			asked[v.GuessedType(x)] = true
		}
		n := 0
		for _, mt := range renderedTypes(v.Probe(PurposeOptions, r)) {
			if n == maxRenderedTypes {
				break
			}
			if !asked[mt] {
				n++
				out = append(out, askFor(r.URL(), RenderedPurpose(mt), mt))
			}
		}
	}
	return out
}

// renderedTypes are the media types a successful answer to OPTIONS lists in
// its JSON body as those the resource renders (renderedKeys), valid and
// concrete, in order, without repeats; none for any other body. The body is
// the server's and may be anything: it is read only when small, and a
// member that is not a list of strings gives nothing.
func renderedTypes(x *exchange.Exchange) []string {
	if !Is2xx(x) || !x.Response.Whole() || len(x.Response.Body) > maxOptionsBody || !exchange.IsJSONMediaType(x.Response.MediaType()) {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(x.Response.Body, &doc) != nil {
		return nil
	}
	var out []string
	for _, key := range renderedKeys {
		var list []json.RawMessage
		if json.Unmarshal(doc[key], &list) != nil {
			continue
		}
		for _, raw := range list[:min(len(list), maxListedTypes)] {
			var listed string
			if json.Unmarshal(raw, &listed) != nil {
				continue
			}
			mt, _ := exchange.MediaTypeOf(listed)
			if concreteType(mt) && !slices.Contains(out, mt) {
				out = append(out, mt)
			}
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
	// The types served beneath the resource (/image/png beneath /image)
	// are the likeliest it chooses among, and come before the fixed set
	// that would otherwise fill the bound.
	for _, mt := range servedBeneath(in.Crawled, s.Request.URL) {
		add(mt)
	}
	for _, mt := range probedTypes {
		add(mt)
	}
	for _, mt := range site {
		add(mt)
	}
	return out
}

// concreteType reports a type/subtype a server can answer with: both
// tokens (RFC 9110 §8.3.1), no wildcard, and not an error format, which no
// resource is a representation in.
func concreteType(mt string) bool {
	major, minor, ok := strings.Cut(mt, "/")
	return ok && major != "" && minor != "" && !strings.Contains(mt, "*") &&
		strings.Trim(major, tokenChars) == "" && strings.Trim(minor, tokenChars) == "" && !strings.Contains(minor, "problem+")
}

// tokenChars are the characters of a token (RFC 9110 §5.6.2).
const tokenChars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

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
		if v.rendered(x) {
			// Asked in the follow-up round, with no battery planned
			// against it (PlanRendered).
			continue
		}
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
