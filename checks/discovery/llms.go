package discovery

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/internal/llmstxt"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

var llmsRef = ref("llms.txt proposal", "Format", "proposal", "https://llmstxt.org/#format")

var llmsKey = checks.NewKey[*llmstxt.File]()

// llmsDoc is the llms.txt exchange and its parse, when there is a file: a
// 2xx that is not an HTML catch-all page.
func llmsDoc(in *checks.Input) (*exchange.Exchange, *llmstxt.File, error) {
	x := docLLMs.fetched(in)
	switch {
	case x == nil || x.Response == nil:
		return nil, nil, checks.Skip("/llms.txt was not fetched or got no response")
	case !ok2xx(x):
		return nil, nil, checks.Skip(fmt.Sprintf("/llms.txt answered %d: the site publishes none", x.Response.Status))
	case isHTML(x):
		return nil, nil, checks.Skip("/llms.txt answered an HTML page, not an llms.txt file")
	case x.Response.Dropped:
		return nil, nil, checks.Skip("the body of /llms.txt was not kept")
	}
	return x, checks.Memo(in, llmsKey, func() *llmstxt.File { return llmstxt.Parse(x.Response.Body) }), nil
}

// llmsLinks are the links of an llms.txt or llms-full.txt exchange, file
// lists and inline links alike, resolved; nil when it is not a usable file.
func llmsLinks(target *url.URL, x *exchange.Exchange) []resolvedLink {
	if !ok2xx(x) || isHTML(x) || x.Response.Dropped {
		return nil
	}
	var refs []string
	for _, l := range llmstxt.InlineLinks(x.Response.Body) {
		refs = append(refs, l.URL)
	}
	return resolve(target, x.Request.URL, refs)
}

// LLMsTitle reports an llms.txt without its one required part, the H1.
type LLMsTitle struct{ plans }

func (LLMsTitle) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-llms-title", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:     checks.FirstRelease,
		Documents: checks.DocLLMsText,
		Title:     "llms.txt starts with an H1 naming the site",
		SpecRefs:  []finding.SpecRef{llmsRef},
		Help: `The llms.txt proposal has one required part: an H1 with the name of the project or
site, before any section. Readers use it to know what the file describes; tools
that parse the format expect it first.

**How to fix:** start the file with ` + "`# Your API name`" + `, then an optional ` + "`> summary`" + `.`,
	}
}

func (c LLMsTitle) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := llmsDoc(in)
	if err != nil || f.TitleLine > 0 {
		return nil, err
	}
	ev := evidence(x)
	ev.Expected, ev.Actual, ev.Excerpt = "# Name as the first heading", "no H1 before the first section", checks.Excerpt(x)
	return []finding.Finding{checks.New(c.Meta(), "", "llms.txt has no H1 before its first section; the title is its only required part", ev)}, nil
}

// LLMsListItems reports file-list items that are not "[name](url)".
type LLMsListItems struct{ plans }

func (LLMsListItems) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-llms-list-items", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:     checks.FirstRelease,
		Documents: checks.DocLLMsText,
		Title:     "llms.txt file lists hold [name](url) items",
		SpecRefs:  []finding.SpecRef{llmsRef},
		Help: `Under each H2 of an llms.txt, the proposal expects a Markdown list whose items are a
link, ` + "`- [name](url)`" + `, optionally followed by ` + "`: notes`" + `. Items of another shape give
a reader nothing to fetch.

**How to fix:** turn each item into a link, or move prose out of the list.`,
	}
}

func (c LLMsListItems) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := llmsDoc(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, s := range f.Sections {
		for _, item := range s.BadItems {
			ev := evidence(x)
			ev.Expected, ev.Actual = "- [name](url): notes", item.Text
			out = append(out, checks.New(c.Meta(), checks.LineSubject(item.Line), fmt.Sprintf(
				"llms.txt line %d in section %q is not a [name](url) item: %q", item.Line, s.Title, item.Text), ev))
		}
	}
	return out, nil
}

// LLMsOptionalOrder reports an Optional section before required ones.
type LLMsOptionalOrder struct{ plans }

func (LLMsOptionalOrder) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-llms-optional-order", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:     checks.FirstRelease,
		Documents: checks.DocLLMsText,
		Title:     "llms.txt puts its Optional section last",
		SpecRefs:  []finding.SpecRef{llmsRef},
		Help: `An H2 named ` + "`Optional`" + ` marks links a reader may skip when context is short. Readers
that truncate from the end keep what comes first; an Optional section placed before
the others gets read while required sections get cut.

**How to fix:** move the ` + "`## Optional`" + ` section to the end of the file.`,
	}
}

func (c LLMsOptionalOrder) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, f, err := llmsDoc(in)
	if err != nil {
		return nil, err
	}
	optional := -1
	for i, s := range f.Sections {
		if s.Optional() && optional < 0 {
			optional = i
			continue
		}
		if optional >= 0 && !s.Optional() {
			ev := evidence(x)
			ev.Expected = "## Optional as the last section"
			ev.Actual = fmt.Sprintf("## Optional at line %d before ## %s at line %d", f.Sections[optional].Line, s.Title, s.Line)
			return []finding.Finding{checks.New(c.Meta(), "", "llms.txt places its Optional section before the section "+
				fmt.Sprintf("%q", s.Title)+"; readers that cut from the end drop required links first", ev)}, nil
		}
	}
	return nil, nil
}

// LLMsDeadLinks reports links of llms.txt, including the OpenAPI or MCP
// endpoints it names, that do not answer.
type LLMsDeadLinks struct{ plans }

func (LLMsDeadLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-llms-dead-links", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "llms.txt links answer",
		SpecRefs: []finding.SpecRef{llmsRef},
		Help: `Every link of an llms.txt is an invitation for an agent to fetch it. A link that
answers 404, 410 or a server error (or nothing) wastes a round trip and, when it
names the OpenAPI document or the MCP endpoint, hides the API itself.

Links on the target's origin are checked with HEAD, up to a bound; a 405 or 401
counts as answering.

**How to fix:** update or remove the links named in the finding.`,
	}
}

func (c LLMsDeadLinks) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x, _, err := llmsDoc(in)
	if err != nil {
		return nil, err
	}
	return deadLinks(in, c.Meta(), "llms.txt", llmsLinks(in.Target, x)), nil
}

// deadLinks reports each distinct same-origin link whose follow-up HEAD did
// not answer. Links that were not checked are never reported.
func deadLinks(in *checks.Input, m checks.Meta, docName string, links []resolvedLink) []finding.Finding {
	var out []finding.Finding
	seen := map[string]bool{}
	for _, l := range links {
		// A resource that changed status between identical requests is
		// reported once, as unstable, and judged by nothing else.
		if !l.sameOrigin || seen[l.url] || conneg.IsUnstable(in, l.url) {
			continue
		}
		seen[l.url] = true
		x := in.Probe(PurposeLink, l.url)
		if !dead(x) {
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual = "an answer (2xx, 3xx, 401, 405, …)", statusText(x)
		out = append(out, checks.New(m, exchange.PathOf(l.url), fmt.Sprintf(
			"%s links to %s, which answered %s", docName, l.ref, strings.ToLower(statusText(x))), ev))
	}
	return out
}
