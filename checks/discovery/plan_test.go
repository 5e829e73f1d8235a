package discovery_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
)

func plannedKeys(ps []exchange.PlannedRequest) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %s %s %s", p.Purpose, p.Method, strings.TrimPrefix(p.URL, origin), p.Header.Get("Accept")))
	}
	slices.Sort(out)
	return out
}

func TestPlanStaysOnTheOriginRoot(t *testing.T) {
	target, _ := url.Parse(origin + "/api/v1/")
	s := conformant()
	root := s["root"].Build()
	root.Source = "start"
	pin := &checks.PlanInput{Target: target, Crawled: []*exchange.Exchange{root}}
	got := plannedKeys((discovery.RobotsSyntax{}).Plan(pin))
	for _, want := range []string{
		"discovery/robots GET /robots.txt ", "discovery/llms GET /llms.txt ",
		"discovery/api-catalog-head HEAD /.well-known/api-catalog application/linkset+json",
		"discovery/agent-card GET /.well-known/agent-card.json ", "discovery/agent-card-legacy GET /.well-known/agent.json ",
		"discovery/markdown GET / text/markdown", "discovery/markdown-html GET / text/html",
		"discovery/service-doc GET /docs ",
		"discovery/oauth-protected-resource GET /.well-known/oauth-protected-resource application/json",
		"discovery/oauth-authorization-server GET /.well-known/oauth-authorization-server application/json",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, p := range (discovery.RobotsSyntax{}).Plan(pin) {
		if p.Method != "GET" && p.Method != "HEAD" {
			t.Errorf("unsafe method planned: %+v", p)
		}
	}
}

func TestFollowUpChecksLinksWithHEADWithinBounds(t *testing.T) {
	target, _ := url.Parse(origin + "/")
	s := conformant()
	var many strings.Builder
	many.WriteString("# Big\n## API\n")
	for i := range 200 {
		fmt.Fprintf(&many, "- [l%d](/l/%d)\n", i, i)
	}
	many.WriteString("- [off](https://elsewhere.test/x)\n")
	s["llms"].Body(many.String())
	var probes []*exchange.Exchange
	for _, k := range []string{"llms", "catalog", "card", "md"} {
		probes = append(probes, s[k].Build())
	}
	md := s["md"].Build()
	md.Response.Status, md.Response.Header = 406, nil
	root := s["root"].Build()
	root.Source = "start"
	pin := &checks.PlanInput{Target: target, Crawled: []*exchange.Exchange{root}, Probes: probes}
	links := 0
	var sibling bool
	for _, p := range (discovery.LLMsDeadLinks{}).PlanFollowUp(pin) {
		switch p.Purpose {
		case discovery.PurposeLink:
			links++
			if p.Method != "HEAD" || !strings.HasPrefix(p.URL, origin) {
				t.Errorf("bad link check %+v", p)
			}
		case discovery.PurposeMarkdownSibling:
			sibling = p.URL == origin+"/index.html.md"
		}
	}
	if links == 0 || links > 40 {
		t.Errorf("%d link checks, want 1..40", links)
	}
	if !sibling {
		t.Error("no .md sibling asked for a page without a negotiated twin")
	}
}

func TestPlanAsksAServiceDescTargetForItsHintedType(t *testing.T) {
	target, _ := url.Parse(origin + "/")
	s := conformant()
	typedServiceDesc(s, "application/openapi+yaml; version=3.1", 200, "application/yaml")
	pin := &checks.PlanInput{Target: target, Crawled: []*exchange.Exchange{s["root"].Build()}}
	got := plannedKeys((discovery.ServiceDescType{}).Plan(pin))
	if !slices.Contains(got, "discovery/service-desc-typed GET /openapi.json application/openapi+yaml") {
		t.Errorf("plan lacks the typed request:\n%s", strings.Join(got, "\n"))
	}
	if slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, "discovery/service-desc-typed GET /docs") }) {
		t.Errorf("a service-doc link without a hint was asked for a type:\n%s", strings.Join(got, "\n"))
	}
}

func TestFollowUpFetchesDeclaredSitemapsAndSamplesEntries(t *testing.T) {
	target, _ := url.Parse(origin + "/")
	s := conformant()
	var locs []string
	for i := range 30 {
		locs = append(locs, fmt.Sprintf("/p/%d", i))
	}
	s["sitemap"].Body(urlset(append([]string{"/", "https://elsewhere.test/x"}, locs...)...))
	root := s["root"].Build()
	root.Source = "start"
	pin := &checks.PlanInput{Target: target, Crawled: []*exchange.Exchange{root}, Probes: []*exchange.Exchange{s["robots"].Build(), s["sitemap"].Build()}}
	got := plannedKeys((discovery.SitemapEntries{}).PlanFollowUp(pin))
	var entries []string
	for _, k := range got {
		if strings.HasPrefix(k, discovery.PurposeSitemapEntry) {
			entries = append(entries, k)
		}
		if strings.HasPrefix(k, purpose.Sitemap+" ") {
			t.Errorf("the sitemap robots.txt names was fetched again: %s", k)
		}
	}
	// The root was crawled, the foreign entry is never fetched: nine of the
	// ten sampled entries are sent.
	if len(entries) != 9 || !slices.Contains(entries, "discovery/sitemap-entry GET /p/0 ") {
		t.Errorf("entries planned:\n%s", strings.Join(entries, "\n"))
	}
	s["robots"].Body("User-agent: *\nSitemap: " + origin + "/a.xml\nSitemap: /rel.xml\nSitemap: https://elsewhere.test/s.xml\n")
	pin.Probes = []*exchange.Exchange{s["robots"].Build(), s["sitemap"].Build()}
	got = plannedKeys((discovery.SitemapEntries{}).PlanFollowUp(pin))
	if !slices.Contains(got, "discovery/sitemap GET /a.xml ") || slices.ContainsFunc(got, func(k string) bool {
		return strings.HasPrefix(k, discovery.PurposeSitemapEntry) || strings.Contains(k, "rel.xml") || strings.Contains(k, "s.xml")
	}) {
		t.Errorf("plan:\n%s", strings.Join(got, "\n"))
	}
}

// TestAuthorizationServersPlannedOnTheOriginOnly covers the metadata of the
// servers the resource's metadata lists is asked for on the target's origin,
// never elsewhere, and the OpenID configuration only when the RFC 8414
// document is not known to answer.
func TestAuthorizationServersPlannedOnTheOriginOnly(t *testing.T) {
	target, _ := url.Parse(origin + "/")
	prm := get(discovery.PurposeProtectedResource, "/.well-known/oauth-protected-resource").ReqHeader("Accept", "application/json").Status(200).
		Header("Content-Type", "application/json").
		Body(`{"resource":"http://api.test","authorization_servers":["http://api.test","http://api.test/tenant1","https://login.example"]}`).Build()
	as := get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server").ReqHeader("Accept", "application/json").Status(200).Build()
	got := plannedKeys((discovery.RobotsSyntax{}).PlanFollowUp(&checks.PlanInput{Target: target, Probes: []*exchange.Exchange{prm, as}}))
	var auth []string
	for _, k := range got {
		if strings.Contains(k, "oauth-authorization-server") || strings.Contains(k, "openid") || strings.Contains(k, "login.example") {
			auth = append(auth, k)
		}
	}
	want := []string{
		"discovery/oauth-authorization-server GET /.well-known/oauth-authorization-server/tenant1 application/json",
		"discovery/openid-configuration GET /.well-known/openid-configuration/tenant1 application/json",
	}
	if !slices.Equal(auth, want) {
		t.Errorf("planned %q, want %q", auth, want)
	}
}
