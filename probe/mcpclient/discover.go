package mcpclient

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/linkheader"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/urlx"
)

// MaxEndpoints bounds how many advertised endpoints are examined.
const MaxEndpoints = 4

// PurposeDiscovery tags the GETs of discovery documents.
const PurposeDiscovery = "mcp/discovery"

// mcpRel matches a link relation that names MCP: "mcp", "ex:mcp",
// "https://example.com/rels/mcp", "mcp-server", or any relation under the
// modelcontextprotocol.io namespace.
var mcpRel = regexp.MustCompile(`(?i)(^|[/:#._-])mcp($|[/:#._-])|modelcontextprotocol`)

// Advertised finds endpoints that the crawled responses advertise: Link
// headers and HAL links whose relation names MCP. Only the target's origin
// is accepted. It is pure.
func Advertised(target *url.URL, crawled []*exchange.Exchange) []mcp.Endpoint {
	var out []mcp.Endpoint
	add := func(base *url.URL, ref, source string) {
		u, err := base.Parse(strings.TrimSpace(ref))
		if err != nil || !urlx.SameOrigin(u, target) {
			return
		}
		u.Fragment = ""
		out = appendEndpoint(out, mcp.Endpoint{URL: u.String(), Source: source})
	}
	for _, x := range crawled {
		if x.Response == nil {
			continue
		}
		base, err := url.Parse(x.Request.URL)
		if err != nil {
			continue
		}
		path := exchange.PathOf(x.Request.URL)
		for _, l := range linkheader.Parse(x.Response.Header.Values("Link")) {
			if l.Anchored() {
				continue // about another resource
			}
			for _, rel := range l.Rels {
				if mcpRel.MatchString(rel) {
					add(base, l.Target, "Link rel="+rel+" on "+path)
					break
				}
			}
		}
		if exchange.IsJSONMediaType(x.Response.MediaType()) && !x.Response.Dropped && !x.Response.Truncated {
			for _, l := range halLinks(x.Response) {
				add(base, l[1], "HAL _links."+l[0]+" on "+path)
			}
		}
	}
	return out
}

// halLinks returns [relation, href] pairs of top-level _links whose relation
// names MCP, in relation order.
func halLinks(r *exchange.Response) [][2]string {
	if !mayNameMCP(r.Body) {
		return nil
	}
	root := r.ReadHAL().Root
	if root == nil {
		return nil
	}
	var out [][2]string
	for _, rel := range root.SortedRelations() {
		if !mcpRel.MatchString(rel.Name) {
			continue
		}
		for _, l := range rel.Links {
			if l.Href != "" {
				out = append(out, [2]string{rel.Name, l.Href})
			}
		}
	}
	return out
}

// mayNameMCP is false for a body in which no relation can match mcpRel:
// one without "mcp" or "modelcontextprotocol" in any case, and without a
// \u escape that could spell them. It spares decoding every crawled page.
func mayNameMCP(body []byte) bool {
	return bytes.Contains(body, []byte(`\u`)) || containsFold(body, "mcp") || containsFold(body, "modelcontextprotocol")
}

// containsFold reports whether body holds the lower-case ASCII word in any
// case.
func containsFold(body []byte, word string) bool {
	for i := 0; i+len(word) <= len(body); i++ {
		j := 0
		for j < len(word) && body[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// appendEndpoint adds ep unless the list is full or holds it. An endpoint
// read from a scrubbed document whose URL held a credential is left out:
// its real URL is not known.
func appendEndpoint(list []mcp.Endpoint, ep mcp.Endpoint) []mcp.Endpoint {
	if len(list) >= MaxEndpoints || exchange.HoldsRedaction(ep.URL) {
		return list
	}
	for _, e := range list {
		if e.URL == ep.URL {
			return list
		}
	}
	return append(list, ep)
}

// documentPaths are read, in order, when nothing was advertised in the crawl.
var documentPaths = []string{"/llms.txt", "/.well-known/agent-card.json"}

// maxDocument bounds a discovery document.
const maxDocument = 256 << 10

// Discover lists the target's MCP endpoints: the one the user named first,
// then what the crawl advertised; failing that, endpoints mentioned in
// llms.txt or the agent card (fetched with GET); failing that, /mcp. The
// exchanges of the document fetches are returned for the recording.
func Discover(ctx context.Context, cfg Config, target *url.URL, named string, crawled []*exchange.Exchange) ([]mcp.Endpoint, []*exchange.Exchange) {
	var eps []mcp.Endpoint
	if named != "" {
		eps = append(eps, mcp.Endpoint{URL: named, Source: "--mcp"})
	}
	for _, ep := range Advertised(target, crawled) {
		eps = appendEndpoint(eps, ep)
	}
	if len(eps) > 0 {
		return eps, nil
	}
	var fetched []*exchange.Exchange
	for _, p := range documentPaths {
		u := &url.URL{Scheme: target.Scheme, Host: target.Host, Path: p}
		x := fetchDocument(ctx, cfg, u)
		fetched = append(fetched, x)
		if x.Response == nil || x.Response.Status != http.StatusOK {
			continue
		}
		for _, ref := range mentions(x.Response.Body) {
			ru, err := u.Parse(ref)
			if err != nil || !urlx.SameOrigin(ru, target) {
				continue
			}
			eps = appendEndpoint(eps, mcp.Endpoint{URL: ru.String(), Source: p})
		}
	}
	if len(eps) == 0 {
		u := &url.URL{Scheme: target.Scheme, Host: target.Host, Path: "/mcp"}
		eps = append(eps, mcp.Endpoint{URL: u.String(), Source: mcp.SourceConventional})
	}
	return eps, fetched
}

func fetchDocument(ctx context.Context, cfg Config, u *url.URL) *exchange.Exchange {
	cfg.MaxBody = maxDocument
	c := newClient(cfg, u)
	defer c.close()
	h := c.baseHeader()
	h.Set("Accept", "text/plain, text/markdown, application/json;q=0.9, */*;q=0.1")
	return c.send(ctx, http.MethodGet, h, nil, "1", PurposeDiscovery)
}

var (
	markdownLink = regexp.MustCompile(`\[([^\]]{0,200})\]\(\s*<?([^)\s>]{1,1000})>?`)
	bareURL      = regexp.MustCompile(`https?://[^\s"'<>)\]]{1,1000}`)
	mcpWord      = regexp.MustCompile(`(?i)\bmcp\b|model context protocol`)
)

// mentions extracts URLs that a document associates with MCP: Markdown links
// whose text or target names MCP, bare URLs whose path names MCP, and in
// JSON, string values that are such URLs. It reads a bounded prefix.
func mentions(body []byte) []string {
	text := string(body[:min(len(body), maxDocument)])
	var out []string
	for _, m := range markdownLink.FindAllStringSubmatch(text, 200) {
		if mcpWord.MatchString(m[1]) || pathNamesMCP(m[2]) {
			out = append(out, m[2])
		}
	}
	for _, m := range bareURL.FindAllString(text, 200) {
		if pathNamesMCP(m) {
			out = append(out, m)
		}
	}
	return out
}

func pathNamesMCP(ref string) bool {
	u, err := url.Parse(ref)
	if err != nil {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if strings.EqualFold(seg, "mcp") {
			return true
		}
	}
	return false
}
