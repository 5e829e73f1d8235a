package negotiation

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// HeadStatus checks that HEAD answers with GET's status.
type HeadStatus struct{ probes }

func (HeadStatus) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-head-status",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "HEAD answers with the same status as GET",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.2", "MUST"), rfc9110("9.1", "MUST")},
		Help: `HEAD is GET without content (RFC 9110 §9.3.2), and every general-purpose server
must support both (§9.1). Agents and caches use HEAD to check that a resource
exists or has changed without downloading it; a different status makes that
check lie.

**How to fix:** route HEAD to the GET handler and drop the body; most
frameworks do this automatically unless a route is registered for GET only.`,
	}
}

func (c HeadStatus) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := eachResource(ctx, in, func(v *conneg.View, r conneg.Resource) {
		head, get := headStatusCmp.judge(v, r)
		if head == nil {
			return
		}
		msg := fmt.Sprintf("HEAD answered %d where GET with the same Accept answered %d", head.Response.Status, get.Response.Status)
		ev := evidence(head, strconv.Itoa(head.Response.Status), strconv.Itoa(get.Response.Status))
		ev.Header = ""
		out = append(out, checks.New(m, "", msg, ev, checks.Evidence(get, []string{"Accept"}, []string{"Content-Type", "Content-Length"})))
	})
	missing, merr := missingHeadStatus(ctx, in, m)
	if merr != nil {
		return nil, merr
	}
	if _, skipped := checks.IsSkip(err); skipped && len(missing) > 0 {
		err = nil
	}
	out = append(out, missing...)
	return out, unconfirmed(in, out, err, headStatusCmp)
}

// missingHeadStatus judges the HEAD problem-json sent to each URL it asked
// for a missing resource against the GET of that URL with the same Accept:
// routers that register a route for GET alone answer HEAD to an unknown
// item with 405 while GET says 404. A 5xx, 408 or 429 on either side says
// nothing of the method and is left out.
func missingHeadStatus(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	gets := map[[2]string]*exchange.Exchange{}
	var heads []*exchange.Exchange
	for _, x := range in.Recording.Exchanges {
		if x.Response == nil || conneg.IsRepeat(x.Purpose) {
			continue
		}
		key := [2]string{x.Request.URL, x.Request.Header.Get("Accept")}
		switch {
		case x.Purpose == purpose.NotFoundHead && x.Request.Method == http.MethodHead:
			heads = append(heads, x)
		case x.Request.Method == http.MethodGet && gets[key] == nil:
			gets[key] = x
		}
	}
	var out []finding.Finding
	for _, head := range heads {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		get := gets[[2]string{head.Request.URL, head.Request.Header.Get("Accept")}]
		if get == nil || get.Response.Status == head.Response.Status || transient(get) || transient(head) {
			continue
		}
		msg := fmt.Sprintf("HEAD answered %d where GET with the same Accept answered %d, for a resource that does not exist", head.Response.Status, get.Response.Status)
		ev := evidence(head, strconv.Itoa(head.Response.Status), strconv.Itoa(get.Response.Status))
		ev.Header = ""
		out = append(out, checks.New(m, "", msg, ev, checks.Evidence(get, []string{"Accept"}, []string{"Content-Type", "Content-Length"})))
	}
	return out, nil
}

// transient says whether an answer's status is about the server's state
// rather than the request: a 5xx, a timeout or a throttle.
func transient(x *exchange.Exchange) bool {
	s := x.Response.Status
	return s >= 500 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests
}

// HeadContentLength checks §8.6: a Content-Length on HEAD equals GET's.
type HeadContentLength struct{ probes }

func (HeadContentLength) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-head-content-length",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "Content-Length on HEAD equals the length GET sends",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9110("8.6", "MUST NOT")},
		Help: `A server may send Content-Length in a HEAD response, but must not unless it
equals the length GET would have sent (RFC 9110 §8.6). Clients use it to decide
whether to download, and to size buffers.

**How to fix:** compute Content-Length from the same representation GET
sends, or omit it on HEAD.`,
	}
}

