package negotiation

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// comparison is a verdict of the family that rests on two answers of one
// resource: before it is reported, both requests are sent again and every
// pair must give the same verdict (conneg.Consistent).
type comparison struct {
	pair    func(v *conneg.View, r conneg.Resource) (a, b *exchange.Exchange)
	verdict conneg.Verdict
}

// judge returns the pair when its verdict held on every send, else nils.
func (c comparison) judge(v *conneg.View, r conneg.Resource) (a, b *exchange.Exchange) {
	a, b = c.pair(v, r)
	if a == nil || b == nil || a.Response == nil || b.Response == nil || !conneg.Consistent(v.Index, a, b, c.verdict) {
		return nil, nil
	}
	return a, b
}

// unrepeated reports a pair whose first answers give the verdict but were
// not all sent again: the budget ended before the follow-up round.
func (c comparison) unrepeated(v *conneg.View, r conneg.Resource) bool {
	a, b := c.pair(v, r)
	if a == nil || b == nil || a.Response == nil || b.Response == nil || c.verdict(a, b) == "" {
		return false
	}
	return len(conneg.Sends(v.Index, a)) < 1+conneg.Repeats || len(conneg.Sends(v.Index, b)) < 1+conneg.Repeats
}

// unconfirmed turns a comparison check that reported nothing into a skip
// when some resource's first answers gave its verdict and were never sent
// again: that check judged nothing there, and has not passed.
func unconfirmed(in *checks.Input, out []finding.Finding, err error, cs ...comparison) error {
	if err != nil || len(out) > 0 {
		return err
	}
	v := conneg.ViewOf(in)
	n := 0
	for _, r := range v.Resources {
		if !conneg.IsUnstable(in, r.URL()) && slices.ContainsFunc(cs, func(c comparison) bool { return c.unrepeated(v, r) }) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	what := "resource"
	if n > 1 {
		what = "resources"
	}
	return checks.Skip(fmt.Sprintf("not confirmed: the first answers of %d %s showed what this check reports, and the budget ended before they were sent again to confirm it (raise --budget)", n, what))
}

// comparisons are every comparison of the family, for the follow-up round.
var comparisons = []comparison{
	headStatusCmp, headTypeCmp, wildcardCmp, crawlAcceptCmp, unsupportedCmp, malformedCmp,
}

// headPair is the HEAD probe and the GET it must match: the GET with the
// same Accept, so that only the method differs.
func headPair(v *conneg.View, r conneg.Resource) (head, get *exchange.Exchange) {
	if r.Refused() {
		return nil, nil
	}
	return v.Probe(conneg.PurposeHead, r), v.Probe(conneg.PurposeOwn, r)
}

var headStatusCmp = comparison{headPair, func(head, get *exchange.Exchange) string {
	if head.Response == nil || get.Response == nil || head.Response.Status == get.Response.Status {
		return ""
	}
	return fmt.Sprintf("%d %d", head.Response.Status, get.Response.Status)
}}

var headTypeCmp = comparison{headPair, func(head, get *exchange.Exchange) string {
	if head.Response == nil || get.Response == nil || head.Response.Status != get.Response.Status {
		return ""
	}
	if ht, gt := head.Response.MediaType(), get.Response.MediaType(); ht != gt {
		return ht + " " + gt
	}
	return ""
}}

// againstProof pairs a probe with the answer that proved the resource has a
// representation.
func againstProof(purpose string) func(v *conneg.View, r conneg.Resource) (a, b *exchange.Exchange) {
	return func(v *conneg.View, r conneg.Resource) (a, b *exchange.Exchange) {
		return v.Probe(purpose, r), v.Proof(r)
	}
}

// refusedAny is the verdict on an Accept that admits every type: a 406 or
// 415 to it, where another request got a representation.
func refusedAny(x, proof *exchange.Exchange) string {
	if !conneg.Is2xx(proof) || x.Response == nil || conneg.Is2xx(x) {
		return ""
	}
	return status(x)
}

var wildcardCmp = comparison{againstProof(conneg.PurposeWildcard), refusedAny}

// crawlAcceptCmp judges the crawl's own answer: its Accept ends in
// */*;q=0.5, so a 406 or 415 to it, or the 4xx a crawled page gave it before
// Accept */* or none got the page (exchange.PurposeCrawlRefused), refused a
// client that accepts anything.
var crawlAcceptCmp = comparison{
	func(v *conneg.View, r conneg.Resource) (a, b *exchange.Exchange) {
		if !r.Refused() {
			return v.Probe(exchange.PurposeCrawlRefused, r), r.Crawl
		}
		return r.Crawl, v.Proof(r)
	},
	refusedAny,
}

var unsupportedCmp = comparison{againstProof(conneg.PurposeUnsupported), func(x, proof *exchange.Exchange) string {
	if !conneg.Is2xx(proof) || x.Response == nil || x.Response.Status == http.StatusNotAcceptable || conneg.Is2xx(x) {
		return ""
	}
	return status(x)
}}

var malformedCmp = comparison{
	func(v *conneg.View, r conneg.Resource) (a, b *exchange.Exchange) {
		if r.Refused() {
			return nil, nil
		}
		return v.Probe(conneg.PurposeMalformed, r), v.Probe(conneg.PurposeOwn, r)
	},
	func(x, own *exchange.Exchange) string {
		if !conneg.Is2xx(own) || x.Response == nil || x.Response.Status < 500 {
			return ""
		}
		return status(x)
	},
}

var followUpKey = checks.NewKey[[]exchange.PlannedRequest]()

// planFollowUp is the family's follow-up round: the ranking probes of the
// resources with two representations (conneg.PlanBattery), the types their
// answers to OPTIONS list (conneg.PlanRendered), the repeats of every pair
// whose first answers a comparison would report, and those that tell a
// resource failing at random (conneg.PlanSuspects).
func planFollowUp(in *checks.PlanInput) []exchange.PlannedRequest {
	return checks.Memo(in, followUpKey, func() []exchange.PlannedRequest {
		v := conneg.FollowUpView(in)
		out := slices.Concat(conneg.PlanBattery(v), conneg.PlanRendered(v, in.Samples), conneg.PlanSuspects(v))
		for _, r := range v.Resources {
			for _, c := range comparisons {
				a, b := c.pair(v, r)
				if a == nil || b == nil || a.Response == nil || b.Response == nil || c.verdict(a, b) == "" {
					continue
				}
				out = append(out, conneg.PlanRepeat(a, 2, 1+conneg.Repeats)...)
				out = append(out, conneg.PlanRepeat(b, 2, 1+conneg.Repeats)...)
			}
		}
		return out
	})
}
