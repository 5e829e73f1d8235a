package leakage

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// ExistenceOracle flags a lower identity that gets 403 for a resource that
// exists and 404 for one that does not: it can enumerate identifiers.
type ExistenceOracle struct{ family }

func (ExistenceOracle) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-existence-oracle",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Title:    "Forbidden and missing resources look the same to a caller who may not read them",
		Severity: finding.SeverityWarning,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9110", Section: "15.5.4", Level: "MAY", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.4"},
			{Doc: "OWASP API Security Top 10", Section: "API1:2023", Level: "advice", URL: "https://owasp.org/API-Security/editions/2023/en/0xa1-broken-object-level-authorization/"},
		},
		Help: `An agent that gets ` + "`403`" + ` for ` + "`/orders/7`" + ` and ` + "`404`" + ` for ` + "`/orders/8`" + ` has learned that
order 7 exists. Repeating that over an identifier range enumerates
resources the caller may not read. RFC 9110 §15.5.4 lets a server answer
` + "`404`" + ` instead of ` + "`403`" + ` precisely to hide a resource's existence, and common API
guidance is to do so for objects the caller has no right to know about.

agentready fetches, as each less privileged identity, a resource the most
privileged identity could read and a sibling URL that certainly does not
exist, and compares the two statuses. Only a URL whose last segment is an
identifier is judged: one that looks like an ID (a number, a UUID, a mixed
token such as ` + "`ord_8f3k2`" + `) or that the OpenAPI document templates
(` + "`/articles/{slug}`" + `). A fixed path such as ` + "`/admin/settings`" + ` answering ` + "`403`" + `
names nothing a caller could enumerate; it is listed in the observations.

**How to fix:** answer ` + "`404`" + ` (same body shape) for resources that exist but are
not visible to the caller, and keep ` + "`403`" + ` for resources the caller can see but
not act on.`,
	}
}

func (c ExistenceOracle) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	vs, err := views(in)
	if err != nil {
		return nil, err
	}
	readable := map[string]bool{}
	for u, x := range gets(top(vs).Recording) {
		readable[u] = x.Response.Status == http.StatusOK
	}
	m := c.Meta()
	var out []finding.Finding
	pairs := 0
	for _, v := range vs[:len(vs)-1] {
		if v.Recording == nil {
			continue
		}
		siblings := map[string]*exchange.Exchange{}
		for x := range v.Recording.WithPurpose(PurposeMissingSibling) {
			if x.Response != nil {
				siblings[parent(x.Request.URL)] = x
			}
		}
		reported := map[string]bool{}
		lowerGets := gets(v.Recording)
		urls := make([]string, 0, len(lowerGets))
		for u := range lowerGets {
			urls = append(urls, u)
		}
		sort.Strings(urls)
		for _, u := range urls {
			x := lowerGets[u]
			missing := siblings[parent(u)]
			if !readable[u] || missing == nil {
				continue
			}
			oracle := x.Response.Status == http.StatusForbidden && missing.Response.Status == http.StatusNotFound
			if !identified(in, u) {
				if oracle {
					in.Observe(m.ID, fmt.Sprintf("as %q, %s answers 403 and a missing sibling 404, not judged: its last segment names no identifier, so there is nothing to enumerate",
						v.Name, exchange.PathOf(u)))
				}
				continue
			}
			pairs++
			shape := exchange.PathShape(exchange.PathOf(u))
			if oracle && !reported[shape] {
				// One finding per path shape: every ID of it is enumerable.
				reported[shape] = true
				msg := fmt.Sprintf("as %q, %s answers 403 while a missing sibling answers 404, revealing that it exists; expected 404 for both",
					v.Name, exchange.PathOf(u))
				out = append(out, checks.New(m, v.Name, msg,
					checks.Evidence(x, nil, []string{"Content-Type"}),
					checks.Evidence(missing, nil, []string{"Content-Type"})))
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if pairs == 0 {
		return nil, checks.Skip("no resource named by an identifier that the most privileged identity read was fetched as a lower identity next to a missing sibling")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Evidence[0].URL < out[j].Evidence[0].URL })
	return out, nil
}

// parent is the URL's path without its last segment.
func parent(rawURL string) string {
	return path.Dir(strings.TrimSuffix(exchange.PathOf(rawURL), "/"))
}

// identified reports a URL whose last path segment is an identifier, the
// part a caller can vary to enumerate resources: it looks like one (a
// number, a UUID, a mixed token), or the OpenAPI path template it matches
// has a parameter there (/articles/{slug}). A fixed path such as
// /admin/settings answering 403 reveals nothing a caller could not read in
// the API's documentation.
func identified(in *checks.Input, rawURL string) bool {
	p := strings.TrimSuffix(exchange.PathOf(rawURL), "/")
	if path.Base(exchange.PathShape(p)) == "{id}" {
		return true
	}
	if in.Spec == nil {
		return false
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	tmpl, _ := in.Spec.Index().MatchPath(strings.TrimSuffix(u.EscapedPath(), "/"))
	return strings.Contains(path.Base(tmpl), "{")
}