func (c HeadContentLength) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := eachResource(ctx, in, func(v *conneg.View, r conneg.Resource) {
		head, get := headPair(v, r)
		if head == nil || get == nil || head.Response == nil || get.Response == nil || head.Response.Status != get.Response.Status {
			return
		}
		headLen, ok := contentLength(head)
		if !ok {
			return
		}
		getLen, stable := stableGetLength(r.Crawl, get)
		if !stable || headLen == getLen {
			return
		}
		msg := fmt.Sprintf("HEAD declared Content-Length %d; GET sent %d bytes", headLen, getLen)
		ev := evidence(head, strconv.FormatInt(headLen, 10), strconv.FormatInt(getLen, 10))
		ev.Header = "Content-Length"
		out = append(out, checks.New(m, "", msg, ev, checks.Evidence(get, []string{"Accept"}, []string{"Content-Type", "Content-Length"})))
	})
	return out, err
}

func contentLength(x *exchange.Exchange) (int64, bool) {
	v := x.Response.Header.Get("Content-Length")
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}

// stableGetLength returns GET's body length only when two GETs with the same
// Accept agreed, so a resource whose body changes between requests (a clock,
// a counter) never produces a finding.
func stableGetLength(crawl, get *exchange.Exchange) (int64, bool) {
	if get.Response.Truncated || crawl.Response.MediaType() != get.Response.MediaType() {
		return 0, false
	}
	n := get.Response.BodySize
	if crawl.Response.BodySize != n || crawl.Response.Truncated {
		return 0, false
	}
	return n, true
}

// HeadHeaders checks §9.3.2: HEAD should send GET's Content-Type.
type HeadHeaders struct{ probes }

func (HeadHeaders) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-head-content-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "HEAD sends the Content-Type GET would send",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.2", "SHOULD")},
		Help: `The server should send the same header fields in response to HEAD as it would
to GET (RFC 9110 §9.3.2). Agents probe with HEAD to learn the media type before
fetching; a different Content-Type misleads them.

**How to fix:** negotiate HEAD exactly like GET.`,
	}
}

func (c HeadHeaders) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := eachResource(ctx, in, func(v *conneg.View, r conneg.Resource) {
		head, get := headTypeCmp.judge(v, r)
		if head == nil {
			return
		}
		ht, gt := head.Response.MediaType(), get.Response.MediaType()
		msg := fmt.Sprintf("HEAD sent Content-Type %q where GET sent %q", ht, gt)
		out = append(out, checks.New(m, "", msg, evidence(head, ht, gt), checks.Evidence(get, []string{"Accept"}, []string{"Content-Type", "Content-Length"})))
	})
	return out, unconfirmed(in, out, err, headTypeCmp)
}

// AllowOn405 checks §15.5.6 on every 405 the scan met.
type AllowOn405 struct{ probes }

func (AllowOn405) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-allow-on-405",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "Every 405 response carries Allow",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9110("15.5.6", "MUST"), rfc9110("10.2.1", "MUST")},
		Help: `An origin server must send ` + "`Allow`" + ` with 405 Method Not Allowed, listing the
methods the resource supports (RFC 9110 §15.5.6, §10.2.1). It is how an agent
that guessed the wrong method learns the right one without reading docs.

**How to fix:** set ` + "`Allow`" + ` whenever you answer 405; most routers can do it for you.`,
	}
}

func (c AllowOn405) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	seen := 0
	for _, x := range in.Recording.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// A repeat would report the same 405 twice.
		if x.Response == nil || x.Response.Status != http.StatusMethodNotAllowed || conneg.IsRepeat(x.Purpose) {
			continue
		}
		seen++
		if len(x.Response.Header.Values("Allow")) > 0 {
			continue
		}
		msg := fmt.Sprintf("%s answered 405 without an Allow header", x.Request.Method)
		ev := checks.Evidence(x, nil, []string{"Content-Type"})
		ev.Header, ev.Expected, ev.Actual = "Allow", "Allow: <supported methods>", "(absent)"
		out = append(out, checks.New(m, x.Request.Method, msg, ev))
	}
	if seen == 0 {
		return nil, checks.Skip("the scan met no 405 response")
	}
	return out, nil
}

