package discovery

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/linkheader"
	"github.com/agentready/agentready/internal/mcp"
)

// MCP server cards (SEP-2127) and the AI catalog that lists them are
// experimental proposals outside any released MCP revision: every finding
// here is info.

const (
	aiCatalogPath      = "/.well-known/ai-catalog.json"
	serverCardSuffix   = "/server-card"
	mediaServerCard    = "application/mcp-server-card+json"
	acceptServerCard   = mediaServerCard + ", application/json;q=0.9"
	acceptAICatalog    = "application/ai-catalog+json, application/json;q=0.9"
	conventionalMCP    = "/mcp"
	maxCardEndpoints   = 3 // MCP endpoints whose reserved card location is tried
	maxCatalogCards    = 5 // server cards followed from the AI catalog
	serverCardSpecURL  = "https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/main/docs/discovery.md"
	serverCardProposal = "MCP Server Card (SEP-2127, experimental)"
)

func serverCardRef(section string) finding.SpecRef {
	return ref(serverCardProposal, section, "proposal", serverCardSpecURL)
}

// cardEndpoints are the MCP endpoints known before the MCP probe runs: the
// same-origin targets of Link rel="mcp" in crawled responses, else the
// conventional /mcp. The reserved card location hangs below each.
func cardEndpoints(target *url.URL, crawled []*exchange.Exchange) []string {
	var out []string
	for _, x := range crawled {
		if x.Response == nil {
			continue
		}
		for _, l := range linkheader.WithRel(x.Response.Links(), "mcp") {
			for _, r := range resolve(target, x.Request.URL, []string{l.Target}) {
				if r.sameOrigin && !slices.Contains(out, r.url) && len(out) < maxCardEndpoints {
					out = append(out, r.url)
				}
			}
		}
	}
	if len(out) == 0 {
		out = append(out, wellKnown(target, conventionalMCP))
	}
	return out
}

// serverCardURL is the reserved default location of an endpoint's card.
func serverCardURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint + serverCardSuffix
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/") + serverCardSuffix
	u.RawPath = ""
	return u.String()
}

// aiCatalogEntry is one entry of an AI catalog, with its JSON pointer.
type aiCatalogEntry struct {
	pointer string
	obj     map[string]any
}

// aiCatalogEntries reads the entries of an AI catalog object. The proposal
// names the list "entries"; nothing else is guessed at.
func aiCatalogEntries(obj map[string]any) []aiCatalogEntry {
	arr, _ := obj["entries"].([]any)
	var out []aiCatalogEntry
	for i, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, aiCatalogEntry{pointer: fmt.Sprintf("/entries/%d", i), obj: m})
		}
	}
	return out
}

func isServerCardEntry(e map[string]any) bool {
	t, _ := e["type"].(string)
	mt, _ := exchange.MediaTypeOf(t)
	return mt == mediaServerCard
}

// jsonObject decodes a 2xx, non-HTML, complete JSON object body.
func jsonObject(x *exchange.Exchange) (map[string]any, bool) {
	if !ok2xx(x) || isHTML(x) || x.Response.Truncated || x.Response.Dropped {
		return nil, false
	}
	v, err := x.Response.JSON()
	obj, ok := v.(map[string]any)
	return obj, err == nil && ok
}

// catalogCardLinks are the same-origin card URLs an AI catalog lists.
func catalogCardLinks(target *url.URL, x *exchange.Exchange) []string {
	obj, ok := jsonObject(x)
	if !ok {
		return nil
	}
	var refs []string
	for _, e := range aiCatalogEntries(obj) {
		if u, ok := e.obj["url"].(string); ok && isServerCardEntry(e.obj) {
			refs = append(refs, u)
		}
	}
	var out []string
	for _, r := range resolve(target, x.Request.URL, refs) {
		if r.sameOrigin && len(out) < maxCatalogCards {
			out = append(out, r.url)
		}
	}
	return out
}

// serverCard is one card the scan read: fetched, or inline in the catalog.
type serverCard struct {
	x       *exchange.Exchange // where it was read
	pointer string             // "" for a fetched card, else the inline data's pointer
	obj     map[string]any     // nil when the body is not a JSON object
}

func (c serverCard) where() string {
	if c.pointer == "" {
		return exchange.PathOf(c.x.Request.URL)
	}
	return exchange.PathOf(c.x.Request.URL) + "#" + c.pointer
}

