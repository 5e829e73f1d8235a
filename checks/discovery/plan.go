package discovery

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/agentskills"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/internal/webbotauth"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/urlx"
)

// What the family asks the probe to send: one plan and one follow-up that
// every check shares (plans), and the Markdown twins a page-by-page check
// plans alone (twinPlans).

// Bounds on what the family asks the probe to send.
const (
	maxServiceLinks  = 10 // distinct service-desc, service-doc and status targets
	maxMarkdownPages = 10 // pages probed for a Markdown twin
	maxLinksPerDoc   = 15 // links checked per document
	maxLinkChecks    = 40 // follow-up HEADs in all
)

// Accept headers of the discovery probes.
const (
	acceptMarkdown = "text/markdown"
	acceptHTML     = "text/html"
	acceptLinkset  = "application/linkset+json"
	acceptOpenAPI  = "application/openapi+json, application/vnd.oai.openapi+json, application/json, application/openapi+yaml, application/yaml;q=0.9, */*;q=0.1"
)

// document is a discovery document at a fixed path of the target's origin:
// the family asks for it on every scan, and its checks read the answer back
// with fetched.
type document struct {
	purpose, method, path, accept string
}

// The documents at fixed paths, and the order they are asked for in.
// A new document is one more value, listed in documents.
var (
	docRobots          = document{PurposeRobots, http.MethodGet, robotsPath, ""}
	docLLMs            = document{purpose.LLMs, http.MethodGet, llmsPath, ""}
	docCatalog         = document{PurposeCatalog, http.MethodGet, catalogPath, acceptLinkset}
	docCatalogHead     = document{PurposeCatalogHead, http.MethodHead, catalogPath, acceptLinkset}
	docAgentCard       = document{purpose.AgentCard, http.MethodGet, agentCardPath, ""}
	docAgentCardLegacy = document{purpose.AgentCardLegacy, http.MethodGet, agentCardLegacyPath, ""}
	docAICatalog       = document{PurposeAICatalog, http.MethodGet, aiCatalogPath, acceptAICatalog}
	docSitemap         = document{purpose.Sitemap, http.MethodGet, sitemapPath, ""}
	docLLMsFull        = document{PurposeLLMsFull, http.MethodGet, llmsFullPath, ""}
	docWebBotAuth      = document{PurposeWebBotAuth, http.MethodGet, webbotauth.Path, ""}
	docSkills          = document{purpose.SkillsIndex, http.MethodGet, agentskills.Path, ""}

	documents = []document{docRobots, docLLMs, docCatalog, docCatalogHead, docAgentCard, docAgentCardLegacy,
		docAICatalog, docSitemap, docLLMsFull, docWebBotAuth, docSkills}
)

// fetched is the exchange of d, or nil when it was not fetched.
func (d document) fetched(in *checks.Input) *exchange.Exchange {
	if in.Target == nil {
		return nil
	}
	return in.Probe(d.purpose, wellKnown(in.Target, d.path))
}

// plans is embedded by every check of the family: they share one plan and
// one follow-up, which the probe de-duplicates.
type plans struct{}

// Plan asks for the well-known documents, the service links the crawl saw,
// and the Markdown variants of the start page and sampled HTML pages.
func (plans) Plan(in *checks.PlanInput) []exchange.PlannedRequest {
	if in.Target == nil {
		return nil
	}
	var out []exchange.PlannedRequest
	for _, d := range documents {
		u := wellKnown(in.Target, d.path)
		out = append(out, request(d.purpose, d.method, u, d.accept, u))
	}
	out = append(out, planAuthDocs(in.Target)...)
	for _, ep := range cardEndpoints(in.Target, in.Crawled) {
		card := serverCardURL(ep)
		out = append(out, request(PurposeMCPCard, http.MethodGet, card, acceptServerCard, card))
	}
	for _, l := range serviceLinks(in.Crawled) {
		accept := ""
		if l.purpose == PurposeServiceDesc {
			accept = acceptOpenAPI
		}
		out = append(out, request(l.purpose, http.MethodGet, l.target, accept, l.target))
		if hint := l.hintedType(); l.purpose == PurposeServiceDesc && hint != "" {
			out = append(out, request(PurposeServiceDescTyped, http.MethodGet, l.target, hint, l.target))
		}
	}
	out = append(out, planTwins(in)...)
	for _, alt := range markdownAlternates(append(slices.Clone(in.Crawled), in.Samples...)) {
		out = append(out, request(PurposeMarkdownAlt, http.MethodGet, alt.target, acceptMarkdown, alt.page))
	}
	return out
}

// twinPlans is the share of the family's plan that is about one page each:
// the Markdown and HTML variants of the start page and sampled HTML pages.
// A check that judges pages one by one embeds it instead of plans, so that
// a split scan sends it in each page's shard.
type twinPlans struct{}

func (twinPlans) Plan(in *checks.PlanInput) []exchange.PlannedRequest {
	if in.Target == nil {
		return nil
	}
	return planTwins(in)
}

func planTwins(in *checks.PlanInput) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, page := range markdownPages(in.Target, in.Crawled, in.Samples) {
		out = append(out,
			request(PurposeMarkdown, http.MethodGet, page, acceptMarkdown, page),
			request(PurposeMarkdownHTML, http.MethodGet, page, acceptHTML, page))
	}
	return out
}