// OptionsAllow checks §9.3.7 on successful OPTIONS answers.
type OptionsAllow struct{ probes }

func (OptionsAllow) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-options-allow",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "A successful OPTIONS response advertises Allow",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.7", "SHOULD")},
		Help: `A successful OPTIONS response should carry headers that advertise what the
resource supports, such as ` + "`Allow`" + ` (RFC 9110 §9.3.7). It is the cheapest way for
an agent to learn which methods apply before trying one. An answer that lists
the methods in ` + "`Access-Control-Allow-Methods`" + ` only (what CORS middleware sends)
does advertise them, and is reported once, as advice, by
` + "`negotiation-options-cors-only`" + `.

**How to fix:** answer OPTIONS with ` + "`Allow`" + ` listing the resource's methods.`,
	}
}

func (c OptionsAllow) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		x := in.Probe(conneg.PurposeOptions, s.Request.URL)
		if !conneg.Is2xx(x) || hasAllow(x) || hasCORSMethods(x) {
			return
		}
		msg := fmt.Sprintf("OPTIONS answered %d without an Allow header", x.Response.Status)
		ev := checks.Evidence(x, nil, []string{"Content-Type"})
		ev.Header, ev.Expected, ev.Actual = "Allow", "Allow: <supported methods>", "(absent)"
		out = append(out, checks.New(m, "", msg, ev))
	})
	return out, err
}

func hasAllow(x *exchange.Exchange) bool { return len(x.Response.Header.Values("Allow")) > 0 }

func hasCORSMethods(x *exchange.Exchange) bool {
	return strings.TrimSpace(x.Response.Header.Get("Access-Control-Allow-Methods")) != ""
}

// OptionsCORSOnly notes, once for the site, OPTIONS answers that list
// methods in Access-Control-Allow-Methods and send no Allow.
type OptionsCORSOnly struct{ probes }

func (OptionsCORSOnly) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-options-cors-only",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "OPTIONS lists methods in Allow, not only in CORS headers",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.7", "SHOULD"), rfc9110("10.2.1", "")},
		Help: `CORS middleware answers OPTIONS with ` + "`Access-Control-Allow-Methods`" + ` and often
no ` + "`Allow`" + `. RFC 9110 §9.3.7 asks a successful OPTIONS response for "any header
field that might indicate optional features" and names ` + "`Allow`" + ` only as an
example, so the CORS header meets it. But it is written for browsers'
preflights, may list every method the middleware lets through rather than those
the resource supports, and clients that are not browsers look for ` + "`Allow`" + `
(§10.2.1). This is advice, reported once for the site: the middleware answers
the same everywhere.

**How to fix:** let the router add ` + "`Allow`" + ` with the resource's own methods to
OPTIONS answers (most CORS middleware passes OPTIONS through when asked to).`,
		OncePerSite: true,
	}
}

func (c OptionsCORSOnly) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var first *exchange.Exchange
	n := 0
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		x := in.Probe(conneg.PurposeOptions, s.Request.URL)
		if !conneg.Is2xx(x) || hasAllow(x) || !hasCORSMethods(x) {
			return
		}
		n++
		if first == nil {
			first = x
		}
	})
	if err != nil || first == nil {
		return nil, err
	}
	msg := fmt.Sprintf("OPTIONS answered %d with Access-Control-Allow-Methods and no Allow", first.Response.Status)
	if n > 1 {
		msg += fmt.Sprintf(" (%d resources answered alike)", n)
	}
	ev := checks.Evidence(first, nil, []string{"Access-Control-Allow-Methods"})
	ev.Header, ev.Expected, ev.Actual = "Allow", "Allow: <the resource's methods>", "Access-Control-Allow-Methods: "+first.Response.Header.Get("Access-Control-Allow-Methods")
	return []finding.Finding{checks.New(c.Meta(), "", msg, ev)}, nil
}

// OptionsClientError checks that OPTIONS is not refused with a status that
// denies the resource or blames the request, where GET served it.
type OptionsClientError struct{ probes }

