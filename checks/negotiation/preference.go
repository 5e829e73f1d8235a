package negotiation

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// preferenceProbe is the shape shared by the checks that send one Accept and
// expect the server not to answer with the resource's own type.
type preferenceProbe struct {
	purpose string
	explain string // why own was the wrong choice, for the message
}

func (p preferenceProbe) run(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	var out []finding.Finding
	judged := 0
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		alt, ok := altProven(in, s, own)
		x := in.Probe(p.purpose, s.Request.URL)
		if !ok || x == nil {
			return
		}
		judged++
		if !conneg.Is2xx(x) || x.Response.MediaType() != own {
			return
		}
		msg := fmt.Sprintf("Accept %q was answered with %s although %s is available; %s",
			x.Request.Header.Get("Accept"), own, alt, p.explain)
		out = append(out, checks.New(m, "", msg, evidence(x, own, alt)))
	})
	if err != nil {
		return nil, err
	}
	if judged == 0 {
		return nil, checks.Skip("no sampled resource served two representations, so preference order cannot be judged")
	}
	return out, nil
}

// PreferredType checks that the representation with the higher weight wins.
type PreferredType struct{ probes }

func (PreferredType) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-preferred-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "The representation with the highest q-value is chosen",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("12.5.1", "SHOULD"), rfc9110("12.4.2", "")},
		Help: `Agents say what they can parse with weighted ` + "`Accept`" + ` headers, such as
` + "`application/hal+json;q=0.4, application/json`" + `. When the resource has both
representations, the server should pick the one with the higher weight. A
server that takes the first listed type, or its own favourite, hands agents a
format they ranked lower and may parse worse.

**How to fix:** use your framework's negotiation helper rather than matching
on the first type in the header, and sort candidate types by q-value.`,
	}
}

func (c PreferredType) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return preferenceProbe{conneg.PurposeQOrder, "the client weighted it lower (q=0.4 against 1)"}.run(ctx, in, c.Meta())
}

// QZero checks that q=0 excludes a type.
type QZero struct{ probes }

func (QZero) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-q-zero",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "A type weighted q=0 is not served when another is available",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("12.4.2", ""), rfc9110("12.5.1", "SHOULD")},
		Help: `A weight of ` + "`q=0`" + ` means "not acceptable" (RFC 9110 §12.4.2). An agent
that excludes a format this way cannot parse it. When the resource has another
representation the client accepts, serving the excluded one is the wrong choice.

**How to fix:** treat ` + "`q=0`" + ` as exclusion in your negotiation code, not as the
lowest preference.`,
	}
}

func (c QZero) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return preferenceProbe{conneg.PurposeQZero, "the client excluded it with q=0"}.run(ctx, in, c.Meta())
}

// Specificity checks that the most specific matching range sets a type's weight.
type Specificity struct{ probes }

func (Specificity) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-specificity",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "The most specific media range sets a type's weight",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("12.5.1", "SHOULD")},
		Help: `In ` + "`application/hal+json;q=0.2, application/*;q=0.9`" + ` the weight of
` + "`application/hal+json`" + ` is 0.2: the more specific range overrides the wildcard
(RFC 9110 §12.5.1). A server that takes the highest weight of any matching range
gives the type 0.9 and serves what the client ranked lowest.

**How to fix:** for each candidate type, use the weight of the most specific
matching range (type/subtype with parameters, then type/subtype, then type/*,
then */*).`,
	}
}

func (c Specificity) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return preferenceProbe{conneg.PurposeSpecificity, "its specific range carried q=0.2 while the wildcard range gave another available type q=0.9"}.run(ctx, in, c.Meta())
}

// Wildcard checks that */* is served.
type Wildcard struct{ probes }

func (Wildcard) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-wildcard",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "Accept: */* gets a representation",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("12.5.1", ""), rfc9110("15.5.7", "")},
		Help: `` + "`Accept: */*`" + ` means any media type is acceptable (RFC 9110 §12.5.1), and
many HTTP clients send it by default. Answering it with 406, 415 or an error,
where another Accept gets a representation, turns away clients that expressed
no preference at all. The same holds for any Accept that lists ` + "`*/*`" + `, such as
the one the crawl sends: the scan reports a crawled resource that refused it
and then served a representation to a request without Accept, or with one of
the types served beneath its path, and a crawled page that answered it 404
(or 400, 406 or 415) while ` + "`*/*`" + ` or no Accept got the page. A resource that
exists must not say it does not for one Accept: it serves its default or
answers 406 (RFC 9110 §12.5.1). The scan then goes on from the page it got.

