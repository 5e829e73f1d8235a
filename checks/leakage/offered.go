package leakage

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/finding"
	"github.com/agentready/agentready/spec"
)

// PurposeTarget is the GET, as a lower identity, of the target of a link,
// template or affordance it was offered.
const PurposeTarget = "leakage/target"

// maxTargets bounds the targets fetched per identity.
const maxTargets = 20

// Offer is one operation a response offered its caller: a HAL link, a
// HAL-FORMS template or an affordance entry.
type Offer struct {
	X       *exchange.Exchange
	Method  string
	Target  string // absolute URL
	Name    string // relation, template key or operation name
	Pointer string
}

// Offers lists what the successful JSON GETs among xs offered, in order.
func Offers(xs []*exchange.Exchange) []Offer {
	var out []Offer
	for _, x := range xs {
		if x.Request.Method != http.MethodGet || x.Response == nil || x.Response.Status != http.StatusOK || !whole(x) || !exchange.IsJSONMediaType(x.Response.MediaType()) {
			continue
		}
		v, err := x.Response.JSON()
		if err != nil {
			continue
		}
		walk(v, "", 0, func(obj map[string]any, ptr string) {
			out = append(out, offersIn(x, obj, ptr)...)
		})
	}
	return out
}

func offersIn(x *exchange.Exchange, obj map[string]any, ptr string) []Offer {
	var out []Offer
	add := func(method, target, name, pointer string) {
		if u, ok := resolve(x.Request.URL, target); ok && name != "self" {
			out = append(out, Offer{X: x, Method: strings.ToUpper(method), Target: u, Name: name, Pointer: pointer})
		}
	}
	self := x.Request.URL
	if links, ok := obj["_links"].(map[string]any); ok {
		if s, ok := links["self"].(map[string]any); ok {
			if h, ok := s["href"].(string); ok {
				self = h
			}
		}
		for _, rel := range sortedKeys(links) {
			for i, l := range linkObjects(links[rel]) {
				if h, ok := l["href"].(string); ok && l["templated"] != true {
					add(http.MethodGet, h, rel, fmt.Sprintf("%s/_links/%s%s", ptr, escapePointer(rel), index(links[rel], i)))
				}
			}
		}
	}
	if tpls, ok := obj["_templates"].(map[string]any); ok {
		for _, key := range sortedKeys(tpls) {
			t, _ := tpls[key].(map[string]any)
			method, _ := t["method"].(string)
			target, _ := t["target"].(string)
			if target == "" {
				target = self
			}
			if method != "" {
				add(method, target, key, ptr+"/_templates/"+escapePointer(key))
			}
		}
	}
	for i, a := range entries(obj["affordances"]) {
		op, _ := a["operation"].(string)
		target, _ := a["target"].(string)
		method, _ := a["method"].(string)
		if method == "" {
			method = http.MethodPost
		}
		if op != "" && target != "" {
			add(method, target, op, fmt.Sprintf("%s/affordances/%d", ptr, i))
		}
	}
	return out
}

func index(v any, i int) string {
	if _, many := v.([]any); many {
		return fmt.Sprintf("/%d", i)
	}
	return ""
}

