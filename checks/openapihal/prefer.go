package openapihal

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/spec"
)

// Probe purposes. Each is one GET per sampled resource, with the Accept the
// crawl was answered with, so that the responses differ from the plain one
// only by Prefer.
const (
	PurposePlain      = "openapi-hal/plain"
	PurposeNamespaced = "openapi-hal/namespaced-rels"
	PurposeUnknown    = "openapi-hal/unknown-preference"
	PurposeForms      = "openapi-hal/hal-forms"
)

// Preference tokens.
const (
	PreferNamespaced = "namespaced-rels"
	// PreferUnknown is a preference no server defines; RFC 7240 §2 says it
	// must be ignored.
	PreferUnknown = "agentready-unknown-preference"
)

const mediaHALForms = "application/prs.hal-forms+json"

// probes plans the family's requests; every check that reads them embeds it,
// so that running any one of them alone still sends what it needs. The
// probe de-duplicates identical requests, including those of other families
// (the plain GET is the negotiation family's own-type probe, the HAL-FORMS
// GET the hypermedia families' fetch), so the responses are looked up by
// what was sent rather than by purpose.
type probes struct{}

func (probes) Plan(in *checks.PlanInput) []exchange.PlannedRequest {
	hdtc := in.Spec == nil || usesHALRel(in.Spec)
	var out []exchange.PlannedRequest
	for _, s := range in.Samples {
		if s.Response == nil || s.Request.Method != http.MethodGet || s.Response.Status/100 != 2 {
			continue
		}
		own := s.Response.MediaType()
		if own == "" {
			continue
		}
		u := s.Request.URL
		req := func(purpose, accept, prefer string) exchange.PlannedRequest {
			h := http.Header{}
			h.Set("Accept", accept)
			if prefer != "" {
				h.Set("Prefer", prefer)
			}
			return exchange.PlannedRequest{Purpose: purpose, Method: http.MethodGet, URL: u, Header: h, BasedOn: u}
		}
		out = append(out, req(PurposePlain, own, ""), req(PurposeUnknown, own, PreferUnknown))
		if hdtc && servesHAL(s) {
			out = append(out, req(PurposeNamespaced, own, PreferNamespaced))
			if own != mediaHALForms {
				out = append(out, req(PurposeForms, mediaHALForms, ""))
			}
		}
	}
	return out
}

// servesHAL: a HAL type, or JSON whose body has _links.
func servesHAL(x *exchange.Exchange) bool {
	mt := x.Response.MediaType()
	switch mt {
	case "application/hal+json", "application/vnd.hal+json", mediaHALForms:
		return true
	}
	return exchange.IsJSONMediaType(mt) && hasLinks(x.Response.HAL().Root)
}

// hasLinks reports a resource, or one it embeds, with a _links member.
func hasLinks(r *halview.Resource) bool {
	if r == nil {
		return false
	}
	if r.LinksValue != nil {
		return true
	}
	for _, e := range r.Embedded {
		if slices.ContainsFunc(e.Resources, hasLinks) {
			return true
		}
	}
	return false
}

var sentKey = checks.NewKey[map[string]*exchange.Exchange]()

// sent finds the GET of url sent with exactly this Accept and Prefer, from
// whichever family planned it. Only samples' URLs are asked for, so only
// their exchanges are indexed, not every page of the crawl.
func sent(in *checks.Input, url, accept, prefer string) *exchange.Exchange {
	byKey := checks.Memo(in, sentKey, func() map[string]*exchange.Exchange {
		sampled := map[string]bool{}
		for _, s := range in.Samples {
			sampled[s.Request.URL] = true
		}
		m := map[string]*exchange.Exchange{}
		for _, x := range in.Recording.Exchanges {
			if x.Request.Method != http.MethodGet || conneg.IsRepeat(x.Purpose) || !sampled[x.Request.URL] {
				continue
			}
			k := x.Request.URL + "\x00" + x.Request.Header.Get("Accept") + "\x00" + x.Request.Header.Get("Prefer")
			if _, dup := m[k]; !dup {
				m[k] = x
			}
		}
		return m
	})
	return byKey[url+"\x00"+accept+"\x00"+prefer]
}

