// Package conneg plans the content-negotiation probes that the negotiation and
// vary families share, and reads their results. Both families plan the same
// requests; the probe de-duplicates them, so each is sent once.
package conneg

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// Probe purposes. Each is sent once per sampled resource.
const (
	PurposeNone        = "negotiation/no-accept"
	PurposeOwn         = "negotiation/own-type"
	PurposeWildcard    = "negotiation/wildcard"
	PurposeUnsupported = "negotiation/unsupported"
	PurposeQZero       = "negotiation/q-zero"
	PurposeAlt         = "negotiation/alternate"
	PurposeQOrder      = "negotiation/q-order"
	PurposeSpecificity = "negotiation/specificity"
	PurposeMalformed   = "negotiation/malformed-q"
	PurposeHead        = "negotiation/head"
	PurposeOptions     = "negotiation/options"
	PurposePrefer      = "vary/prefer-minimal"
	// The follow-up probes of resources shown to serve a second type
	// (PlanBattery): q-values, specificity, a tie in both orders, wildcards
	// of two levels at opposite weights, and a malformed weight.
	PurposeTie            = "negotiation/tie"
	PurposeTieReversed    = "negotiation/tie-reversed"
	PurposeMixedWildcards = "negotiation/mixed-wildcards"
	PurposeMalformedRange = "negotiation/malformed-range"
	// PurposeBrowser asks a resource that serves HTML beside another type
	// with a browser's Accept: what it serves there is its canonical
	// representation for people, which a tie must not take from them.
	PurposeBrowser = "negotiation/browser"
)

// BrowserAccept is the Accept browsers send for a page.
const BrowserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// UnsupportedType is a media type no API serves.
const UnsupportedType = "application/vnd.agentready.unsupported"

// alternates pairs a served type with the type a client is most likely to ask
// for instead; only these pairs are probed for preference order, because
// guessing further types would mostly measure 406s.
var alternates = map[string]string{
	"application/hal+json":           "application/json",
	"application/json":               "application/hal+json",
	"application/prs.hal-forms+json": "application/hal+json",
	"text/html":                      "text/markdown",
	"text/markdown":                  "text/html",
}

// Alternate returns the alternate type probed for mt, or "".
func Alternate(mt string) string { return alternates[mt] }

// Plan returns the probes for every sample that answered 2xx with a type,
// for the first refused resources (see Resource) and, for the first crawl
// answers of 5xx, the repeats that tell a failure from a failure at random.
func Plan(in *checks.PlanInput) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, s := range in.Samples {
		out = append(out, planFor(s)...)
	}
	out = append(out, planRepresentations(in)...)
	refusedN, failedN := 0, 0
	for _, x := range in.Crawled {
		switch {
		case refused(x) && refusedN < maxRefused:
			refusedN++
			out = append(out, planRefused(x, servedBeneath(in.Crawled, x.Request.URL))...)
		case x.Request.Method == http.MethodGet && isServerError(x) && failedN < maxFailed:
			failedN++
			out = append(out, PlanRepeat(x, 2, 1+Repeats)...)
		}
	}
	return out
}

// Bounds on the crawl answers planned from besides the samples.
const (
	maxRefused = 10
	maxFailed  = 10
	maxGuesses = 4
)

// purposeTypePrefix names the probes of a refused resource with one type.
const purposeTypePrefix = "negotiation/type/"

// TypePurpose is the purpose of the probe that asks a refused resource for mt.
func TypePurpose(mt string) string { return purposeTypePrefix + mt }

// planRefused asks a refused resource for any type, for no type, for a type
// it cannot have, and for each type served beneath it.
func planRefused(x *exchange.Exchange, guesses []string) []exchange.PlannedRequest {
	u := x.Request.URL
	req := func(purpose, accept string) exchange.PlannedRequest {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		return exchange.PlannedRequest{Purpose: purpose, Method: http.MethodGet, URL: u, Header: h, BasedOn: u}
	}
	out := []exchange.PlannedRequest{
		req(PurposeNone, ""), req(PurposeWildcard, "*/*"), req(PurposeUnsupported, UnsupportedType),
	}
	for _, mt := range guesses {
		out = append(out, req(TypePurpose(mt), mt))
	}
	return out
}

// servedBeneath are the media types crawled resources beneath rawURL's path
// answered 2xx with (/image/png beneath /image), the first maxGuesses in
// order: the likeliest types the refused resource chooses among.
func servedBeneath(crawled []*exchange.Exchange, rawURL string) []string {
	prefix := strings.TrimSuffix(exchange.PathOf(rawURL), "/") + "/"
	set := map[string]bool{}
	for _, x := range crawled {
		if Is2xx(x) && strings.HasPrefix(exchange.PathOf(x.Request.URL), prefix) {
			if mt := x.Response.MediaType(); mt != "" {
				set[mt] = true
			}
		}
	}
	types := slices.Sorted(maps.Keys(set))
	return types[:min(len(types), maxGuesses)]
}