**How to fix:** treat ` + "`*/*`" + ` as matching your default representation.`,
	}
}

func (c Wildcard) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := eachResource(ctx, in, func(v *conneg.View, r conneg.Resource) {
		wild, proof := wildcardCmp.judge(v, r)
		crawl, crawlProof := crawlAcceptCmp.judge(v, r)
		if wild == nil && crawl == nil {
			return
		}
		var parts []string
		var evs []finding.Evidence
		if wild != nil {
			parts = append(parts, "Accept: */* was answered "+status(wild))
			evs = append(evs, refusedEvidence(wild))
		}
		why := "*/* means any media type is acceptable"
		if crawl != nil {
			parts = append(parts, fmt.Sprintf("Accept %q, which admits any type through */*, was answered %s", crawl.Request.Header.Get("Accept"), status(crawl)))
			evs = append(evs, refusedEvidence(crawl))
			proof = crawlProof
			if st := crawl.Response.Status; st != http.StatusNotAcceptable && st != http.StatusUnsupportedMediaType {
				why += fmt.Sprintf(", and a resource that exists serves its default or answers 406, not %d", st)
			}
		}
		msg := fmt.Sprintf("%s, while %s got %d %s; %s",
			strings.Join(parts, "; "), describeAccept(proof), proof.Response.Status, proof.Response.MediaType(), why)
		evs = append(evs, checks.Evidence(proof, []string{"Accept"}, []string{"Content-Type", "Vary"}))
		out = append(out, checks.New(m, "", msg, evs...))
	})
	return out, unconfirmed(in, out, err, wildcardCmp, crawlAcceptCmp)
}

func refusedEvidence(x *exchange.Exchange) finding.Evidence {
	ev := evidence(x, status(x), "2xx with any representation")
	ev.Header = ""
	return ev
}

// describeAccept names the Accept a request carried, for a message.
func describeAccept(x *exchange.Exchange) string {
	if a := x.Request.Header.Get("Accept"); a != "" {
		return fmt.Sprintf("Accept %q", a)
	}
	return "a request without Accept"
}

// Unsupported checks the answer to a type the resource does not have.
type Unsupported struct{ probes }

func (Unsupported) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-unsupported-type",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "An unsupported Accept gets 406 or the default representation",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("12.4.1", ""), rfc9110("15.5.7", "")},
		Help: `When nothing in ` + "`Accept`" + ` is available, RFC 9110 §12.4.1 allows two answers:
406 Not Acceptable, or the default representation as if the header were absent.
Both are conformant, and the scan reports which one it observed. Anything else,
such as a 5xx, a 400 or a 415 (which is about request content, not Accept),
leaves an agent unable to tell what went wrong.

**How to fix:** answer 406 (listing the available types) or fall back to
your default representation.`,
	}
}

func (c Unsupported) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := eachResource(ctx, in, func(v *conneg.View, r conneg.Resource) {
		x := v.Probe(conneg.PurposeUnsupported, r)
		if x == nil || x.Response == nil {
			return
		}
		switch st := x.Response.Status; {
		case st == 406:
			in.Observe(m.ID, "unsupported Accept answered with 406 Not Acceptable")
		case st >= 200 && st < 300:
			in.Observe(m.ID, "unsupported Accept answered with the default representation ("+x.Response.MediaType()+")")
		default:
			if x, _ := unsupportedCmp.judge(v, r); x != nil {
				msg := fmt.Sprintf("Accept %q was answered %d; expected 406 or the default representation", conneg.UnsupportedType, st)
				out = append(out, checks.New(m, "", msg, evidence(x, status(x), "406, or 2xx with the default representation")))
			}
		}
	})
	return out, unconfirmed(in, out, err, unsupportedCmp)
}

// MalformedAccept checks that a malformed weight never causes a server error.
type MalformedAccept struct{ probes }

func (MalformedAccept) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-malformed-accept",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "A malformed Accept never causes a 5xx",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc9110("12.4.2", ""), rfc9110("15.6", "")},
		Help: `A 5xx says the server failed, not the client. An Accept header with a
malformed weight (` + "`q=nope`" + `) is client input: the server may ignore the range,
treat it as q=1, or answer 4xx, but it must not crash on it. Agents generate
headers, and a header that takes a server down is also a denial-of-service lever.

**How to fix:** parse Accept leniently; on a bad weight, skip the range.`,
	}
}

func (c MalformedAccept) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	m := c.Meta()
	err := eachResource(ctx, in, func(v *conneg.View, r conneg.Resource) {
		x, _ := malformedCmp.judge(v, r)
		if x == nil {
			return
		}
		msg := fmt.Sprintf("Accept %q was answered %d", x.Request.Header.Get("Accept"), x.Response.Status)
		ev := evidence(x, status(x), "not a 5xx")
		ev.Excerpt = checks.Excerpt(x)
		out = append(out, checks.New(m, "", msg, ev))
	})
	return out, unconfirmed(in, out, err, malformedCmp)
}
