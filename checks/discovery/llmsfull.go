package discovery

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// PurposeLLMsFull is the GET of /llms-full.txt.
const PurposeLLMsFull = "discovery/llms-full"

const llmsFullPath = "/llms-full.txt"

// llmsFullRef: the file is a convention of documentation hosts, which the
// llms.txt proposal does not define; no clause binds it.
var llmsFullRef = ref("llms-full.txt convention (not in the llms.txt proposal)", "", "convention", "https://llmstxt.org/")

// llmsFullDoc is the /llms-full.txt exchange when the site serves the file
// or llms.txt links to it; linked says the latter.
func llmsFullDoc(in *checks.Input) (x *exchange.Exchange, linked bool, err error) {
	x = docLLMsFull.fetched(in)
	if x == nil || x.Response == nil {
		return nil, false, checks.Skip("/llms-full.txt was not fetched or got no response")
	}
	linked = linksLLMsFull(in)
	switch {
	case !ok2xx(x):
		return nil, linked, checks.Skip(fmt.Sprintf("/llms-full.txt answered %d: the site publishes none (a dead link to it is discovery-llms-dead-links')", x.Response.Status))
	case isHTML(x) && !linked:
		return nil, false, checks.Skip("/llms-full.txt answered an HTML page that nothing links to: a catch-all, not the file")
	}
	return x, linked, nil
}

// linksLLMsFull reports an llms.txt that links to /llms-full.txt.
func linksLLMsFull(in *checks.Input) bool {
	x := docLLMsFull.fetched(in)
	for _, l := range llmsLinks(in.Target, docLLMs.fetched(in)) {
		if x != nil && l.url == x.Request.URL {
			return true
		}
	}
	return false
}

// LLMsFull reports an llms-full.txt that is not served as Markdown text.
type LLMsFull struct{ plans }

func (LLMsFull) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-llms-full", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "llms-full.txt is Markdown text",
		SpecRefs: []finding.SpecRef{llmsFullRef, llmsRef},
		Help: `Many documentation hosts publish ` + "`/llms-full.txt`" + `, the whole documentation in one
Markdown file, next to llms.txt. No specification defines it (the llms.txt proposal
names only llms.txt, llms-ctx.txt and the .md twins), so only what every reader of
it assumes is checked: when the site serves the file or llms.txt links to it, it
answers 2xx with UTF-8 text labelled ` + "`text/markdown`" + ` or ` + "`text/plain`" + `, not an HTML page.

**How to fix:** serve the file as ` + "`text/markdown; charset=utf-8`" + ` from the same source
as llms.txt.`,
	}
}

func (c LLMsFull) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, linked, err := llmsFullDoc(in)
	if err != nil {
		return nil, err
	}
	mt := x.Response.MediaType()
	var problem string
	switch {
	case mt != "text/markdown" && mt != "text/plain":
		problem = fmt.Sprintf("is served as %q, not text/markdown", x.Response.Header.Get("Content-Type"))
	case x.Response.Whole() && !utf8.Valid(x.Response.Body):
		problem = "is not UTF-8 text"
	case x.Response.Whole() && len(strings.TrimSpace(string(x.Response.Body))) == 0:
		problem = "is empty"
	default:
		return nil, nil
	}
	if linked {
		problem += " (llms.txt links to it)"
	}
	ev := evidence(x)
	ev.Expected, ev.Actual, ev.Excerpt = "Markdown text (text/markdown; charset=utf-8)", problem, checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", "/llms-full.txt "+problem, ev)}, nil
}

// LLMsFullDeadLinks reports links of llms-full.txt that do not answer.
type LLMsFullDeadLinks struct{ plans }

func (LLMsFullDeadLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-llms-full-dead-links", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "llms-full.txt links answer",
		SpecRefs: []finding.SpecRef{llmsFullRef, llmsRef},
		Help: `An agent that read llms-full.txt follows its links for what the file only mentions.
A link that answers 404, 410 or a server error (or nothing) is documentation that
moved without the file knowing.

Links on the target's origin are checked with HEAD, up to a bound; a 405 or 401
counts as answering.

**How to fix:** regenerate llms-full.txt from the current documentation, or remove
the links named in the finding.`,
	}
}

func (c LLMsFullDeadLinks) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, _, err := llmsFullDoc(in)
	if err != nil {
		return nil, err
	}
	return deadLinks(in, c.Meta(), "llms-full.txt", llmsLinks(in.Target, x)), nil
}