func linkObjects(v any) []map[string]any {
	if m, ok := v.(map[string]any); ok {
		return []map[string]any{m}
	}
	return entries(v)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func resolve(base, ref string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil || ref == "" {
		return "", false
	}
	u, err := b.Parse(ref)
	if err != nil || u.Scheme != b.Scheme || u.Host != b.Host {
		return "", false
	}
	u.Fragment = ""
	return u.String(), true
}

// PlanTargets plans a GET of each distinct target offered in crawled that
// the crawl did not fetch, bounded; the scan sends them as a lower identity.
func PlanTargets(crawled []*exchange.Exchange) []exchange.PlannedRequest {
	fetched := map[string]bool{}
	for _, x := range crawled {
		fetched[x.Request.URL] = true
	}
	var out []exchange.PlannedRequest
	for _, o := range Offers(crawled) {
		if fetched[o.Target] || len(out) >= maxTargets {
			continue
		}
		fetched[o.Target] = true
		out = append(out, exchange.PlannedRequest{Purpose: PurposeTarget, Method: http.MethodGet, URL: o.Target, BasedOn: o.Target})
	}
	return out
}

// OfferedRefused flags operations offered to a less privileged identity that
// refuse it: an agent will try them and fail, and the caller learns of a
// capability it does not have.
type OfferedRefused struct{}

func (OfferedRefused) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-offered-refused",
		Family:   checks.FamilyLeakage,
		Title:    "Callers are not offered links, templates or affordances that refuse them",
		Severity: finding.SeverityWarning,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9110", Section: "15.5.4", Level: "MAY", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.4"},
			{Doc: "OWASP API Security Top 10", Section: "API5:2023", Level: "advice", URL: "https://owasp.org/API-Security/editions/2023/en/0xa5-broken-function-level-authorization/"},
		},
		Help: `Hypermedia controls tell an agent what it can do next. A control that the
server then refuses for this caller (an admin-only refund template shown to
anonymous callers) misleads cooperative agents into failing calls, and tells
every caller that the capability exists. agentready reports an offered
operation as refusing a less privileged identity when fetching its target with
GET as that identity answered 401 or 403, or when the matched OpenAPI
operation requires a security scheme while the identity sent no credentials.
State-changing operations are errors, links warnings.

**How to fix:** build links and templates per caller from the same
authorization rules the handlers enforce, and omit what the caller may not do.`,
	}
}

func (c OfferedRefused) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	m := c.Meta()
	var out []finding.Finding
	judged := 0
	for _, v := range vs[:len(vs)-1] {
		if v.Recording == nil {
			continue
		}
		fetched := gets(v.Recording)
		anonymous := !anyCredentials(v.Recording)
		reported := map[string]bool{}
		for _, o := range Offers(v.Recording.Exchanges) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			judged++
			why, ev, ok := refusal(in.Spec, o, fetched[o.Target], anonymous)
			key := o.Method + " " + exchange.PathShape(exchange.PathOf(o.Target))
			if !ok || reported[key] {
				continue
			}
			reported[key] = true
			offer := checks.Evidence(o.X, nil, []string{"Content-Type"})
			offer.JSONPointer = o.Pointer
			msg := fmt.Sprintf("as %q, %s offers %s (%s %s) but %s; expected no control for an operation that refuses this caller",
				v.Name, exchange.PathOf(o.X.Request.URL), o.Name, o.Method, exchange.PathOf(o.Target), why)
			f := checks.New(m, v.Name+" "+o.Name, msg, append([]finding.Evidence{offer}, ev...)...)
			if !safe(o.Method) {
				f.Severity = finding.SeverityError
			}
			out = append(out, f)
		}
	}
	if judged == 0 {
		return nil, checks.Skip("no less privileged identity was offered a link, template or affordance")
	}
	return out, nil
}

// refusal says how the operation refuses the identity, with evidence.
func refusal(doc *spec.Document, o Offer, got *exchange.Exchange, anonymous bool) (string, []finding.Evidence, bool) {
	if got != nil && got.Response != nil && (got.Response.Status == http.StatusUnauthorized || got.Response.Status == http.StatusForbidden) {
		return fmt.Sprintf("GET of the target answered %d to this caller", got.Response.Status),
			[]finding.Evidence{checks.Evidence(got, nil, []string{"Content-Type", "WWW-Authenticate"})}, true
	}
	if doc == nil || !anonymous {
		return "", nil, false
	}
	op := doc.Index().Match(o.Method, o.Target)
	if op == nil || len(op.Security) == 0 {
		return "", nil, false
	}
	var schemes []string
	for _, alt := range op.Security {
		if len(alt) == 0 {
			return "", nil, false // {} makes the operation callable anonymously
		}
		for name := range alt {
			schemes = append(schemes, name)
		}
	}
	sort.Strings(schemes)
	return fmt.Sprintf("its OpenAPI operation %s %s requires %s and this caller sent no credentials", op.Method, op.PathTemplate, strings.Join(schemes, " or ")), nil, true
}

func anyCredentials(rec *exchange.Recording) bool {
	for _, x := range rec.Exchanges {
		if checks.SentCredentials(x) {
			return true
		}
	}
	return false
}

func safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}