var serverCardsKey = checks.NewKey[[]serverCard]()

// serverCards are the cards that answered 2xx, in recording order, and the
// inline cards of the AI catalog.
func serverCards(in *checks.Input) []serverCard {
	return checks.Memo(in, serverCardsKey, func() []serverCard {
		var out []serverCard
		for _, x := range in.Recording.Exchanges {
			if x.Purpose != PurposeMCPCard || !ok2xx(x) || isHTML(x) {
				continue
			}
			obj, _ := jsonObject(x)
			out = append(out, serverCard{x: x, obj: obj})
		}
		if x := docAICatalog.fetched(in); x != nil {
			if obj, ok := jsonObject(x); ok {
				for _, e := range aiCatalogEntries(obj) {
					if data, ok := e.obj["data"].(map[string]any); ok && isServerCardEntry(e.obj) {
						out = append(out, serverCard{x: x, pointer: e.pointer + "/data", obj: data})
					}
				}
			}
		}
		return out
	})
}

// MCPCardFormat reports server cards that are not JSON objects or lack the
// members the proposal requires.
type MCPCardFormat struct{ plans }

func (MCPCardFormat) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-mcp-card-format", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "MCP server cards are JSON with a name, version, description and well-formed remotes",
		SpecRefs: []finding.SpecRef{serverCardRef("schema.ts ServerCard")},
		Help: `An MCP server card (` + "`" + mediaServerCard + "`" + `, served at ` + "`<MCP endpoint>/server-card`" + ` or
listed in ` + "`" + aiCatalogPath + "`" + `) tells a client what a server is and where to connect before it
connects. The experimental proposal requires ` + "`name`" + ` (reverse-DNS style, such as
` + "`com.example/orders`" + `), ` + "`version`" + ` and ` + "`description`" + `, and each entry of ` + "`remotes`" + ` needs a
transport ` + "`type`" + ` and a ` + "`url`" + `. The proposal is not part of any released MCP revision, so
this is advice.

**How to fix:** render the card from the same data as the MCP server, with the
members named in the finding.`,
	}
}

func (c MCPCardFormat) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cards := serverCards(in)
	if len(cards) == 0 {
		return nil, checks.Skip("no MCP server card at <endpoint>/server-card or in " + aiCatalogPath)
	}
	var out []finding.Finding
	for _, cd := range cards {
		ev := evidence(cd.x, "Cache-Control")
		ev.JSONPointer = cd.pointer
		if cd.obj == nil {
			ev.Expected, ev.Actual, ev.Excerpt = "a JSON object", "not a JSON object", checks.Excerpt(cd.x)
			out = append(out, checks.New(c.Meta(), cd.where(), "the MCP server card at "+cd.where()+" is not a JSON object", ev))
			continue
		}
		if missing := cardProblems(cd.obj); len(missing) > 0 {
			ev.Expected, ev.Actual = "name, version, description; remotes with type and url", "missing "+strings.Join(missing, ", ")
			ev.JSONPointer = cd.pointer + missing[0]
			out = append(out, checks.New(c.Meta(), cd.where(), fmt.Sprintf(
				"the MCP server card at %s lacks %s", cd.where(), strings.Join(missing, ", ")), ev))
		}
	}
	return out, nil
}

// cardProblems lists, as JSON pointers, the required members that are
// missing or not strings.
func cardProblems(obj map[string]any) []string {
	var out []string
	for _, m := range []string{"name", "version", "description"} {
		if s, ok := obj[m].(string); !ok || strings.TrimSpace(s) == "" {
			out = append(out, "/"+m)
		}
	}
	if r, present := obj["remotes"]; present {
		if _, ok := r.([]any); !ok {
			return append(out, "/remotes")
		}
	}
	for i, r := range objects(obj["remotes"]) {
		for _, m := range []string{"type", "url"} {
			if s, ok := r[m].(string); !ok || s == "" {
				out = append(out, fmt.Sprintf("/remotes/%d/%s", i, m))
			}
		}
	}
	return out
}

// MCPCardRemotes reconciles a card's streamable HTTP remotes with what the
// MCP probe measured.
type MCPCardRemotes struct{ plans }