// applied reports whether Preference-Applied names the preference.
func applied(x *exchange.Exchange, name string) bool {
	for _, v := range x.Response.Header.Values("Preference-Applied") {
		for _, p := range strings.Split(v, ",") {
			token, _, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(token), name) {
				return true
			}
		}
	}
	return false
}

// pair is a sampled HAL resource fetched without and with
// Prefer: namespaced-rels, both successful and of the same type.
type pair struct {
	sample, plain, ns *exchange.Exchange
}

func pairs(in *checks.Input) []pair {
	var out []pair
	for _, s := range in.Samples {
		if s.Response == nil || !servesHAL(s) {
			continue
		}
		own := s.Response.MediaType()
		plain := sent(in, s.Request.URL, own, "")
		ns := sent(in, s.Request.URL, own, PreferNamespaced)
		// A body released for its size, or cut at the cap, cannot be
		// compared with another.
		if !conneg.Is2xx(plain) || !conneg.Is2xx(ns) || plain.Response.MediaType() != ns.Response.MediaType() || !plain.Response.Whole() || !ns.Response.Whole() {
			continue
		}
		out = append(out, pair{s, plain, ns})
	}
	return out
}

// offersOf are the analysed offers of one exchange: from the analysis of
// every page when it read them, else read from the exchange alone.
func offersOf(in *checks.Input, x *exchange.Exchange) []offer {
	a := analyze(in)
	if !a.complete {
		return offersOfPage(in, x)
	}
	at, ok := a.byExchange[x]
	if !ok {
		return nil
	}
	return a.offers[at.from:at.to:at.to]
}

func shapeKey(x *exchange.Exchange) string { return exchange.PathShape(exchange.PathOf(x.Request.URL)) }

// NamespacedRels: Prefer: namespaced-rels switches the relations that have a
// namespaced form, and only then.
type NamespacedRels struct{ probes }

func (NamespacedRels) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-namespaced-rels",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Prefer: namespaced-rels switches bare relations to their namespaced forms",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{hdtcNegotiation, rfc7240Applied},
		Help: `HDTC agents send ` + "`Prefer: namespaced-rels`" + ` to get relations such as ` + "`order:pay`" + `
instead of ` + "`pay`" + `; clients that do not send it keep getting the bare names.
The scan fetches sampled HAL resources with and without the preference, and
for every relation whose operation lists both forms in ` + "`x-hal-rel`" + ` expects:

- without the preference, the bare form (older clients keep working);
- with it, the namespaced form, and ` + "`Preference-Applied: namespaced-rels`" + ` so
  the agent knows it may rely on the names.

**How to fix:** read ` + "`Prefer`" + ` (names are case-insensitive, RFC 7240 §2), render
the namespaced relation and its ` + "`curies`" + ` entry when it is present, and answer
` + "`Preference-Applied: namespaced-rels`" + `.`,
	}
}

func (c NamespacedRels) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := needHALRel(in); err != nil {
		return nil, err
	}
	if !hasBothForms(in) {
		return nil, checks.Skip("no operation lists a relation in both bare and namespaced form")
	}
	ps := pairs(in)
	if len(ps) == 0 {
		return nil, checks.Skip("no sampled HAL resource answered both with and without Prefer: namespaced-rels")
	}
	var out []finding.Finding
	reported := map[string]bool{}
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		problems, ev := c.judge(in, p)
		if len(problems) == 0 || reported[shapeKey(p.sample)] {
			continue
		}
		reported[shapeKey(p.sample)] = true
		msg := exchange.PathOf(p.sample.Request.URL) + ": " + strings.Join(problems, "; ")
		out = append(out, checks.New(c.Meta(), "", msg, ev...))
	}
	return out, nil
}

