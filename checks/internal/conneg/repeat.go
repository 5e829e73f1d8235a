package conneg

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
)

// Repeats is how many times a suspect answer is sent again, so that a
// verdict comparing two answers rests on three pairs of identical requests:
// a server that fails at random must not be graded on one unlucky draw.
const Repeats = 2

// Confirmations is how many more times the follow-up round sends a crawl
// request whose first three sends all failed with the same 5xx. Reporting
// that failure as the server's, rather than the resource as unstable, is a
// verdict on one request alone, so it takes more draws: a resource failing
// half the time at random gets ten 5xx in a row once in 512 scans.
const Confirmations = 7

// maxSends bounds the sends of one request that are looked up: the first,
// the repeats of the first round and the confirmations of the follow-up.
const maxSends = 1 + Repeats + Confirmations

// repeatMark separates a purpose from the number of the send it names.
const repeatMark = "#"

// RepeatPurpose is the purpose of the n-th send (2 and up) of a request first
// sent for purpose.
func RepeatPurpose(purpose string, n int) string {
	return purpose + repeatMark + strconv.Itoa(n)
}

// IsRepeat reports a purpose that names a repeated send.
func IsRepeat(purpose string) bool { return strings.Contains(purpose, repeatMark) }

// rootPurpose is the purpose of the first send.
func rootPurpose(purpose string) string {
	root, _, _ := strings.Cut(purpose, repeatMark)
	return root
}

// basedOn is the resource an exchange was sent for; the crawl is its own.
func basedOn(x *exchange.Exchange) string {
	if x.Purpose == exchange.PurposeCrawl {
		return x.Request.URL
	}
	return x.BasedOn
}

// repeatedHeaders are the request headers a planned request of the crawl,
// this package or the preference probes sets; every other header comes from
// the scan's configuration, as on the first send. Recorded values of other
// headers may be redacted, so they are never copied.
var repeatedHeaders = []string{"Accept", "Prefer"}

// PlanRepeat sends x again as its sends from..to (2 and up): the same method,
// URL and planned headers, each a request of its own.
func PlanRepeat(x *exchange.Exchange, from, to int) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for n := from; n <= to; n++ {
		h := http.Header{}
		for _, name := range repeatedHeaders {
			if v := x.Request.Header.Values(name); len(v) > 0 {
				h[name] = append([]string(nil), v...)
			}
		}
		out = append(out, exchange.PlannedRequest{
			Purpose: RepeatPurpose(rootPurpose(x.Purpose), n), Method: x.Request.Method,
			URL: x.Request.URL, Header: h, BasedOn: basedOn(x), Repeat: n,
		})
	}
	return out
}

// Sends returns x followed by the repeats of it that were answered.
func Sends(ix *exchange.Index, x *exchange.Exchange) []*exchange.Exchange {
	out := []*exchange.Exchange{x}
	for n := 2; n <= maxSends; n++ {
		r := ix.Get(RepeatPurpose(rootPurpose(x.Purpose), n), basedOn(x))
		if r == nil || r.Response == nil {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Verdict is what a check concludes from one pair of answers: the difference
// it reports, or "" when it has nothing to report.
type Verdict func(a, b *exchange.Exchange) string

// Consistent reports whether the pair (a, b) and each of its repeats give the
// same, non-empty verdict. A pair that was not repeated is not judged: one
// draw cannot tell a defect from a failure at random.
func Consistent(ix *exchange.Index, a, b *exchange.Exchange, verdict Verdict) bool {
	first := verdict(a, b)
	if first == "" {
		return false
	}
	as, bs := Sends(ix, a), Sends(ix, b)
	if len(as) < 1+Repeats || len(bs) < 1+Repeats {
		return false
	}
	for i := 1; i <= Repeats; i++ {
		if verdict(as[i], bs[i]) != first {
			return false
		}
	}
	return true
}

// Flip is two identical requests to one resource that got different
// statuses.
type Flip struct{ A, B *exchange.Exchange }

var unstableKey = checks.NewKey[map[string]Flip]()

// Unstable maps each resource whose status changed between identical
// requests to the first such pair of GETs in recording order, or of HEADs
// when no GET changed. Such a resource is
// judged by negotiation-unstable-resource alone.
func Unstable(in *checks.Input) map[string]Flip {
	return checks.Memo(in, unstableKey, func() map[string]Flip {
		out := map[string]Flip{}
		for _, x := range in.Recording.Exchanges {
			if !IsRepeat(x.Purpose) || x.Response == nil {
				continue
			}
			first := in.Index.Get(rootPurpose(x.Purpose), basedOn(x))
			if first == nil || first.Response == nil || first.Response.Status == x.Response.Status {
				continue
			}
			// A GET is preferred, so that the report names the same
			// request whichever of the resource's requests flipped first.
			if prev, seen := out[basedOn(x)]; !seen || (prev.A.Request.Method != http.MethodGet && x.Request.Method == http.MethodGet) {
				out[basedOn(x)] = Flip{first, x}
			}
		}
		return out
	})
}

// IsUnstable reports a resource whose status changed between identical
// requests.
func IsUnstable(in *checks.Input, resource string) bool {
	_, ok := Unstable(in)[resource]
	return ok
}

// PlanSuspects plans, in the follow-up round, the repeats that tell a
// resource failing at random from one failing for a reason: for every
// resource some of whose first-round answers were 5xx while others were
// 2xx, the 2xx request the checks compare with (the crawl's, when that one
// failed) and every 5xx one; for every crawl answer of 5xx that its
// first-round repeats confirmed, Confirmations more sends.
func PlanSuspects(v *View) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, r := range v.Resources {
		probes := v.probesOf(r)
		failed := slicesFilter(probes, isServerError)
		if len(failed) == 0 || !anyOf(probes, Is2xx) {
			continue
		}
		switch p := v.Proof(r); {
		case p != nil:
			out = append(out, PlanRepeat(p, 2, 1+Repeats)...)
		case Is2xx(r.Crawl):
			// The own-type GET failed: the crawl's answer is the 2xx
			// left to tell a draw from a defect.
			out = append(out, PlanRepeat(r.Crawl, 2, 1+Repeats)...)
		}
		for _, x := range failed {
			out = append(out, PlanRepeat(x, 2, 1+Repeats)...)
		}
	}
	for _, c := range v.failedCrawls {
		sends := Sends(v.Index, c)
		if len(sends) == 1+Repeats && allSameStatus(sends) {
			out = append(out, PlanRepeat(c, 2+Repeats, maxSends)...)
		}
	}
	return out
}

func isServerError(x *exchange.Exchange) bool {
	return x.Response != nil && x.Response.Status >= 500
}

func allSameStatus(xs []*exchange.Exchange) bool {
	for _, x := range xs[1:] {
		if x.Response.Status != xs[0].Response.Status {
			return false
		}
	}
	return true
}

func slicesFilter(xs []*exchange.Exchange, keep func(*exchange.Exchange) bool) []*exchange.Exchange {
	var out []*exchange.Exchange
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func anyOf(xs []*exchange.Exchange, pred func(*exchange.Exchange) bool) bool {
	for _, x := range xs {
		if pred(x) {
			return true
		}
	}
	return false
}