func planFor(s *exchange.Exchange) []exchange.PlannedRequest {
	if s.Response == nil || s.Request.Method != http.MethodGet {
		return nil
	}
	own := s.Response.MediaType()
	if own == "" {
		return nil
	}
	u := s.Request.URL
	req := func(purpose, method, accept string, extra ...string) exchange.PlannedRequest {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return exchange.PlannedRequest{Purpose: purpose, Method: method, URL: u, Header: h, BasedOn: u}
	}
	out := []exchange.PlannedRequest{
		req(PurposeNone, http.MethodGet, ""),
		req(PurposeOwn, http.MethodGet, own),
		req(PurposeWildcard, http.MethodGet, "*/*"),
		req(PurposeUnsupported, http.MethodGet, UnsupportedType),
		req(PurposeMalformed, http.MethodGet, own+";q=nope"),
		req(PurposeHead, http.MethodHead, own),
		req(PurposeOptions, http.MethodOptions, ""),
		req(PurposePrefer, http.MethodGet, own, "Prefer", "return=minimal"),
	}
	if alt := Alternate(own); alt != "" {
		out = append(out, req(PurposeAlt, http.MethodGet, alt))
	}
	return out
}

// PlanBattery plans, in the follow-up round, the probes that rank a
// resource's two types the way a sloppy parser gets wrong, for the
// resources shown to serve a second representation (View.Alternate): on
// any other they could not be judged, and most APIs serve one.
func PlanBattery(v *View) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, r := range v.Resources {
		alt := v.Alternate(r)
		if alt == "" {
			continue
		}
		req := func(purpose, accept string) exchange.PlannedRequest {
			return exchange.PlannedRequest{Purpose: purpose, Method: http.MethodGet, URL: r.URL(), Header: http.Header{"Accept": {accept}}, BasedOn: r.URL()}
		}
		out = append(out,
			req(PurposeQZero, r.Own+";q=0, "+alt+";q=0.5"),
			req(PurposeQOrder, r.Own+";q=0.4, "+alt),
			req(PurposeTie, r.Own+", "+alt),
			req(PurposeTieReversed, alt+", "+r.Own),
			// The only valid range names own; a server that weighs the
			// malformed range as q=1 picks alt.
			req(PurposeMalformedRange, alt+";q=nope, "+r.Own+";q=0.5"),
		)
		if r.Own == "text/html" || alt == "text/html" {
			out = append(out, req(PurposeBrowser, BrowserAccept))
		}
		if majorType(r.Own) == majorType(alt) {
			// Both need a type/* range that matches both types. The
			// specific range carries the lower weight; a server that takes
			// the highest matching weight instead of the most specific
			// range's picks own, which is what this probe exists to catch.
			out = append(out, req(PurposeSpecificity, r.Own+";q=0.2, "+majorType(alt)+"/*;q=0.9"))
			// type/* sets own's weight (0.1) and alt's exact range its own
			// (0.5): a server that lets */* at 0.9 count for own picks it.
			out = append(out, req(PurposeMixedWildcards, "*/*;q=0.9, "+majorType(alt)+"/*;q=0.1, "+alt+";q=0.5"))
		}
	}
	return out
}

func majorType(mt string) string {
	if i := strings.IndexByte(mt, '/'); i > 0 {
		return mt[:i]
	}
	return mt
}

// AltServed reports whether the alternate probe proved that the resource has
// a second representation of the alternate type.
func AltServed(alt *exchange.Exchange, altType string) bool {
	return Is2xx(alt) && alt.Response.MediaType() == altType
}

// Is2xx reports a successful response.
func Is2xx(x *exchange.Exchange) bool {
	return x != nil && x.Response != nil && x.Response.Status >= 200 && x.Response.Status < 300
}

// VaryHas reports whether the response's Vary lists name or "*".
func VaryHas(h http.Header, name string) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "*" || strings.EqualFold(f, name) {
				return true
			}
		}
	}
	return false
}

// Cacheable reports whether a response may be stored by some cache, which is
// when Vary matters (RFC 9111 §3): a successful GET without no-store.
func Cacheable(x *exchange.Exchange) bool {
	if !Is2xx(x) || x.Request.Method != http.MethodGet {
		return false
	}
	for _, v := range x.Response.Header.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-store") {
				return false
			}
		}
	}
	return true
}