func hasBothForms(in *checks.Input) bool {
	for _, op := range in.Spec.Operations {
		for _, r := range relsOf(op) {
			if prefix, _ := splitRel(r); prefix == "" && hasNamespacedForm(op, r) {
				return true
			}
		}
	}
	return false
}

// judge compares one resource's two responses.
func (c NamespacedRels) judge(in *checks.Input, p pair) ([]string, []finding.Evidence) {
	nsOffers := offersOf(in, p.ns)
	pm := newPathMatcher(in.Spec)
	var stillBare, byDefault, expected []string
	for _, o := range offersOf(in, p.plain) {
		m := judge(pm, relsOfSpec(in), o)
		if m.verdict != matched {
			continue // the coordinate checks report it
		}
		ops := candidatesOf(m)
		prefix, local := splitRel(o.rel)
		if prefix == "" {
			forms := namespacedForms(ops, local)
			if len(forms) == 0 {
				continue
			}
			expected = append(expected, o.rel)
			if !offersAny(nsOffers, forms) && !containsFold(stillBare, o.rel) {
				stillBare = append(stillBare, o.rel)
			}
			continue
		}
		for _, op := range ops {
			if lists(op, local) && !containsFold(byDefault, o.rel) {
				byDefault = append(byDefault, o.rel)
			}
		}
	}
	var problems []string
	var ev []finding.Evidence
	nsEvidence := func(expectedText, actual string) {
		e := checks.Evidence(p.ns, []string{"Accept", "Prefer"}, []string{"Content-Type", "Preference-Applied", "Vary"})
		e.Expected, e.Actual, e.Excerpt = expectedText, actual, checks.Excerpt(p.ns)
		ev = append(ev, e)
	}
	if len(stillBare) > 0 {
		problems = append(problems, fmt.Sprintf("with Prefer: namespaced-rels, %s stayed bare although x-hal-rel lists a namespaced form", strings.Join(stillBare, ", ")))
		nsEvidence("namespaced relations", strings.Join(stillBare, ", "))
	}
	if len(expected) > 0 && !applied(p.ns, PreferNamespaced) {
		problems = append(problems, "the response to Prefer: namespaced-rels has no Preference-Applied: namespaced-rels")
		if len(ev) == 0 {
			nsEvidence("Preference-Applied: namespaced-rels", headerOr(p.ns, "Preference-Applied"))
		}
	}
	if len(byDefault) > 0 {
		problems = append(problems, fmt.Sprintf("without Prefer: namespaced-rels, %s is already namespaced although x-hal-rel lists the bare form for older clients", strings.Join(byDefault, ", ")))
		e := checks.Evidence(p.plain, []string{"Accept", "Prefer"}, []string{"Content-Type", "Preference-Applied"})
		e.Expected, e.Actual, e.Excerpt = "bare relations", strings.Join(byDefault, ", "), checks.Excerpt(p.plain)
		ev = append(ev, e)
	}
	return problems, ev
}

func candidatesOf(m match) []*spec.Operation {
	var out []*spec.Operation
	for _, op := range m.listing {
		if op.PathTemplate == m.tmpl {
			out = append(out, op)
		}
	}
	return out
}

