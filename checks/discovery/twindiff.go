package discovery

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/urlx"
)

// maxTwinItemsListed bounds the headings or links a finding names on each
// side; the count says how many more there are.
const maxTwinItemsListed = 5

// MarkdownDivergent reports a Markdown twin that no longer says what its
// HTML page says: another H1, another heading outline, other links.
type MarkdownDivergent struct{ plans }

func (MarkdownDivergent) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-markdown-divergent", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "Markdown twins say what their HTML page says",
		SpecRefs: []finding.SpecRef{
			seedRef,
			ref("RFC 9110", "3.2", "informative", "https://www.rfc-editor.org/rfc/rfc9110#section-3.2"),
			ref("llms.txt proposal", ".md pages", "proposal", "https://llmstxt.org/#proposal"),
		},
		Help: `A Markdown twin is the page for an agent: the same resource in another representation
(RFC 9110 §3.2), "a clean markdown version" of the page (llms.txt proposal). ` + "`Vary: Accept`" + `
tells a cache that the answer depends on Accept; it says nothing about whether the two
still mean the same thing. Twins kept by hand drift from the page after an edit reaches
one and not the other, and an agent then acts on a page no browser shows.

Each HTML page with a Markdown twin (negotiated, ` + "`.md`" + ` sibling or alternate link) is
compared with it on three things, after removing what a converter from HTML changes
(case, spacing, punctuation, entities, emphasis, relative or absolute links, fragments,
` + "`.md`" + ` and ` + "`index.html`" + ` in link targets, links to the page itself):

- **the title**: the twin's first H1 (or its front matter's ` + "`title`" + `) equals the page's
  H1 or its ` + "`<title>`" + `;
- **the heading outline**: the two sets of headings overlap by a Jaccard index of at
  least 0.8 (` + "`limits: twin-min-heading-overlap`" + `);
- **the links**: at most 3 link targets are in one and not the other
  (` + "`limits: twin-max-link-differences`" + `).

The page's navigation, header, footer and sidebars (and, where it has a ` + "`<main>`" + `,
everything outside it) may be in the twin or not. The finding names the differing
headings and links, a few of each.

**How to fix:** render the twin from the same source as the page (or convert the
page's HTML to Markdown), rather than keeping two documents by hand.`,
	}
}

func (c MarkdownDivergent) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out checks.Findings
	compared := 0
	for _, t := range twins(in) {
		if !isHTML(t.html) || !t.html.Response.Whole() {
			continue
		}
		var page *twinDoc
		for _, md := range t.markdownResponses() {
			if !md.Response.Whole() {
				continue
			}
			if why := unparsableTwin(md.Response.Body); why != "" {
				in.Observe(c.Meta().ID, fmt.Sprintf("%s was not compared with its page: %s", exchange.PathOf(md.Request.URL), why))
				continue
			}
			if page == nil {
				if page = readHTMLTwin(t.html); page == nil {
					break
				}
			}
			compared++
			d := compareTwin(t.page, page, readMarkdownTwin(md), in.Twins)
			if d.agrees() {
				continue
			}
			ev, evHTML := evidence(md), evidence(t.html)
			ev.Expected, ev.Actual = d.expected(in.Twins), d.actual()
			name := exchange.PathOf(md.Request.URL)
			if md.Request.URL == t.page {
				name = "Accept: text/markdown"
			}
			out.Add(checks.New(c.Meta(), "", fmt.Sprintf("the Markdown twin of %s (%s) diverges from its HTML: %s",
				exchange.PathOf(t.page), name, d.describe(in.Target, in.Twins)), ev, evHTML))
		}
	}
	if compared == 0 {
		return nil, checks.Skip("no HTML page with a Markdown twin was read whole")
	}
	return out.List(), nil
}

// twinDivergence is how a twin differs from its page; a zero part agrees.
type twinDivergence struct {
	titleTwin, titlePage string // set when the titles differ
	overlap              float64
	headingsOff          bool // overlap is under the threshold
	headingsPageOnly     []string
	headingsTwinOnly     []string
	linksPageOnly        []string
	linksTwinOnly        []string
	linksOff             bool
}

func (d twinDivergence) agrees() bool {
	return d.titleTwin == "" && !d.headingsOff && !d.linksOff
}