func (MCPCardRemotes) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-mcp-card-remotes", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "MCP server card remotes match the endpoint and revisions the server speaks",
		SpecRefs: []finding.SpecRef{serverCardRef("Security considerations: reconcile with server/discover")},
		Help: `A client reads the card's ` + "`remotes`" + ` to decide where to connect and with which protocol
revision. The proposal tells clients to reconcile the card with ` + "`server/discover`" + `; a card
written by hand drifts from the server: it names an endpoint the site does not
serve, or a revision the server refuses. agentready compares each ` + "`streamable-http`" + `
remote with the endpoint its MCP probe examined, and the revisions the remote
lists with those the server listed in ` + "`server/discover`" + ` (or, for a server that only
speaks the legacy handshake, with the modern revision it refused).

**How to fix:** generate the card from the server's own configuration: its URL
and the revisions it supports.`,
	}
}

func (c MCPCardRemotes) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	cards := serverCards(in)
	if len(cards) == 0 {
		return nil, checks.Skip("no MCP server card at <endpoint>/server-card or in " + aiCatalogPath)
	}
	if in.MCP == nil {
		return nil, checks.Skip("no MCP endpoint was examined, so the card cannot be reconciled")
	}
	endpoints := probedEndpoints(in.MCP)
	var out []finding.Finding
	for _, cd := range cards {
		for i, r := range objects(cd.obj["remotes"]) {
			if t, _ := r["type"].(string); t != "streamable-http" {
				continue
			}
			raw, _ := r["url"].(string)
			links := resolve(in.Target, cd.x.Request.URL, []string{raw})
			if len(links) == 0 {
				continue // no usable URL: a format problem, not a disagreement
			}
			pointer := fmt.Sprintf("%s/remotes/%d", cd.pointer, i)
			v, found := endpoints[links[0].url]
			if !found {
				out = append(out, c.wrongURL(cd, pointer, raw, in.MCP.Endpoint.URL))
				continue
			}
			if f, ok := c.unspoken(cd, pointer, links[0].url, r, v); ok {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

func (c MCPCardRemotes) wrongURL(cd serverCard, pointer, remote, found string) finding.Finding {
	ev := evidence(cd.x)
	ev.JSONPointer, ev.Expected, ev.Actual = pointer+"/url", found, remote
	return checks.New(c.Meta(), cd.where()+" "+remote, fmt.Sprintf(
		"the MCP server card at %s names remote %s, but the MCP endpoint the scan found is %s", cd.where(), remote, found), ev)
}

func (c MCPCardRemotes) unspoken(cd serverCard, pointer, endpoint string, remote map[string]any, v mcp.Verdict) (finding.Finding, bool) {
	key, claimed := remoteVersions(remote)
	spoken, known := spokenVersions(v)
	var bad []string
	for _, ver := range claimed {
		if known(ver) && !slices.Contains(spoken, ver) {
			bad = append(bad, ver)
		}
	}
	if len(bad) == 0 {
		return finding.Finding{}, false
	}
	ev := evidence(cd.x)
	ev.JSONPointer, ev.Expected, ev.Actual = pointer+"/"+key, strings.Join(spoken, ", "), strings.Join(claimed, ", ")
	if ev.Expected == "" {
		ev.Expected = "legacy revisions only"
	}
	return checks.New(c.Meta(), cd.where()+" "+strings.Join(bad, ","), fmt.Sprintf(
		"the MCP server card at %s claims protocol version %s for %s, which the server did not speak (it speaks %s)",
		cd.where(), strings.Join(bad, ", "), exchange.PathOf(endpoint), ev.Expected), ev), true
}

// probedEndpoints maps each endpoint the MCP probe examined to its verdict.
func probedEndpoints(s *mcp.Snapshot) map[string]mcp.Verdict {
	out := map[string]mcp.Verdict{}
	add := func(ep mcp.Endpoint, v mcp.Verdict) {
		if u, err := url.Parse(ep.URL); err == nil {
			for _, r := range resolve(u, ep.URL, []string{ep.URL}) {
				if _, dup := out[r.url]; !dup {
					out[r.url] = v
				}
			}
		}
	}
	add(s.Endpoint, s.Verdict)
	for _, o := range s.Others {
		add(o.Endpoint, o.Verdict)
	}
	return out
}

// remoteVersions reads the revisions a remote claims, under the member name
// the proposal uses or the singular form earlier drafts used.
func remoteVersions(remote map[string]any) (key string, versions []string) {
	for _, k := range []string{"supportedProtocolVersions", "protocolVersions"} {
		if arr, ok := remote[k].([]any); ok {
			for _, e := range arr {
				if s, ok := e.(string); ok && s != "" {
					versions = append(versions, s)
				}
			}
			return k, versions
		}
	}
	if s, ok := remote["protocolVersion"].(string); ok && s != "" {
		return "protocolVersion", []string{s}
	}
	return "", nil
}

// spokenVersions are the revisions a verdict proves the server speaks, and
// which claimed revisions the verdict can refute. The list the server gave
// in server/discover settles every revision; a server judged legacy without
// such a list refused only the modern revision; anything else settles none.
func spokenVersions(v mcp.Verdict) (spoken []string, known func(string) bool) {
	switch {
	case len(v.SupportedVersions) > 0:
		return v.SupportedVersions, func(string) bool { return true }
	case v.Era == mcp.EraLegacy:
		if v.Version != "" {
			spoken = []string{v.Version}
		}
		return spoken, func(ver string) bool { return ver == mcp.Modern }
	}
	return nil, func(string) bool { return false }
}

// AICatalog reports an AI catalog that agents cannot read: not a JSON
// object, no entries list, entries without a type, server-card entries with
// neither url nor data, or card URLs that do not answer.
type AICatalog struct{ plans }

func (AICatalog) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-ai-catalog", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "The AI catalog lists its entries with a type and a reachable URL or inline data",
		SpecRefs: []finding.SpecRef{serverCardRef("AI Catalog")},
		Help: `The AI catalog at ` + "`" + aiCatalogPath + "`" + ` (` + "`application/ai-catalog+json`" + `) is how the
experimental MCP server card proposal lets clients find cards: an ` + "`entries`" + ` list, each
entry with a media ` + "`type`" + ` (` + "`" + mediaServerCard + "`" + ` for a server card) and either a ` + "`url`" + ` or
the card inline as ` + "`data`" + `. An entry a client cannot follow hides the server it
describes. The proposal is not part of any released MCP revision, so this is advice.

**How to fix:** generate the catalog from the same list as the cards it points
to, and fix the entries named in the finding.`,
	}
}

func (c AICatalog) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x := docAICatalog.fetched(in)
	if !ok2xx(x) || isHTML(x) {
		return nil, checks.Skip("no AI catalog at " + aiCatalogPath)
	}
	ev := evidence(x)
	obj, ok := jsonObject(x)
	if !ok {
		ev.Expected, ev.Actual, ev.Excerpt = "a JSON object", "not a JSON object", checks.Excerpt(x)
		return []finding.Finding{checks.New(c.Meta(), "", aiCatalogPath+" is not a JSON object", ev)}, nil
	}
	if _, ok := obj["entries"].([]any); !ok {
		ev.JSONPointer, ev.Expected, ev.Actual = "/entries", "an array of entries", "absent or not an array"
		return []finding.Finding{checks.New(c.Meta(), "/entries", aiCatalogPath+" has no entries array", ev)}, nil
	}
	var out []finding.Finding
	for _, e := range aiCatalogEntries(obj) {
		if problem := entryProblem(e.obj); problem != "" {
			ev := evidence(x)
			ev.JSONPointer, ev.Expected, ev.Actual = e.pointer, "type, and url or data", problem
			out = append(out, checks.New(c.Meta(), e.pointer, fmt.Sprintf("%s entry %s %s", aiCatalogPath, e.pointer, problem), ev))
		}
	}
	for _, u := range catalogCardLinks(in.Target, x) {
		if card := in.Probe(PurposeMCPCard, u); dead(card) {
			ev := evidence(card)
			ev.Expected, ev.Actual = "200 "+mediaServerCard, statusText(card)
			out = append(out, checks.New(c.Meta(), u, fmt.Sprintf(
				"%s lists the server card %s, which answered %s", aiCatalogPath, exchange.PathOf(u), statusText(card)), ev))
		}
	}
	return out, nil
}

func entryProblem(e map[string]any) string {
	if t, ok := e["type"].(string); !ok || t == "" {
		return "has no type"
	}
	_, hasURL := e["url"].(string)
	_, hasData := e["data"].(map[string]any)
	if isServerCardEntry(e) && !hasURL && !hasData {
		return "has neither url nor data"
	}
	return ""
}