// namespacedForms are the prefix:local relations the operations list.
func namespacedForms(ops []*spec.Operation, local string) []string {
	var out []string
	for _, op := range ops {
		for _, r := range relsOf(op) {
			if prefix, l := splitRel(r); prefix != "" && strings.EqualFold(l, local) && !containsFold(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

func offersAny(offers []offer, rels []string) bool {
	for _, o := range offers {
		if containsFold(rels, o.rel) {
			return true
		}
	}
	return false
}

func headerOr(x *exchange.Exchange, name string) string {
	if v := strings.Join(x.Response.Header.Values(name), ", "); v != "" {
		return v
	}
	return "(absent)"
}

// NamespacedVary: a server that applies namespaced-rels lists Prefer in Vary
// on both variants (RFC 7240 §2).
type NamespacedVary struct{ probes }

func (NamespacedVary) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-namespaced-vary",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "Responses that honour Prefer: namespaced-rels list Prefer in Vary",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc7240Section2},
		Help: `When ` + "`Prefer: namespaced-rels`" + ` changes the relations of a cacheable response,
RFC 7240 §2 requires ` + "`Vary: Prefer`" + ` on the response, whether or not the request
carried Prefer. Otherwise a shared cache hands the namespaced document to an
old client that expects ` + "`pay`" + `, or the bare one to an agent that asked for
` + "`order:pay`" + `.

The vary family already checks resources that honour ` + "`Prefer: return=minimal`" + `;
this check covers what it cannot see: resources that honour only
namespaced-rels, and namespaced responses that alone lack ` + "`Prefer`" + `. It does
not need an OpenAPI document: the server's ` + "`Preference-Applied`" + ` (or a change of
relations) is the evidence.

**How to fix:** add ` + "`Prefer`" + ` to ` + "`Vary`" + ` on every response of a resource that honours
the preference.`,
	}
}

func (c NamespacedVary) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	honoured := 0
	reported := map[string]bool{}
	for _, p := range pairs(in) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !applied(p.ns, PreferNamespaced) && sameRels(offersOf(in, p.plain), offersOf(in, p.ns)) {
			continue
		}
		honoured++
		var lacking []*exchange.Exchange
		for _, x := range []*exchange.Exchange{p.plain, p.ns} {
			if conneg.Cacheable(x) && !conneg.VaryHas(x.Response.Header, "Prefer") {
				lacking = append(lacking, x)
			}
		}
		if len(lacking) == 0 || reported[shapeKey(p.sample)] {
			continue
		}
		if lacking[0] == p.plain && honoursMinimal(in, p.plain) {
			continue // vary-prefer reports this resource
		}
		reported[shapeKey(p.sample)] = true
		which := "the namespaced response"
		switch {
		case len(lacking) == 2:
			which = "both responses"
		case lacking[0] == p.plain:
			which = "the response without Prefer"
		}
		msg := fmt.Sprintf("%s honours Prefer: namespaced-rels, but Vary lacks Prefer on %s", exchange.PathOf(p.sample.Request.URL), which)
		ev := checks.Evidence(lacking[0], []string{"Accept", "Prefer"}, []string{"Content-Type", "Vary", "Cache-Control", "Preference-Applied"})
		ev.Header, ev.Expected, ev.Actual = "Vary", "Vary: Prefer", headerOr(lacking[0], "Vary")
		out = append(out, checks.New(c.Meta(), "Prefer", msg, ev))
	}
	if honoured == 0 {
		return nil, checks.Skip("no sampled resource applied Prefer: namespaced-rels")
	}
	return out, nil
}

