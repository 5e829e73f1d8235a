package vary

import (
	"context"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// Prefer checks the RFC 7240 §2 MUST: a server that may apply a preference
// lists Prefer in Vary, whether or not the request carried Prefer.
type Prefer struct{ probes }

func (Prefer) Meta() checks.Meta {
	return checks.Meta{
		ID:       "vary-prefer",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyVary,
		Title:    "Responses shaped by Prefer list Prefer in Vary",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 7240", Section: "2", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc7240#section-2"},
			{Doc: "RFC 9111", Section: "4.1", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9111#section-4.1"},
		},
		Help: `If a server supports a preference that can change the response, such as
` + "`Prefer: return=minimal`" + `, it must include ` + "`Vary: Prefer`" + ` in the response,
regardless of whether the request used Prefer (RFC 7240 §2). Otherwise a cache
can serve the minimal body to an agent that needs the full one.

The scan sends ` + "`Prefer: return=minimal`" + ` and compares with the same request
without it. A preference counts as applied when the server says so in
` + "`Preference-Applied`" + `, or when the media type changes; differing bodies alone are
not taken as proof, since a body can change between any two requests.

**How to fix:** add ` + "`Prefer`" + ` to ` + "`Vary`" + ` on every response of a resource that honours it.`,
	}
}

func (c Prefer) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if len(in.Samples) == 0 {
		return nil, checks.Skip("no resource answered 2xx to the crawl")
	}
	m := c.Meta()
	var out []finding.Finding
	honoured := 0
	for _, s := range in.Samples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if conneg.IsUnstable(in, s.Request.URL) {
			continue
		}
		plain := in.Probe(conneg.PurposeOwn, s.Request.URL)
		pref := in.Probe(conneg.PurposePrefer, s.Request.URL)
		if !conneg.Cacheable(plain) || !conneg.Cacheable(pref) || !applied(plain, pref) {
			continue
		}
		honoured++
		variants := []*exchange.Exchange{plain, pref}
		if none := in.Probe(conneg.PurposeNone, s.Request.URL); conneg.Cacheable(none) {
			variants = append(variants, none)
		}
		if f, ok := missingVary(m, variants, distinctTypes(variants), "Prefer"); ok {
			out = append(out, f)
		}
	}
	if honoured == 0 {
		return nil, checks.Skip("no sampled resource applied Prefer: return=minimal")
	}
	return out, nil
}

func applied(plain, pref *exchange.Exchange) bool {
	for _, v := range pref.Response.Header.Values("Preference-Applied") {
		for _, p := range strings.Split(v, ",") {
			if name, _, _ := strings.Cut(strings.TrimSpace(p), "="); strings.EqualFold(strings.TrimSpace(name), "return") {
				return true
			}
		}
	}
	// Differing bodies alone are not evidence: a body can change between any
	// two requests, and a finding must not rest on a clock or a counter.
	return plain.Response.MediaType() != pref.Response.MediaType()
}
