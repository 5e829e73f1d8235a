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
// inside them (at most maxLinkChecks requests, HEAD only); plan.go holds
// both, and lists the documents at fixed paths once (documents). Each
// document's checks sit in a file named for it (robots.go,
// sitemap.go, llms.go, agentcard.go, catalog.go, markdown.go, …), and its
// cases in the test file beside it, each a change to one conformant site
// (discovery_test.go).
package discovery

import (
	"net/http"
	"strconv"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		RobotsUnreachable{}, RobotsForbidden{}, RobotsSyntax{}, RobotsSize{}, RobotsBlocksAdvertised{}, RobotsSitemap{}, RobotsMediaType{},
		LLMsTitle{}, LLMsListItems{}, LLMsDeadLinks{}, LLMsOptionalOrder{},
		ServiceDesc{}, ServiceLinks{}, ServiceDescMissing{}, ServiceDescType{}, LinkHeaderDeadLinks{},
		CatalogHead{}, CatalogLinkset{}, CatalogLinks{},
		AgentCardLegacy{}, AgentCardFields{}, AgentCardSkills{}, AgentCardInterfaces{}, AgentCardCaching{},
		MarkdownCharset{}, MarkdownVary{}, MarkdownTwin{}, MarkdownDeadLinks{}, MarkdownDivergent{},
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
	PurposeRobots      = purpose.Robots
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
	llmsPath            = purpose.LLMsPath
	catalogPath         = "/.well-known/api-catalog"
	agentCardPath       = purpose.AgentCardPath
	agentCardLegacyPath = "/.well-known/agent.json"
)

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