// sameRels compares the relation names two responses offer.
func sameRels(a, b []offer) bool {
	set := func(os []offer) map[string]bool {
		m := map[string]bool{}
		for _, o := range os {
			m[strings.ToLower(o.rel)] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	if len(sa) != len(sb) {
		return false
	}
	for r := range sa {
		if !sb[r] {
			return false
		}
	}
	return true
}

// honoursMinimal reports whether the vary family's return=minimal probe
// shows the resource applying it, in which case vary-prefer judges its Vary.
func honoursMinimal(in *checks.Input, plain *exchange.Exchange) bool {
	x := sent(in, plain.Request.URL, plain.Request.Header.Get("Accept"), "return=minimal")
	return conneg.Is2xx(x) && (applied(x, "return") || x.Response.MediaType() != plain.Response.MediaType())
}

// UnknownPreference: a preference the server does not know is ignored.
type UnknownPreference struct{ probes }

func (UnknownPreference) Meta() checks.Meta {
	return checks.Meta{
		ID:       "openapi-hal-unknown-preference",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyOpenAPIHAL,
		Title:    "An unrecognized preference never causes an error",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{rfc7240Section2},
		Help: `Preferences are hints. RFC 7240 §2 says a server that does not recognize or
cannot comply with a preference must ignore it and process the request as if
it were absent; it must not answer with an error. Agents add preferences such
as ` + "`namespaced-rels`" + ` to every request, so a server that rejects unknown ones
breaks every such agent.

The scan sends ` + "`Prefer: agentready-unknown-preference`" + ` to each sampled resource and
compares the status with the same request without it. This check does not
need an OpenAPI document.

**How to fix:** parse ` + "`Prefer`" + ` leniently and skip the preferences you do not
support.`,
	}
}

func (c UnknownPreference) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	judged := 0
	reported := map[string]bool{}
	for _, s := range in.Samples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.Response == nil || conneg.IsUnstable(in, s.Request.URL) {
			continue
		}
		own := s.Response.MediaType()
		plain := sent(in, s.Request.URL, own, "")
		probe := sent(in, s.Request.URL, own, PreferUnknown)
		if !conneg.Is2xx(plain) || probe == nil || probe.Response == nil {
			continue
		}
		judged++
		if reported[shapeKey(s)] || !conneg.Consistent(in.Index, probe, plain, unknownRejected) {
			continue
		}
		reported[shapeKey(s)] = true
		msg := fmt.Sprintf("Prefer: %s turned %d into %d on %s; an unrecognized preference must be ignored",
			PreferUnknown, plain.Response.Status, probe.Response.Status, exchange.PathOf(s.Request.URL))
		ev := checks.Evidence(probe, []string{"Accept", "Prefer"}, []string{"Content-Type"})
		ev.Expected, ev.Actual = fmt.Sprintf("%d, as without Prefer", plain.Response.Status), fmt.Sprint(probe.Response.Status)
		ev.Excerpt = checks.Excerpt(probe)
		out = append(out, checks.New(c.Meta(), "", msg, ev))
	}
	if judged == 0 {
		return nil, checks.Skip("no sampled resource answered the request without Prefer with 2xx")
	}
	return out, nil
}

// unknownRejected is the verdict on a request with an unknown preference and
// the same request without it: an error where the plain one succeeded.
func unknownRejected(probe, plain *exchange.Exchange) string {
	if !conneg.Is2xx(plain) || probe.Response == nil || probe.Response.Status < 400 {
		return ""
	}
	return fmt.Sprint(probe.Response.Status)
}

var repeatsKey = checks.NewKey[[]exchange.PlannedRequest]()

// PlanFollowUp sends again both requests of every pair the unknown
// preference check would report, so that it reports only a rejection that
// holds on every send.
func (probes) PlanFollowUp(in *checks.PlanInput) []exchange.PlannedRequest {
	return checks.Memo(in, repeatsKey, func() []exchange.PlannedRequest {
		byKey := map[string]*exchange.Exchange{}
		for _, x := range in.Probes {
			if x.Request.Method == http.MethodGet && x.Response != nil {
				k := x.Request.URL + "\x00" + x.Request.Header.Get("Accept") + "\x00" + x.Request.Header.Get("Prefer")
				if _, dup := byKey[k]; !dup {
					byKey[k] = x
				}
			}
		}
		var out []exchange.PlannedRequest
		for _, s := range in.Samples {
			if s.Response == nil {
				continue
			}
			k := s.Request.URL + "\x00" + s.Response.MediaType() + "\x00"
			plain, probe := byKey[k], byKey[k+PreferUnknown]
			if plain == nil || probe == nil || unknownRejected(probe, plain) == "" {
				continue
			}
			out = append(out, conneg.PlanRepeat(plain, 2, 1+conneg.Repeats)...)
			out = append(out, conneg.PlanRepeat(probe, 2, 1+conneg.Repeats)...)
		}
		return out
	})
}
