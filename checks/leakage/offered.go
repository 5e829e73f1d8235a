package leakage

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// PurposeTarget is the GET, as a lower identity, of the target of a link,
// template or affordance it was offered.
const PurposeTarget = "leakage/target"

// maxTargets bounds the targets fetched per identity.
const maxTargets = 20

// PlanTargets plans a GET of each distinct target offered in crawled that
// the crawl did not fetch, bounded; the scan sends them as a lower identity.
func PlanTargets(crawled []*exchange.Exchange) []exchange.PlannedRequest {
	fetched := map[string]bool{}
	for _, x := range crawled {
		fetched[x.Request.URL] = true
	}
	var out []exchange.PlannedRequest
	for _, o := range hypermedia.Offers(crawled) {
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
type OfferedRefused struct{ family }

func (OfferedRefused) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-offered-refused",
		Since:    checks.FirstRelease,
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
operation as refusing a less privileged identity when the matched OpenAPI
operation excludes it (the configuration's ` + "`access`" + ` mapping names roles the
identity does not hold, or its security requirements need a credential the
identity did not send, or role names, as scopes, outside the identity's
` + "`roles`" + `), or when fetching its target with GET as that identity answered 401
or 403 and the most privileged identity was offered the same method and
target path: the control unlocks something for a higher caller. A safe link
answered 401 with ` + "`WWW-Authenticate`" + ` is an authentication challenge, the
ordinary way to ask a caller to sign in; it is listed in the observations.
An affordance entry without ` + "`method`" + ` takes the method of the operation its
` + "`operation`" + ` names (by operationId), or of the one operation declared at its
target path; when neither tells, the method is not known.
When none of these can tell, nothing is reported. State-changing operations
are errors; links and operations of unknown method warnings.

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
	higher := offeredShapes(in, top(vs))
	var out []finding.Finding
	judged := 0
	for _, v := range vs[:len(vs)-1] {
		if v.Recording == nil {
			continue
		}
		fetched := gets(v.Recording)
		who := caller(v)
		reported, noted := map[string]bool{}, map[string]bool{}
		for _, o := range controlsOf(in, v.Recording).offers {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			judged++
			method, op := methodOf(in, o)
			shape := exchange.PathShape(exchange.PathOf(o.Target))
			key := method + " " + shape
			if reported[key] {
				continue
			}
			got := fetched[o.Target]
			if challenged(method, got) {
				if noted[key] {
					continue
				}
				noted[key] = true
				in.Observe(m.ID, fmt.Sprintf("as %q, %s offers %s (GET %s), which answered 401 with WWW-Authenticate: an authentication challenge, not reported",
					v.Name, exchange.PathOf(o.X.Request.URL), o.Name, exchange.PathOf(o.Target)))
				continue
			}
			why, ev, ok := refusal(in, op, got, who, higher.has(method, shape))
			if !ok {
				continue
			}
			reported[key] = true
			offer := checks.Evidence(o.X, nil, []string{"Content-Type"})
			offer.JSONPointer = o.Pointer
			msg := fmt.Sprintf("as %q, %s offers %s (%s) but %s; expected no control for an operation that refuses this caller",
				v.Name, exchange.PathOf(o.X.Request.URL), o.Name, describe(method, o.Target), why)
			f := checks.New(m, v.Name+" "+o.Name, msg, append([]finding.Evidence{offer}, ev...)...)
			if method != "" && !safe(method) {
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

// methodOf is Resolve against the scan's document.
func methodOf(in *checks.Input, o hypermedia.Offer) (string, *spec.Operation) {
	return o.Resolve(in.Spec)
}

func describe(method, target string) string {
	if method == "" {
		return exchange.PathOf(target) + ", method not stated"
	}
	return method + " " + exchange.PathOf(target)
}

// shapes maps the target path shapes of what an identity was offered to
// the methods offered there, "" for a method that cannot be told.
type shapes map[string][]string

func offeredShapes(in *checks.Input, v checks.IdentityView) shapes {
	out := shapes{}
	if v.Recording == nil {
		return out
	}
	for _, o := range controlsOf(in, v.Recording).offers {
		method, _ := methodOf(in, o)
		shape := exchange.PathShape(exchange.PathOf(o.Target))
		out[shape] = append(out[shape], method)
	}
	return out
}

// has reports an offer of method at shape; an unknown method on either side
// matches any.
func (s shapes) has(method, shape string) bool {
	for _, m := range s[shape] {
		if m == method || m == "" || method == "" {
			return true
		}
	}
	return false
}

// challenged reports a safe control whose target answered 401 with
// WWW-Authenticate: the ordinary way to tell a caller to sign in (RFC 9110
// §15.5.2), not a refusal of a capability it was shown.
func challenged(method string, got *exchange.Exchange) bool {
	return safe(method) && got != nil && got.Response != nil &&
		got.Response.Status == http.StatusUnauthorized && got.Response.Header.Get("WWW-Authenticate") != ""
}

// refusal says how the operation refuses the identity, with evidence. What
// in.MayCall decides from the configuration's access mapping and the
// operation's security requirements counts alone: it names whom the
// operation is for. A refused GET of the target (401, 403) counts, and is
// given first, when the most privileged identity was offered the same method
// and target path, so that the control evidently unlocks something for a
// higher caller, or when the declared access excludes this caller too.
func refusal(in *checks.Input, op *spec.Operation, got *exchange.Exchange, who exchange.Caller, higher bool) (string, []finding.Evidence, bool) {
	declared, why := checks.AccessUnknown, ""
	if op != nil {
		declared, why = in.MayCall(op, who)
	}
	if got != nil && got.Response != nil && (got.Response.Status == http.StatusUnauthorized || got.Response.Status == http.StatusForbidden) &&
		(higher || declared == checks.AccessRefused) {
		said := fmt.Sprintf("GET of the target answered %d to this caller", got.Response.Status)
		if !higher {
			said += ", and " + why
		}
		return said, []finding.Evidence{checks.Evidence(got, nil, []string{"Content-Type", "WWW-Authenticate"})}, true
	}
	if declared == checks.AccessRefused {
		return why, nil, true
	}
	return "", nil, false
}

func safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}