// compareTwin compares a page's HTML with one of its Markdown twins.
func compareTwin(pageURL string, page, twin *twinDoc, lim checks.TwinLimits) twinDivergence {
	var d twinDivergence
	if twin.title != "" && (page.title != "" || page.pageTitle != "") &&
		twin.title != page.title && !titleNames(page.pageTitle, twin.title) {
		d.titleTwin, d.titlePage = twin.titleText, page.titleText
		if d.titlePage == "" {
			d.titlePage = "(no H1; <title> " + page.pageTitle + ")"
		}
	}

	// A twin heading that is the page's chrome is no divergence, and one
	// that repeats its <title> stands for its H1. Titles that differ are
	// reported once, as titles, and left out of the outline.
	pageHeadings, twinHeadings := orderedSet{}, orderedSet{}
	for _, k := range page.headings.keys {
		if d.titleTwin == "" || k != page.title {
			pageHeadings.add(k, page.headings.as[k], maxTwinHeadings)
		}
	}
	for _, written := range twin.headings.keys {
		k := written
		switch {
		case d.titleTwin != "" && k == twin.title:
			continue
		case page.headings.has(k):
		case k == page.pageTitle && page.title != "":
			k = page.title
		case page.looseHeadings.has(k) || k == page.pageTitle:
			continue
		}
		twinHeadings.add(k, twin.headings.as[written], maxTwinHeadings)
	}
	both := 0
	for _, k := range pageHeadings.keys {
		if twinHeadings.has(k) {
			both++
		} else {
			d.headingsPageOnly = append(d.headingsPageOnly, pageHeadings.as[k])
		}
	}
	for _, k := range twinHeadings.keys {
		if !pageHeadings.has(k) {
			d.headingsTwinOnly = append(d.headingsTwinOnly, twinHeadings.as[k])
		}
	}
	d.overlap = 1
	if union := len(pageHeadings.keys) + len(twinHeadings.keys) - both; union > 0 {
		d.overlap = float64(both) / float64(union)
	}
	d.headingsOff = d.overlap < lim.HeadingOverlap()

	self := twinLinkKey(mustURL(pageURL), pageURL)
	for _, k := range page.links.keys {
		if k != self && !twin.links.has(k) {
			d.linksPageOnly = append(d.linksPageOnly, k)
		}
	}
	for _, k := range twin.links.keys {
		if k != self && !page.links.has(k) && !page.looseLinks.has(k) {
			d.linksTwinOnly = append(d.linksTwinOnly, k)
		}
	}
	d.linksOff = len(d.linksPageOnly)+len(d.linksTwinOnly) > lim.LinkDifferences()
	return d
}

// titleNames reports whether a page's <title> names the page as title: the
// whole of it, or its first or last words ("Orders · Shop").
func titleNames(pageTitle, title string) bool {
	return pageTitle == title || strings.HasPrefix(pageTitle, title+" ") || strings.HasSuffix(pageTitle, " "+title)
}

func (d twinDivergence) describe(target *url.URL, lim checks.TwinLimits) string {
	var parts []string
	if d.titleTwin != "" {
		parts = append(parts, fmt.Sprintf("its H1 is %q where the page's is %q", d.titleTwin, d.titlePage))
	}
	if d.headingsOff {
		parts = append(parts, fmt.Sprintf("its headings overlap the page's by %s, under %s%s",
			ratio(d.overlap), ratio(lim.HeadingOverlap()), sides(quoted(d.headingsPageOnly), quoted(d.headingsTwinOnly))))
	}
	if d.linksOff {
		parts = append(parts, fmt.Sprintf("%s, over %d%s", d.linkCount("differ", "differs"),
			lim.LinkDifferences(), sides(shortURLs(target, d.linksPageOnly), shortURLs(target, d.linksTwinOnly))))
	}
	return strings.Join(parts, "; ")
}

func (d twinDivergence) expected(lim checks.TwinLimits) string {
	return fmt.Sprintf("the page's H1, headings overlapping by at least %s, at most %d link targets differing",
		ratio(lim.HeadingOverlap()), lim.LinkDifferences())
}

func (d twinDivergence) actual() string {
	var parts []string
	if d.titleTwin != "" {
		parts = append(parts, fmt.Sprintf("H1 %q", d.titleTwin))
	}
	if d.headingsOff {
		parts = append(parts, "headings overlapping by "+ratio(d.overlap))
	}
	if d.linksOff {
		parts = append(parts, d.linkCount("differing", "differing"))
	}
	return strings.Join(parts, ", ")
}

// linkCount counts the differing link targets, with the verb given for
// several and for one.
func (d twinDivergence) linkCount(several, one string) string {
	if n := len(d.linksPageOnly) + len(d.linksTwinOnly); n != 1 {
		return fmt.Sprintf("%d link targets %s", n, several)
	}
	return "1 link target " + one
}

func ratio(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// sides names what only the page and only the twin have, a few of each.
func sides(pageOnly, twinOnly []string) string {
	var parts []string
	if len(pageOnly) > 0 {
		parts = append(parts, "only in the page: "+few(pageOnly))
	}
	if len(twinOnly) > 0 {
		parts = append(parts, "only in the twin: "+few(twinOnly))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func few(items []string) string {
	if len(items) <= maxTwinItemsListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxTwinItemsListed], ", "), len(items)-maxTwinItemsListed)
}

func quoted(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = strconv.Quote(s)
	}
	return out
}

// shortURLs names links of the target's origin by path, others in full.
func shortURLs(target *url.URL, links []string) []string {
	out := make([]string, len(links))
	for i, l := range links {
		out[i] = l
		if u, err := url.Parse(l); err == nil && target != nil && urlx.SameOrigin(u, target) {
			out[i] = exchange.PathOf(l)
		}
	}
	return out
}