func (OptionsClientError) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-options-client-error",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "OPTIONS is not answered 404 or another client error on a resource GET serves",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("9.1", "SHOULD"), rfc9110("9.3.7", "")},
		Help: `OPTIONS is optional (RFC 9110 §9.1), but a server that does not support it
for a resource should say so: 405 Method Not Allowed with ` + "`Allow`" + `, or 501 Not
Implemented when it knows no OPTIONS at all (§9.1). A 404 on OPTIONS for a URL
that GET just served says the resource does not exist; a 400 or 415 blames a
request that has nothing wrong with it. Agents and their HTTP libraries probe
with OPTIONS to learn what they may do, and conclude the wrong thing.

Not reported: 405 (honest when it carries ` + "`Allow`" + `; ` + "`negotiation-allow-on-405`" + ` reports
it without), 401, 403 and 407 (an access decision), 408 and 429 (transient).
One finding per path shape.

**How to fix:** route OPTIONS for every path the router knows, answering 204
with ` + "`Allow`" + `, or 405 with ` + "`Allow`" + ` where you do not want it; most routers do this
once their automatic OPTIONS handling is switched on.`,
	}
}

// optionsRefusals are the 4xx statuses that are no answer about the method.
var optionsRefusals = map[int]bool{
	http.StatusUnauthorized: true, http.StatusForbidden: true, http.StatusProxyAuthRequired: true,
	http.StatusMethodNotAllowed: true, http.StatusRequestTimeout: true, http.StatusTooManyRequests: true,
}

func (c OptionsClientError) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	shapes := map[string]int{}
	var order []string
	first := map[string][2]*exchange.Exchange{}
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		x := in.Probe(conneg.PurposeOptions, s.Request.URL)
		if x == nil || x.Response == nil || !conneg.Is2xx(s) {
			return
		}
		if st := x.Response.Status; st < 400 || st > 499 || optionsRefusals[st] {
			return
		}
		shape := exchange.PathShape(exchange.PathOf(s.Request.URL))
		if shapes[shape] == 0 {
			order = append(order, shape)
			first[shape] = [2]*exchange.Exchange{x, s}
		}
		shapes[shape]++
	})
	if err != nil {
		return nil, err
	}
	for _, shape := range order {
		x, get := first[shape][0], first[shape][1]
		msg := fmt.Sprintf("OPTIONS %s answered %d where GET answered %d", exchange.PathOf(x.Request.URL), x.Response.Status, get.Response.Status)
		if n := shapes[shape]; n > 1 {
			msg += fmt.Sprintf(" (%d resources of this shape answered alike)", n)
		}
		ev := checks.Evidence(x, nil, []string{"Content-Type", "Allow"})
		ev.Actual, ev.Expected, ev.Excerpt = status(x), "2xx with Allow, or 405 with Allow, or 501", checks.Excerpt(x)
		out = append(out, checks.New(m, "", msg, ev, checks.Evidence(get, []string{"Accept"}, []string{"Content-Type"})))
	}
	return out, nil
}

// OptionsFailed checks that OPTIONS does not fail with a server error.
type OptionsFailed struct{ probes }

func (OptionsFailed) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-options-failed",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "OPTIONS does not fail with a server error",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.7", ""), rfc9110("15.6", "")},
		Help: `OPTIONS asks what a resource supports. A server that does not implement it
should answer 405 or 501 with ` + "`Allow`" + `; a 5xx other than 501 says it crashed.

**How to fix:** answer OPTIONS with 204 and ` + "`Allow`" + `, or let your router answer
405/501 for it.`,
	}
}

func (c OptionsFailed) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		x := in.Probe(conneg.PurposeOptions, s.Request.URL)
		if x == nil || x.Response == nil || x.Response.Status < 500 || x.Response.Status == http.StatusNotImplemented {
			return
		}
		msg := fmt.Sprintf("OPTIONS answered %d", x.Response.Status)
		ev := checks.Evidence(x, nil, []string{"Content-Type", "Allow"})
		ev.Actual, ev.Expected, ev.Excerpt = status(x), "2xx with Allow, or 405/501", checks.Excerpt(x)
		out = append(out, checks.New(m, "", msg, ev))
	})
	return out, err
}
