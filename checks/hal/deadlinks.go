package hal

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
)

// notFollowedHere are relations whose targets this check leaves alone:
// curies point at documentation templates, and the RFC 8631 relations are
// fetched and judged by the discovery family with its own requests.
var notFollowedHere = map[string]bool{"curies": true, "service-desc": true, "service-doc": true, "status": true}

// DeadLinks reports links of HAL documents whose target the crawl followed
// and found missing.
type DeadLinks struct{}

// Parts implements checks.WithParts like every check of the family.
func (DeadLinks) Parts() []checks.Part {
	return hypermedia.Parts()
}

func (DeadLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "hal-dead-links", Family: checks.FamilyHAL, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "Links of HAL documents do not lead to 404 or 410",
		SpecRefs: []finding.SpecRef{
			draft("5.1", ""),
			{Doc: "RFC 9110", Section: "15.5.5", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.5"},
			{Doc: "RFC 9110", Section: "15.5.11", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.11"},
		},
		Help: `An agent navigating a HAL API does what its links say: it picks a relation and
requests its ` + "`href`" + `. A link whose target answers 404 Not Found or 410 Gone
(RFC 9110 §15.5.5, §15.5.11) offers an action that does not exist, and the agent
spends a request, and often its plan, on it. The crawl follows the links it
finds; each dead target is reported once, with the document that links to it
and the relation.

Links meant to be read are reported at warning: registered relations such as
` + "`self`" + `, ` + "`next`" + ` or ` + "`item`" + `, links to a ` + "`/.well-known/`" + ` URI, and, with an
OpenAPI document, any relation whose target path has a GET operation or no
operation at all. Any other relation, such as ` + "`pay`" + `, may name a POST-only
resource, to which many routers answer GET with 404: its dead target is
reported at info, saying so.
Templated links are not judged (the crawl fills them in with its own values),
nor are ` + "`curies`" + ` and the ` + "`service-desc`" + `, ` + "`service-doc`" + ` and ` + "`status`" + `
relations, which the discovery family checks.

**How to fix:** build links from the same data that serves their targets, drop
links to resources that were deleted, and fix the ` + "`href`" + ` named in the finding.`,
	}
}

func (c DeadLinks) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	docs := hypermedia.HALDocs(in)
	if len(docs) == 0 {
		return nil, checks.Skip("no crawled response was served as application/hal+json")
	}
	var issues []hypermedia.Issue
	reported := map[string]bool{}
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if d.HAL == nil || d.HAL.Root == nil {
			continue
		}
		eachResource(d.HAL.Root, func(r *halview.Resource) {
			for _, rel := range r.Relations {
				if notFollowedHere[rel.Name] {
					continue
				}
				for _, l := range rel.Links {
					if l.Templated || l.Href == "" || strings.ContainsAny(l.Href, "{}") {
						continue
					}
					t := in.CrawledTarget(d.X.Request.URL, l.Href)
					if !checks.Gone(t) || reported[t.Request.URL] {
						continue
					}
					reported[t.Request.URL] = true
					is := deadLink(d.X, rel.Name, l, t)
					if !in.ReadLink(rel.Name, t.Request.URL) {
						is.Adjust = checks.MaybeAction
					}
					issues = append(issues, is)
				}
			}
		})
	}
	return hypermedia.Findings(c.Meta(), issues), nil
}

func deadLink(x *exchange.Exchange, rel string, l halview.Link, target *exchange.Exchange) hypermedia.Issue {
	href := l.Value.Get("href")
	status := fmt.Sprint(target.Response.Status)
	return hypermedia.Issue{
		X: x, Pointer: href.Pointer, Value: l.Value, Related: target,
		Subject:  rel + " " + exchange.PathOf(target.Request.URL),
		Message:  fmt.Sprintf("relation %s of %s links to %s, which answered %s", rel, exchange.PathOf(x.Request.URL), l.Href, status),
		Expected: "a resource", Actual: status,
	}
}

// eachResource calls fn with r and every resource embedded in it.
func eachResource(r *halview.Resource, fn func(*halview.Resource)) {
	fn(r)
	for _, e := range r.Embedded {
		for _, er := range e.Resources {
			eachResource(er, fn)
		}
	}
}