// PlanFollowUp checks, with HEAD, the links inside the documents the first
// round fetched, and asks for the .md sibling of pages that had no
// negotiated twin.
func (plans) PlanFollowUp(in *checks.PlanInput) []exchange.PlannedRequest {
	if in.Target == nil {
		return nil
	}
	byPurpose := map[string][]*exchange.Exchange{}
	for _, x := range in.Probes {
		byPurpose[x.Purpose] = append(byPurpose[x.Purpose], x)
	}
	var out []exchange.PlannedRequest
	seen := map[string]bool{}
	for _, link := range followUpLinks(in, byPurpose) {
		if len(seen) >= maxLinkChecks {
			break
		}
		if !seen[link] {
			seen[link] = true
			out = append(out, request(PurposeLink, http.MethodHead, link, "", link))
		}
	}
	for _, page := range markdownPages(in.Target, in.Crawled, in.Samples) {
		if x := findSent(in.Probes, http.MethodGet, page, acceptMarkdown); x != nil && !isMarkdown(x) {
			out = append(out, request(PurposeMarkdownSibling, http.MethodGet, siblingURL(page), acceptMarkdown, page))
		}
	}
	// The HTML answers of round 1 may carry <link rel="alternate"
	// type="text/markdown">, which the crawl (asking for JSON) never saw.
	for _, alt := range markdownAlternates(htmlAnswers(markdownPages(in.Target, in.Crawled, in.Samples), in.Probes)) {
		out = append(out, request(PurposeMarkdownAlt, http.MethodGet, alt.target, acceptMarkdown, alt.page))
	}
	for _, x := range byPurpose[PurposeAICatalog] {
		for _, card := range catalogCardLinks(in.Target, x) {
			out = append(out, request(PurposeMCPCard, http.MethodGet, card, acceptServerCard, card))
		}
	}
	out = append(out, planSitemaps(in.Target, byPurpose)...)
	out = append(out, planSkills(in.Target, byPurpose)...)
	out = append(out, planAuthServers(in.Target, in.Probes)...)
	return append(out, planSitemapEntries(in, byPurpose)...)
}

// findSent finds a request by what was sent, whatever family planned it.
func findSent(xs []*exchange.Exchange, method, u, accept string) *exchange.Exchange {
	for _, x := range xs {
		if x.Request.Method == method && x.Request.URL == u && x.Request.Header.Get("Accept") == accept {
			return x
		}
	}
	return nil
}

// followUpLinks lists, in a stable order, the same-origin links of every
// fetched document, at most maxLinksPerDoc per document.
func followUpLinks(in *checks.PlanInput, byPurpose map[string][]*exchange.Exchange) []string {
	target := in.Target
	var out []string
	for _, x := range byPurpose[purpose.LLMs] {
		out = append(out, capLinks(llmsLinks(target, x))...)
	}
	for _, x := range byPurpose[PurposeCatalog] {
		out = append(out, capLinks(catalogTargets(target, x))...)
	}
	for _, purpose := range []string{purpose.AgentCard, purpose.AgentCardLegacy} {
		for _, x := range byPurpose[purpose] {
			out = append(out, capLinks(interfaceURLs(target, x))...)
		}
	}
	for _, page := range markdownPages(target, in.Crawled, in.Samples) {
		if x := findSent(in.Probes, http.MethodGet, page, acceptMarkdown); x != nil {
			out = append(out, capLinks(twinLinks(target, x))...)
		}
	}
	for _, x := range byPurpose[PurposeMarkdownAlt] {
		out = append(out, capLinks(twinLinks(target, x))...)
	}
	for _, x := range byPurpose[PurposeLLMsFull] {
		out = append(out, capLinks(llmsLinks(target, x))...)
	}
	return out
}

func capLinks(links []resolvedLink) []string {
	var out []string
	for _, l := range links {
		if l.sameOrigin && len(out) < maxLinksPerDoc {
			out = append(out, l.url)
		}
	}
	return out
}

func request(purpose, method, u, accept, basedOn string) exchange.PlannedRequest {
	h := http.Header{}
	if accept != "" {
		h.Set("Accept", accept)
	}
	return exchange.PlannedRequest{Purpose: purpose, Method: method, URL: u, Header: h, BasedOn: basedOn}
}

// wellKnown resolves an absolute path against the target's origin: discovery
// documents live at the top of the origin whatever path the scan started at.
func wellKnown(target *url.URL, path string) string {
	u := url.URL{Scheme: target.Scheme, Host: target.Host, Path: path}
	return u.String()
}

// resolvedLink is a reference from a document, resolved against it.
type resolvedLink struct {
	ref        string // as written
	url        string // absolute, without fragment
	sameOrigin bool
}

// resolve resolves refs against base, dropping what is not http(s) (mailto:,
// fragments alone) and what does not parse.
func resolve(target *url.URL, base string, refs []string) []resolvedLink {
	b, err := url.Parse(base)
	if err != nil {
		return nil
	}
	var out []resolvedLink
	for _, ref := range refs {
		r, err := url.Parse(strings.TrimSpace(ref))
		if err != nil || ref == "" || strings.HasPrefix(ref, "#") {
			continue
		}
		u := b.ResolveReference(r)
		if u.Scheme != "http" && u.Scheme != "https" {
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		if u.Path == "" {
			u.Path = "/"
		}
		out = append(out, resolvedLink{ref: ref, url: u.String(), sameOrigin: urlx.SameOrigin(u, target)})
	}
	return out
}
