// Package discovery checks the documents through which agents find an API
// before they call it, and how to authenticate to it: robots.txt (RFC 9309),
// protected resource and authorization server metadata (RFC 9728, RFC 8414),
// 401 challenges (RFC 9110), llms.txt (a proposal),
// service-desc, service-doc and status links (RFC 8631), the API catalog
// (RFC 9727, RFC 9264), the A2A agent card, the MCP server card and AI
// catalog (experimental proposals) and Markdown twins of pages (RFC 7763
// over RFC 9110 negotiation). It judges whether they are right,
// not merely whether they exist.
//
// Every document is fetched with GET (HEAD where a rule is about HEAD) on the
// target's origin, in two bounded rounds: the documents themselves, planned
// from the crawl, and then a follow-up round that checks the links found
// inside them (at most maxLinkChecks requests, HEAD only).
package discovery

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/agentskills"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/internal/webbotauth"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/urlx"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		RobotsUnreachable{}, RobotsForbidden{}, RobotsSyntax{}, RobotsSize{}, RobotsBlocksAdvertised{}, RobotsSitemap{}, RobotsMediaType{},
		LLMsTitle{}, LLMsListItems{}, LLMsDeadLinks{}, LLMsOptionalOrder{},
		ServiceDesc{}, ServiceLinks{}, ServiceDescMissing{}, ServiceDescType{}, LinkHeaderDeadLinks{},
		CatalogHead{}, CatalogLinkset{}, CatalogLinks{},
		AgentCardLegacy{}, AgentCardFields{}, AgentCardSkills{}, AgentCardInterfaces{}, AgentCardCaching{},
		MarkdownCharset{}, MarkdownVary{}, MarkdownTwin{}, MarkdownDeadLinks{},
		MCPCardFormat{}, MCPCardRemotes{}, AICatalog{},
		SitemapUnreachable{}, SitemapFormat{}, SitemapEntries{}, SitemapCoverage{},
		LLMsFull{}, LLMsFullDeadLinks{},
		ContentSignalSyntax{}, ContentSignalContradiction{}, ContentSignalPlacement{},
		WebBotAuthDirectory{}, SkillsIndex{}, SkillsArtifacts{},
		X402Challenge{}, X402Declared{},
		AuthChallenge{}, ProtectedResource{}, AuthorizationServer{},
	}
}

// Probe purposes only this family reads; those surface and drift read too
// are named in checks/internal/purpose.
const (
	PurposeRobots      = "discovery/robots"
	PurposeCatalog     = "discovery/api-catalog"
	PurposeCatalogHead = "discovery/api-catalog-head"
	PurposeServiceDesc = "discovery/service-desc"
	// PurposeServiceDescTyped asks a service-desc target for the media type
	// its link's type hint names.
	PurposeServiceDescTyped = "discovery/service-desc-typed"
	PurposeServiceDoc       = "discovery/service-doc"
	PurposeStatus           = "discovery/status"
	PurposeMarkdown         = "discovery/markdown"
	PurposeMarkdownHTML     = "discovery/markdown-html"
	PurposeMarkdownAlt      = "discovery/markdown-alternate"
	PurposeMarkdownSibling  = "discovery/markdown-sibling"
	// PurposeMCPCard is a GET of an MCP server card: at the reserved
	// location below an MCP endpoint, or where the AI catalog points.
	PurposeMCPCard   = "discovery/mcp-server-card"
	PurposeAICatalog = "discovery/ai-catalog"
	// PurposeLink is the follow-up HEAD sent to a link found in a document;
	// its BasedOn is the link's own absolute URL.
	PurposeLink = "discovery/link"
)

// Well-known locations, resolved against the target's origin.
const (
	robotsPath          = "/robots.txt"
	llmsPath            = "/llms.txt"
	catalogPath         = "/.well-known/api-catalog"
	agentCardPath       = "/.well-known/agent-card.json"
	agentCardLegacyPath = "/.well-known/agent.json"
)

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

// plans is embedded by every check of the family: they share one plan and
// one follow-up, which the probe de-duplicates.
type plans struct{}

// Plan asks for the well-known documents, the service links the crawl saw,
// and the Markdown variants of the start page and sampled HTML pages.
func (plans) Plan(in *checks.PlanInput) []exchange.PlannedRequest {
	if in.Target == nil {
		return nil
	}
	get := func(purpose, path, accept string) exchange.PlannedRequest {
		return request(purpose, http.MethodGet, wellKnown(in.Target, path), accept, wellKnown(in.Target, path))
	}
	out := []exchange.PlannedRequest{
		get(PurposeRobots, robotsPath, ""),
		get(purpose.LLMs, llmsPath, ""),
		get(PurposeCatalog, catalogPath, acceptLinkset),
		request(PurposeCatalogHead, http.MethodHead, wellKnown(in.Target, catalogPath), acceptLinkset, wellKnown(in.Target, catalogPath)),
		get(purpose.AgentCard, agentCardPath, ""),
		get(purpose.AgentCardLegacy, agentCardLegacyPath, ""),
		get(PurposeAICatalog, aiCatalogPath, acceptAICatalog),
		get(purpose.Sitemap, sitemapPath, ""),
		get(PurposeLLMsFull, llmsFullPath, ""),
		get(PurposeWebBotAuth, webbotauth.Path, ""),
		get(purpose.SkillsIndex, agentskills.Path, ""),
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

// doc returns the exchange of a well-known document, or nil.
func doc(in *checks.Input, purpose, path string) *exchange.Exchange {
	if in.Target == nil {
		return nil
	}
	return in.Probe(purpose, wellKnown(in.Target, path))
}

// sent finds a request by purpose, or else by what was sent: another family
// may have planned the very same request under its own purpose, and the
// probe sent it once.
func sent(in *checks.Input, purpose, method, u, accept string) *exchange.Exchange {
	if x := in.Probe(purpose, u); x != nil {
		return x
	}
	return findSent(in.Recording.Exchanges, method, u, accept)
}

func ok2xx(x *exchange.Exchange) bool {
	return x != nil && x.Response != nil && x.Response.Status >= 200 && x.Response.Status < 300
}

// dead reports a link that does not answer: no response, 404, 410 or a
// server error. Any other answer (405 to a HEAD on an RPC endpoint, 401 on
// a protected resource) proves the resource is there.
func dead(x *exchange.Exchange) bool {
	if x == nil {
		return false // not checked: over the bound or another origin
	}
	if x.Response == nil {
		return true
	}
	s := x.Response.Status
	return s == http.StatusNotFound || s == http.StatusGone || s >= 500
}

func statusText(x *exchange.Exchange) string {
	if x.Response == nil {
		return "no response (" + x.Err + ")"
	}
	return http.StatusText(x.Response.Status) + " (" + strconv.Itoa(x.Response.Status) + ")"
}

func evidence(x *exchange.Exchange, responseHeaders ...string) finding.Evidence {
	return checks.Evidence(x, []string{"Accept"}, append([]string{"Content-Type"}, responseHeaders...))
}

func ref(doc, section, level, u string) finding.SpecRef {
	return finding.SpecRef{Doc: doc, Section: section, Level: level, URL: u}
}

// isHTML reports a 2xx HTML answer: a catch-all page, not the document asked for.
func isHTML(x *exchange.Exchange) bool {
	if !ok2xx(x) {
		return false
	}
	mt := x.Response.MediaType()
	return mt == "text/html" || mt == "application/xhtml+xml"
}
