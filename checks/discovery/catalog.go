package discovery

import (
	"context"
	"fmt"
	"net/url"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/linkset"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/linkheader"
)

func rfc9727(section, level string) finding.SpecRef {
	return ref("RFC 9727", section, level, "https://www.rfc-editor.org/rfc/rfc9727#section-"+section)
}

// catalogDoc is the API catalog exchange, when the site publishes one.
func catalogDoc(in *checks.Input) (*exchange.Exchange, error) {
	x := docCatalog.fetched(in)
	switch {
	case x == nil || x.Response == nil:
		return nil, checks.Skip("/.well-known/api-catalog was not fetched or got no response")
	case !ok2xx(x):
		return nil, checks.Skip(fmt.Sprintf("/.well-known/api-catalog answered %d: the site publishes none", x.Response.Status))
	case isHTML(x):
		return nil, checks.Skip("/.well-known/api-catalog answered an HTML page")
	}
	return x, nil
}

// parseCatalog parses a catalog body as a linkset, whatever its media type.
func parseCatalog(x *exchange.Exchange) (*linkset.Linkset, error) {
	if x.Response.Truncated || x.Response.Dropped {
		return nil, fmt.Errorf("the body was cut at the size limit")
	}
	return linkset.Parse(x.Response.Body)
}

// catalogTargets are the service-desc targets of a catalog, resolved.
func catalogTargets(target *url.URL, x *exchange.Exchange) []resolvedLink {
	if !ok2xx(x) || x.Response == nil {
		return nil
	}
	ls, err := parseCatalog(x)
	if err != nil {
		return nil
	}
	var refs []string
	for _, t := range ls.WithRel("service-desc") {
		refs = append(refs, t.Href)
	}
	return resolve(target, x.Request.URL, refs)
}

// CatalogHead reports an API catalog whose HEAD lacks the api-catalog Link.
type CatalogHead struct{ plans }

func (CatalogHead) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-api-catalog-head", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "HEAD /.well-known/api-catalog carries Link rel=api-catalog",
		SpecRefs: []finding.SpecRef{rfc9727("2", "SHALL")},
		Help: `RFC 9727 §2: the publisher SHALL answer a HEAD request to ` + "`/.well-known/api-catalog`" + `
with a ` + "`Link`" + ` header whose relation is ` + "`api-catalog`" + `, so that clients can discover the
catalog without downloading it.

**How to fix:** answer HEAD with 200 and ` + "`Link: </.well-known/api-catalog>; rel=\"api-catalog\"`" + `.`,
	}
}

func (c CatalogHead) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	if _, err := catalogDoc(in); err != nil {
		return nil, err
	}
	h := docCatalogHead.fetched(in)
	if h == nil {
		return nil, checks.Skip("HEAD /.well-known/api-catalog was not sent")
	}
	if ok2xx(h) && len(linkheader.WithRel(h.Response.Links(), "api-catalog")) > 0 {
		return nil, nil
	}
	actual := "no Link with rel=api-catalog"
	if !ok2xx(h) {
		actual = "answered " + statusText(h)
	}
	ev := evidence(h, "Link")
	ev.Header, ev.Expected, ev.Actual = "Link", `Link: </.well-known/api-catalog>; rel="api-catalog"`, actual
	return []finding.Finding{checks.New(c.Meta(), "", "HEAD /.well-known/api-catalog "+actual, ev)}, nil
}

// CatalogLinkset reports a catalog that is not an RFC 9264 linkset.
type CatalogLinkset struct{ plans }

func (CatalogLinkset) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-api-catalog-linkset", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "The API catalog is an application/linkset+json linkset",
		SpecRefs: []finding.SpecRef{rfc9727("4.2", "MUST"), rfc9727("4.1", "MUST"), ref("RFC 9264", "4.2", "MUST", "https://www.rfc-editor.org/rfc/rfc9264#section-4.2")},
		Help: `RFC 9727 §4.2: the API catalog MUST be available as a linkset in the
` + "`application/linkset+json`" + ` format (RFC 9264 §4.2): a JSON object whose ` + "`linkset`" + ` array
holds link context objects, each relation mapping to an array of ` + "`{\"href\": …}`" + ` targets.
§4.1: it MUST link to the APIs it catalogs. Other formats may be offered on request,
but not instead.

**How to fix:** serve ` + "`{\"linkset\":[{\"anchor\":\"https://…/api\",\"service-desc\":[{\"href\":\"…/openapi.json\"}]}]}`" + `
with ` + "`Content-Type: application/linkset+json`" + `.`,
	}
}

func (c CatalogLinkset) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, err := catalogDoc(in)
	if err != nil {
		return nil, err
	}
	var problem, pointer string
	if mt := x.Response.MediaType(); mt != "application/linkset+json" {
		problem = fmt.Sprintf("is served as %q, not application/linkset+json", x.Response.Header.Get("Content-Type"))
	} else if ls, err := parseCatalog(x); err != nil {
		problem = "is not a linkset: " + err.Error()
	} else if len(ls.Problems) > 0 {
		problem, pointer = ls.Problems[0].Message, ls.Problems[0].Pointer
		if len(ls.Problems) > 1 {
			problem += fmt.Sprintf(" (and %d more)", len(ls.Problems)-1)
		}
	} else if links(ls) == 0 {
		problem = "links to no API"
	}
	if problem == "" {
		return nil, nil
	}
	ev := evidence(x)
	ev.Expected, ev.Actual, ev.JSONPointer, ev.Excerpt = "an application/linkset+json linkset", problem, pointer, checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", "/.well-known/api-catalog "+problem, ev)}, nil
}

func links(ls *linkset.Linkset) int {
	n := 0
	for _, c := range ls.Contexts {
		n += len(c.Links)
	}
	return n
}

// CatalogLinks reports service-desc entries of the catalog that do not resolve.
type CatalogLinks struct{ plans }

func (CatalogLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-api-catalog-links", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "The API catalog's service-desc entries resolve",
		SpecRefs: []finding.SpecRef{rfc9727("4.1", "MUST"), rfc8631("4.1", "SHOULD")},
		Help: `Each ` + "`service-desc`" + ` of an API catalog is where an agent goes next to learn an API. An
entry whose target answers 404, 410 or a server error lists an API nobody can read.

Targets on the target's origin are checked with HEAD.

**How to fix:** update the catalog when descriptions move; generate it from the
same source as the descriptions.`,
	}
}

func (c CatalogLinks) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, err := catalogDoc(in)
	if err != nil {
		return nil, err
	}
	targets := catalogTargets(in.Target, x)
	if len(targets) == 0 {
		return nil, checks.Skip("the API catalog has no service-desc entry")
	}
	return deadLinks(in, c.Meta(), "/.well-known/api-catalog service-desc", targets), nil
}
