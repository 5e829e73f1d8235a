// Package vary checks that responses whose representation depends on a
// request header say so in Vary (RFC 9110 §12.5.5, RFC 9111 §4.1, RFC 7240 §2),
// so that caches never hand one client's variant to another.
package vary

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// All returns the family's checks.
func All() []checks.Check { return []checks.Check{Accept{}, Prefer{}} }

type probes struct{}

func (probes) Plan(in *checks.PlanInput) []exchange.PlannedRequest { return conneg.Plan(in) }

// PlanFollowUp asks each resource for the types its answer to OPTIONS
// lists, whose answers Vary: Accept must cover too, and sends again what
// tells a resource failing at random, which the family leaves unjudged.
func (probes) PlanFollowUp(in *checks.PlanInput) []exchange.PlannedRequest {
	v := conneg.FollowUpView(in)
	return append(conneg.PlanRendered(v, in.Samples), conneg.PlanSuspects(v)...)
}

// Accept checks Vary: Accept on negotiated resources.
type Accept struct{ probes }

func (Accept) Meta() checks.Meta {
	return checks.Meta{
		ID:       "vary-accept",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyVary,
		Title:    "Responses that depend on Accept list Accept in Vary",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9110", Section: "12.5.5", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.5"},
			{Doc: "RFC 9111", Section: "4.1", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9111#section-4.1"},
		},
		Help: `When one URL serves different representations depending on ` + "`Accept`" + `, every
cacheable response, the default one included, should list ` + "`Accept`" + ` in ` + "`Vary`" + `
(RFC 9110 §12.5.5). Without it a shared cache keys the response on the URL
alone (RFC 9111 §4.1) and serves the HTML variant to an agent that asked for
JSON, or the reverse. The default response, sent when no Accept was given, is
the one most often missing it.

**How to fix:** add ` + "`Vary: Accept`" + ` to every response of a negotiated resource,
including the default and the 406.`,
	}
}

func (c Accept) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	v := conneg.ViewOf(in)
	if len(v.Resources) == 0 {
		return nil, checks.Skip("no resource answered the crawl 2xx, 406 or 415, so nothing was negotiated")
	}
	m := c.Meta()
	var out []finding.Finding
	negotiated := 0
	for _, r := range v.Resources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if conneg.IsUnstable(in, r.URL()) {
			continue
		}
		variants := acceptResponses(v, r)
		types := servedTypes(in, r)
		if len(types) < 2 {
			continue
		}
		negotiated++
		if f, ok := missingVary(m, variants, types, "Accept"); ok {
			out = append(out, f)
		}
	}
	if negotiated == 0 {
		return nil, checks.Skip("no sampled resource served more than one media type")
	}
	return out, nil
}

// acceptVariants are the GETs of one resource that differ only in Accept
// and whose answers are judged: the negotiation probes that name the
// resource's own types.
var acceptVariants = []string{
	conneg.PurposeNone, conneg.PurposeOwn, conneg.PurposeWildcard, conneg.PurposeAlt,
	conneg.PurposeQOrder, conneg.PurposeQZero, conneg.PurposeSpecificity, conneg.PurposeUnsupported,
}

// acceptResponses are the cacheable answers of one resource to GETs that
// differ only in Accept: the crawl's, the probes' and those to each type the
// resource was asked for alone.
func acceptResponses(v *conneg.View, r conneg.Resource) []*exchange.Exchange {
	var out []*exchange.Exchange
	if conneg.Cacheable(r.Crawl) {
		out = append(out, r.Crawl)
	}
	for _, p := range acceptVariants {
		if x := v.Probe(p, r); conneg.Cacheable(x) {
			out = append(out, x)
		}
	}
	for _, x := range v.Guesses(r) {
		if conneg.Cacheable(x) {
			out = append(out, x)
		}
	}
	return out
}

// servedTypes are the media types of every cacheable answer to a GET of the
// resource's URL that differs from the others in Accept alone, whichever
// family sent it (a Markdown twin's probe, a browser's Accept), so that the
// check never calls a resource single-typed when the scan was served two of
// its types.
func servedTypes(in *checks.Input, r conneg.Resource) []string {
	var xs []*exchange.Exchange
	for _, x := range getsByURL(in)[r.URL()] {
		if conneg.Cacheable(x) {
			xs = append(xs, x)
		}
	}
	return distinctTypes(xs)
}

// variantHeaders are request headers that select something besides the
// media type; a GET that sets one is not an Accept variant.
var variantHeaders = []string{"Prefer", "Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range"}

// getsByURL groups the recording's first sends of GETs that may differ from
// one another in Accept alone, by URL, in recording order.
func getsByURL(in *checks.Input) map[string][]*exchange.Exchange {
	return checks.Memo(in, getsByURLKey, func() map[string][]*exchange.Exchange {
		out := map[string][]*exchange.Exchange{}
		for _, x := range in.Recording.Exchanges {
			if x.Request.Method != http.MethodGet || x.Response == nil || conneg.IsRepeat(x.Purpose) ||
				slices.ContainsFunc(variantHeaders, func(h string) bool { return x.Request.Header.Get(h) != "" }) {
				continue
			}
			out[x.Request.URL] = append(out[x.Request.URL], x)
		}
		return out
	})
}

var getsByURLKey = checks.NewKey[map[string][]*exchange.Exchange]()

func distinctTypes(xs []*exchange.Exchange) []string {
	set := map[string]bool{}
	for _, x := range xs {
		if mt := x.Response.MediaType(); mt != "" {
			set[mt] = true
		}
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// missingVary reports one finding per resource, naming every variant whose
// Vary lacks the field, so a resource counts once however many probes hit it.
func missingVary(m checks.Meta, variants []*exchange.Exchange, types []string, field string) (finding.Finding, bool) {
	var lacking []*exchange.Exchange
	for _, x := range variants {
		if !conneg.VaryHas(x.Response.Header, field) {
			lacking = append(lacking, x)
		}
	}
	if len(lacking) == 0 {
		return finding.Finding{}, false
	}
	names := make([]string, len(lacking))
	for i, x := range lacking {
		names[i] = describe(x)
	}
	msg := fmt.Sprintf("Vary lacks %s on %d of %d responses (%s) although the resource serves %s",
		field, len(lacking), len(variants), strings.Join(names, "; "), strings.Join(types, ", "))
	ev := checks.Evidence(lacking[0], []string{"Accept", "Prefer"}, []string{"Content-Type", "Vary", "Cache-Control", "Preference-Applied"})
	ev.Header, ev.Expected = "Vary", "Vary: "+field
	ev.Actual = strings.Join(lacking[0].Response.Header.Values("Vary"), ", ")
	if ev.Actual == "" {
		ev.Actual = "(absent)"
	}
	return checks.New(m, field, msg, ev), true
}

func describe(x *exchange.Exchange) string {
	var req string
	switch {
	case x.Request.Header.Get("Prefer") != "":
		req = "Prefer: " + x.Request.Header.Get("Prefer")
	case x.Request.Header.Get("Accept") == "":
		req = "no Accept"
	default:
		req = "Accept: " + x.Request.Header.Get("Accept")
	}
	return fmt.Sprintf("%s → %s", req, x.Response.MediaType())
}
