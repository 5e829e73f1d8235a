package conneg

import (
	"net/http"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// Resource is a crawled GET the negotiation probes were planned for: a
// sample, which answered 2xx with a media type, or a resource that answered
// the crawl 406 or 415. The crawl's Accept ends in */*, so a 406 or 415 to it
// turned away a client that accepts anything; such a resource is probed
// with the types the crawl saw served beside it, to find what it does serve.
type Resource struct {
	Crawl *exchange.Exchange
	// Own is the crawl's media type; "" for a resource that refused it.
	Own string
}

// URL is the resource's URL, the BasedOn of its probes.
func (r Resource) URL() string { return r.Crawl.Request.URL }

// Refused reports a resource that answered the crawl 406 or 415.
func (r Resource) Refused() bool { return r.Own == "" }

// View is the negotiation probes of one scan, as the checks judge them or
// as the follow-up round plans from them.
type View struct {
	Index     *exchange.Index
	Resources []Resource
	// guesses are the per-type probes of refused resources and the
	// representation probes of samples (those OPTIONS listed included), by
	// resource.
	guesses map[string][]*exchange.Exchange
	// guessed is the purpose each of guesses was sent for, which is not
	// its own when another family's identical probe carried it.
	guessed map[*exchange.Exchange]string
	// failedCrawls are the crawl answers of 5xx that were repeated.
	failedCrawls []*exchange.Exchange
}

var viewKey = checks.NewKey[*View]()

// ViewOf is the view of a recording, computed once per Input.
func ViewOf(in *checks.Input) *View {
	return checks.Memo(in, viewKey, func() *View {
		return newView(in.Index, in.Samples, in.Recording.Exchanges)
	})
}

var followUpViewKey = checks.NewKey[*View]()

// FollowUpView is the view of the first round, computed once per PlanInput.
func FollowUpView(in *checks.PlanInput) *View {
	return checks.Memo(in, followUpViewKey, func() *View {
		all := append(append([]*exchange.Exchange(nil), in.Crawled...), in.Probes...)
		return newView(exchange.NewIndex(&exchange.Recording{Exchanges: all}), in.Samples, all)
	})
}

func newView(ix *exchange.Index, samples, all []*exchange.Exchange) *View {
	v := &View{Index: ix, guesses: map[string][]*exchange.Exchange{}, guessed: map[*exchange.Exchange]string{}}
	for _, s := range samples {
		if s.Response != nil && s.Request.Method == http.MethodGet && s.Response.MediaType() != "" {
			v.Resources = append(v.Resources, Resource{Crawl: s, Own: s.Response.MediaType()})
		}
	}
	for _, x := range all {
		switch {
		case x.Purpose == exchange.PurposeCrawl && refused(x) && ix.Get(PurposeWildcard, x.Request.URL) != nil:
			v.Resources = append(v.Resources, Resource{Crawl: x})
		case x.Purpose == exchange.PurposeCrawl && isServerError(x) && ix.Get(RepeatPurpose(x.Purpose, 2), x.Request.URL) != nil:
			v.failedCrawls = append(v.failedCrawls, x)
		}
		// A probe another family planned identically was sent once and
		// carries this one's purpose among those it is shared with.
		for _, u := range x.Uses() {
			if (strings.HasPrefix(u.Purpose, purposeTypePrefix) || strings.HasPrefix(u.Purpose, purposeRenderedPrefix)) && !IsRepeat(u.Purpose) {
				v.guesses[u.BasedOn] = append(v.guesses[u.BasedOn], x)
				v.guessed[x] = u.Purpose
			}
		}
	}
	return v
}

// GuessedType is the type a probe of Guesses asked for alone.
func (v *View) GuessedType(x *exchange.Exchange) string {
	if mt, ok := strings.CutPrefix(v.guessed[x], purposeRenderedPrefix); ok {
		return mt
	}
	return strings.TrimPrefix(v.guessed[x], purposeTypePrefix)
}

// rendered reports a probe of Guesses that asked for a type the resource's
// OPTIONS answer listed (PlanRendered).
func (v *View) rendered(x *exchange.Exchange) bool {
	return strings.HasPrefix(v.guessed[x], purposeRenderedPrefix)
}

// Probe returns the probe sent for purpose on r, or nil.
func (v *View) Probe(purpose string, r Resource) *exchange.Exchange {
	return v.Index.Get(purpose, r.URL())
}

// Guesses are the probes that asked r for one type alone: the types served
// beneath a refused resource, or the representations a sample was asked for.
func (v *View) Guesses(r Resource) []*exchange.Exchange { return v.guesses[r.URL()] }

// Proof is an answer that shows the resource has a representation, which
// the comparisons need: the GET with its own type for a sample, the first
// 2xx of the probes without Accept or with one type for a refused resource.
func (v *View) Proof(r Resource) *exchange.Exchange {
	if !r.Refused() {
		if x := v.Probe(PurposeOwn, r); Is2xx(x) {
			return x
		}
		return nil
	}
	if x := v.Probe(PurposeNone, r); Is2xx(x) {
		return x
	}
	for _, x := range v.Guesses(r) {
		if Is2xx(x) {
			return x
		}
	}
	return nil
}

// probesOf are the crawl and the first sends of r's GET and HEAD probes.
func (v *View) probesOf(r Resource) []*exchange.Exchange {
	out := []*exchange.Exchange{r.Crawl}
	for _, p := range []string{PurposeNone, PurposeOwn, PurposeWildcard, PurposeUnsupported, PurposeMalformed, PurposeHead,
		PurposeAlt, PurposeQZero, PurposeQOrder, PurposeSpecificity, PurposePrefer,
		PurposeTie, PurposeTieReversed, PurposeMixedWildcards, PurposeMalformedRange} {
		if x := v.Probe(p, r); x != nil && x.Response != nil {
			out = append(out, x)
		}
	}
	return append(out, v.Guesses(r)...)
}

// refused reports a GET the crawl sent that was answered 406 or 415.
func refused(x *exchange.Exchange) bool {
	return x.Request.Method == http.MethodGet && x.Response != nil &&
		(x.Response.Status == http.StatusNotAcceptable || x.Response.Status == http.StatusUnsupportedMediaType)
}
