package negotiation

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// MixedWildcards checks that type/* overrides */* whatever their weights.
type MixedWildcards struct{ probes }

func (MixedWildcards) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-mixed-wildcards",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "A type/* range overrides */* at a different q-value",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{rfc9110("12.5.1", "SHOULD"), rfc9110("12.4.2", "")},
		Help: `In ` + "`*/*;q=0.9, text/*;q=0.1, text/markdown;q=0.5`" + ` the weight of
` + "`text/html`" + ` is 0.1: of the two wildcards that match it, ` + "`text/*`" + ` is the
more specific and overrides ` + "`*/*`" + ` (RFC 9110 §12.5.1), so the client prefers
` + "`text/markdown`" + ` at 0.5. A server that treats any ` + "`*/*`" + ` as "send the
default", or takes the highest weight among the wildcards, serves the type the
client ranked lowest. Browsers and HTTP libraries send such mixed wildcards
every day. Judged only on resources shown to serve both types.

**How to fix:** weigh each candidate type by its most specific matching
range (type/subtype, then type/*, then */*), never by the presence of
` + "`*/*`" + ` alone.`,
	}
}

func (c MixedWildcards) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return preferenceProbe{conneg.PurposeMixedWildcards,
		"the more specific type/* range set its weight to 0.1, below the other type's 0.5, and */* at 0.9 does not override it"}.run(ctx, in, c.Meta())
}

// TieBreak checks that equal weights are broken by the client's order or the
// server's own default, never in favour of the type listed last.
type TieBreak struct{ probes }

func (TieBreak) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-tie-break",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "Equal weights give the first-listed type or the default, not the last",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{rfc9110("12.5.1", ""), rfc9110("12.1", "")},
		Help: `RFC 9110 leaves a tie to the server (§12.1: its own preferences decide). Two
choices are sound: the type the client listed first, or the server's default
(what it serves without ` + "`Accept`" + `). The scan asks for both types of a resource
at the same weight, in both orders (` + "`text/html, text/markdown`" + ` and
` + "`text/markdown, text/html`" + `), and reports an answer that is neither: the type
listed last, where the default is the other one. That is the mark of a router
that serves Markdown whenever ` + "`text/markdown`" + ` appears anywhere in the
header, which also hands it to clients that asked for HTML first. A page
that the crawl and a browser's ` + "`Accept`" + ` both get as HTML is HTML for people
whatever a request without ` + "`Accept`" + ` gets, so it keeps HTML on a tie where
HTML is listed first: the scan reports Markdown there even when Markdown is
the default. An API whose HTML is only what browsers are shown keeps its
default.

**How to fix:** rank by weight, and keep your default (or the client's
order) on a tie.`,
	}
}

func (c TieBreak) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	listedLast := func(own, alt string) []avoided {
		return []avoided{{conneg.PurposeTie, alt}, {conneg.PurposeTieReversed, own}}
	}
	return avoidProbe{listedLast, "the type listed last at the same weight", true}.run(ctx, in, c.Meta())
}

// MalformedRange checks that a range with a malformed weight does not win
// over a valid range.
type MalformedRange struct{ probes }

func (MalformedRange) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-malformed-range",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "A range with a malformed q-value does not win over a valid range",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{rfc9110("12.4.2", ""), rfc9110("12.5.1", "")},
		Help: `A weight is ` + "`0`" + ` to ` + "`1`" + ` with at most three decimals (RFC 9110 §12.4.2);
` + "`q=nope`" + ` is none. The scan sends ` + "`<other type>;q=nope, <type>;q=0.5`" + `:
the one range a parser can trust names the second type. A server that reads
the malformed weight as 1 serves the first type, ranking a range it could not
parse above one the client weighted on purpose. Falling back to the default
representation is fine, and is not reported.

**How to fix:** skip a media range whose weight does not parse (or answer
400), instead of giving it the default weight.`,
	}
}

func (c MalformedRange) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	malformed := func(_, alt string) []avoided { return []avoided{{conneg.PurposeMalformedRange, alt}} }
	return avoidProbe{malformed, "the type whose range has a malformed weight, over a valid range", false}.run(ctx, in, c.Meta())
}

// avoided is a probe and the type its answer must not be.
type avoided struct{ purpose, typ string }

// avoidProbe is the shape shared by the checks whose probe names a type the
// answer must not be, unless that type is the server's default: a server
// that falls back to its default has ignored the header, which RFC 9110
// §12.5.1 allows.
type avoidProbe struct {
	avoid func(own, alt string) []avoided
	what  string // the avoided type, for the message
	// canonical lifts the default's exemption where the crawl and a
	// browser's Accept both got the other type: a page people are served
	// as HTML keeps HTML when the client listed it first, whatever a
	// request without Accept gets.
	canonical bool
}

func (p avoidProbe) run(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	var out []finding.Finding
	judged := 0
	err := sampleProbes(ctx, in, func(s *exchange.Exchange, own string) {
		alt, ok := altProven(in, s, own)
		def := defaultType(in, s)
		if !ok || def == "" {
			return
		}
		for _, a := range p.avoid(own, alt) {
			x := in.Probe(a.purpose, s.Request.URL)
			if x == nil {
				continue
			}
			judged++
			if !conneg.Is2xx(x) || x.Response.MediaType() != a.typ {
				continue
			}
			msg := fmt.Sprintf("Accept %q was answered with %s, %s; without Accept the server serves %s",
				x.Request.Header.Get("Accept"), a.typ, p.what, def)
			if a.typ == def {
				other := own
				if a.typ == own {
					other = alt
				}
				// The page's representation for people is the type both
				// the crawl and a browser got; an API whose HTML is only
				// a browser's view keeps its default.
				if !p.canonical || other != own || browserType(in, s) != own {
					continue
				}
				msg = fmt.Sprintf("Accept %q was answered with %s, %s; a browser's Accept gets %s, the page's representation for people, though without Accept the server serves %s",
					x.Request.Header.Get("Accept"), a.typ, p.what, other, def)
			}
			out = append(out, checks.New(m, "", msg, evidence(x, a.typ, "not "+a.typ)))
			return
		}
	})
	if err != nil {
		return nil, err
	}
	if judged == 0 {
		return nil, checks.Skip("no sampled resource served two representations and a default, so the choice between them cannot be judged")
	}
	return out, nil
}

// defaultType is the media type the resource serves without Accept, or ""
// when that request failed.
func defaultType(in *checks.Input, s *exchange.Exchange) string {
	if x := in.Probe(conneg.PurposeNone, s.Request.URL); conneg.Is2xx(x) {
		return x.Response.MediaType()
	}
	return ""
}

// browserType is the media type the resource served a browser's Accept, or
// "" when it was not asked or failed.
func browserType(in *checks.Input, s *exchange.Exchange) string {
	if x := in.Probe(conneg.PurposeBrowser, s.Request.URL); conneg.Is2xx(x) {
		return x.Response.MediaType()
	}
	return ""
}
