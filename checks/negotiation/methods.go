package negotiation

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// HeadStatus checks that HEAD answers with GET's status.
type HeadStatus struct{ probes }

func (HeadStatus) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-head-status",
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
	return out, err
}

// HeadContentLength checks §8.6: a Content-Length on HEAD equals GET's.
type HeadContentLength struct{ probes }

func (HeadContentLength) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-head-content-length",
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
	return out, err
}

// AllowOn405 checks §15.5.6 on every 405 the scan met.
type AllowOn405 struct{ probes }

func (AllowOn405) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-allow-on-405",
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
		Family:   checks.FamilyNegotiation,
		Title:    "A successful OPTIONS response advertises Allow",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("9.3.7", "SHOULD")},
		Help: `A successful OPTIONS response should carry headers that advertise what the
resource supports, such as ` + "`Allow`" + ` (RFC 9110 §9.3.7). It is the cheapest way for
an agent to learn which methods apply before trying one.

**How to fix:** answer OPTIONS with ` + "`Allow`" + ` listing the resource's methods.`,
	}
}

func (c OptionsAllow) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		x := in.Probe(conneg.PurposeOptions, s.Request.URL)
		if !conneg.Is2xx(x) || len(x.Response.Header.Values("Allow")) > 0 {
			return
		}
		msg := fmt.Sprintf("OPTIONS answered %d without an Allow header", x.Response.Status)
		ev := checks.Evidence(x, nil, []string{"Content-Type"})
		ev.Header, ev.Expected, ev.Actual = "Allow", "Allow: <supported methods>", "(absent)"
		out = append(out, checks.New(m, "", msg, ev))
	})
	return out, err
}

// OptionsFailed checks that OPTIONS does not fail with a server error.
type OptionsFailed struct{ probes }

func (OptionsFailed) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-options-failed",
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
