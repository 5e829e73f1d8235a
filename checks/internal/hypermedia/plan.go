package hypermedia

import (
	"bytes"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// maxExtraPerShape bounds the resources fetched beyond the samples of one
// path shape because they are in a state the samples did not show.
const maxExtraPerShape = 8

// maxExaminedPerShape bounds how many crawled resources of one shape are
// decoded to find states the samples missed.
const maxExaminedPerShape = 64

var fetchKey = checks.NewKey[[]exchange.PlannedRequest]()

// PlanFetch asks for HAL-FORMS on every sampled resource that serves HAL or
// advertises HAL-FORMS, and on further crawled resources of the same shape
// whose state the samples did not cover, so that the templates of every
// observed state are seen (the state matrix depends on it). Every check of
// the hal-forms family plans it, and it is computed once per PlanInput.
func PlanFetch(in *checks.PlanInput) []exchange.PlannedRequest {
	return checks.Memo(in, fetchKey, func() []exchange.PlannedRequest { return planFetch(in) })
}

func planFetch(in *checks.PlanInput) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, x := range fetchCandidates(in.Samples, in.Crawled) {
		if !wantsFetch(x) {
			continue
		}
		h := http.Header{}
		h.Set("Accept", MediaHALForms)
		u := x.Request.URL
		out = append(out, exchange.PlannedRequest{Purpose: PurposeFetch, Method: http.MethodGet, URL: u, Header: h, BasedOn: u})
	}
	return out
}

// fetchCandidates is the samples plus, per shape, crawled resources in states
// the samples lack, in recording order.
func fetchCandidates(samples, crawled []*exchange.Exchange) []*exchange.Exchange {
	out := slices.Clone(samples)
	covered := map[string]bool{} // shape + "\x00" + state
	sampled := map[string]bool{}
	for _, s := range samples {
		sampled[s.Request.URL] = true
		if st := stateOfExchange(s); st != "" {
			covered[ShapeOf(s)+"\x00"+st] = true
		}
	}
	extra := map[string]int{}
	examined := map[string]int{}
	for _, x := range crawled {
		if sampled[x.Request.URL] || !Judgeable(x) {
			continue
		}
		shape := ShapeOf(x)
		// Decoding every crawled body to learn its state would make planning
		// grow with the crawl; a bounded look per shape finds the states a
		// reviewer needs without that cost.
		if examined[shape] >= maxExaminedPerShape {
			continue
		}
		examined[shape]++
		st := stateOfExchange(x)
		if st == "" || covered[shape+"\x00"+st] || extra[shape] >= maxExtraPerShape {
			continue
		}
		covered[shape+"\x00"+st] = true
		extra[shape]++
		out = append(out, x)
	}
	return out
}

// ShapeOf is the path shape of an exchange's URL, the unit of sampling.
func ShapeOf(x *exchange.Exchange) string { return exchange.PathShape(exchange.PathOf(x.Request.URL)) }

func stateOfExchange(x *exchange.Exchange) string {
	if !Judgeable(x) || !exchange.IsJSONMediaType(x.Response.MediaType()) {
		return ""
	}
	// Every crawled page is looked at, and only its state is kept.
	v := x.Response.ReadHAL()
	d := &Doc{X: x, Doc: v.Doc, Err: v.Err, HAL: v}
	if d.Err != nil {
		return ""
	}
	_, st := StateOf(d.Root())
	return st
}

// wantsFetch: a GET that answered 2xx with HAL, or that mentions the
// HAL-FORMS type in a Link header or its body. A resource already served as
// HAL-FORMS by the crawl needs no second request.
func wantsFetch(x *exchange.Exchange) bool {
	if x.Response == nil || x.Request.Method != http.MethodGet || x.Response.Status/100 != 2 {
		return false
	}
	mt := x.Response.MediaType()
	switch {
	case mt == MediaHALForms:
		return false
	case IsHAL(mt):
		return true
	}
	for _, l := range x.Response.Header.Values("Link") {
		if strings.Contains(l, MediaHALForms) {
			return true
		}
	}
	return bytes.Contains(x.Response.Body, []byte(MediaHALForms))
}
