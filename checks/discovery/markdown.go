package discovery

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/internal/llmstxt"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/linkheader"
)

var rfc7763 = ref("RFC 7763", "2", "REQUIRED", "https://www.rfc-editor.org/rfc/rfc7763#section-2")

// markdownPages are the start URL and the sampled HTML pages, at most
// maxMarkdownPages: where an agent would ask for a Markdown twin.
func markdownPages(target *url.URL, crawled, samples []*exchange.Exchange) []string {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		if !seen[u] && len(out) < maxMarkdownPages {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, x := range crawled {
		if x.Source == exchange.SourceStart && x.Response != nil {
			add(x.Request.URL)
		}
	}
	if len(out) == 0 && target != nil {
		add(target.String())
	}
	for _, s := range samples {
		if s.Response != nil && s.Response.MediaType() == "text/html" {
			add(s.Request.URL)
		}
	}
	return out
}

type mdAlternate struct{ page, target string }

// markdownAlternates are the same-origin rel="alternate"
// type="text/markdown" targets of responses: in a Link header, or in an
// HTML <link> element. At most maxMarkdownPages, without repeats.
func markdownAlternates(xs []*exchange.Exchange) []mdAlternate {
	var out []mdAlternate
	add := func(page, base string, refs []string) {
		for _, r := range resolve(mustURL(page), base, refs) {
			alt := mdAlternate{page: page, target: r.url}
			if r.sameOrigin && len(out) < maxMarkdownPages && !slices.Contains(out, alt) {
				out = append(out, alt)
			}
		}
	}
	for _, x := range xs {
		if x == nil || x.Response == nil || len(out) >= maxMarkdownPages {
			continue
		}
		for _, l := range linkheader.WithRel(x.Response.Links(), "alternate") {
			if mt, _ := exchange.MediaTypeOf(l.Params["type"]); mt == "text/markdown" {
				add(x.Request.URL, x.Request.URL, []string{l.Target})
			}
		}
		if base, hrefs := htmlMarkdownLinks(x); len(hrefs) > 0 {
			add(x.Request.URL, base, hrefs)
		}
	}
	return out
}

// htmlAnswers are the Accept: text/html answers of the Markdown pages, by
// what was sent: another family may have planned the same request.
func htmlAnswers(pages []string, xs []*exchange.Exchange) []*exchange.Exchange {
	var out []*exchange.Exchange
	for _, page := range pages {
		if x := findSent(xs, http.MethodGet, page, acceptHTML); x != nil {
			out = append(out, x)
		}
	}
	return out
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		return &url.URL{}
	}
	return u
}

// siblingURL is the llms.txt proposal's companion: the page's URL plus .md,
// or index.html.md for a directory URL.
func siblingURL(page string) string {
	u, err := url.Parse(page)
	if err != nil {
		return page + ".md"
	}
	u.RawQuery, u.Fragment = "", ""
	if u.Path == "" || strings.HasSuffix(u.Path, "/") {
		u.Path += "index.html.md"
	} else {
		u.Path += ".md"
	}
	return u.String()
}

func isMarkdown(x *exchange.Exchange) bool {
	return ok2xx(x) && x.Response.MediaType() == "text/markdown"
}

// twinLinks are the links of a Markdown response, resolved.
func twinLinks(target *url.URL, x *exchange.Exchange) []resolvedLink {
	if !isMarkdown(x) || x.Response.Dropped {
		return nil
	}
	var refs []string
	for _, l := range llmstxt.InlineLinks(x.Response.Body) {
		refs = append(refs, l.URL)
	}
	return resolve(target, x.Request.URL, refs)
}

// twin is what the scan learned about one page's Markdown twin.
type twin struct {
	page        string
	negotiated  *exchange.Exchange // GET page, Accept: text/markdown
	html        *exchange.Exchange // GET page, Accept: text/html
	alternates  []*exchange.Exchange
	sibling     *exchange.Exchange
	hasMarkdown bool
}

var twinsKey = checks.NewKey[[]*twin]()

func twins(in *checks.Input) []*twin {
	return checks.Memo(in, twinsKey, func() []*twin {
		var out []*twin
		pages := markdownPages(in.Target, crawled(in), in.Samples)
		seen := append(append(crawled(in), in.Samples...), htmlAnswers(pages, in.Recording.Exchanges)...)
		alts := markdownAlternates(seen)
		for _, page := range pages {
			t := &twin{
				page:       page,
				negotiated: sent(in, PurposeMarkdown, http.MethodGet, page, acceptMarkdown),
				html:       sent(in, PurposeMarkdownHTML, http.MethodGet, page, acceptHTML),
				sibling:    in.Probe(PurposeMarkdownSibling, page),
			}
			for _, a := range alts {
				if a.page == page {
					// By target, not by page: a page may name several twins.
					x := findSent(in.Recording.Exchanges, http.MethodGet, a.target, acceptMarkdown)
					if x != nil && !slices.Contains(t.alternates, x) && x != t.negotiated {
						t.alternates = append(t.alternates, x)
					}
				}
			}
			t.hasMarkdown = isMarkdown(t.negotiated) || isMarkdown(t.sibling)
			for _, a := range t.alternates {
				t.hasMarkdown = t.hasMarkdown || isMarkdown(a)
			}
			out = append(out, t)
		}
		return out
	})
}

// markdownResponses are every Markdown answer of a twin.
func (t *twin) markdownResponses() []*exchange.Exchange {
	var out []*exchange.Exchange
	for _, x := range append([]*exchange.Exchange{t.negotiated, t.sibling}, t.alternates...) {
		if isMarkdown(x) {
			out = append(out, x)
		}
	}
	return out
}

// MarkdownCharset reports text/markdown answers without a charset.
type MarkdownCharset struct{ plans }

func (MarkdownCharset) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-markdown-charset", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Markdown twins are text/markdown with a charset",
		SpecRefs: []finding.SpecRef{rfc7763},
		Help: `The ` + "`text/markdown`" + ` media type (RFC 7763 §2) has a REQUIRED ` + "`charset`" + ` parameter:
Markdown has no way to declare its own encoding, so without it clients guess, and
non-ASCII text reaches the model garbled.

**How to fix:** send ` + "`Content-Type: text/markdown; charset=utf-8`" + `.`,
	}
}

func (c MarkdownCharset) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	answered := 0
	for _, t := range twins(in) {
		for _, x := range t.markdownResponses() {
			answered++
			if _, params := exchange.MediaTypeOf(x.Response.Header.Get("Content-Type")); params["charset"] != "" {
				continue
			}
			ev := evidence(x)
			ev.Header, ev.Expected, ev.Actual = "Content-Type", "text/markdown; charset=utf-8", x.Response.Header.Get("Content-Type")
			out = append(out, checks.New(c.Meta(), "", fmt.Sprintf(
				"%s is served as %q without the charset RFC 7763 requires", exchange.PathOf(x.Request.URL), ev.Actual), ev))
		}
	}
	if answered == 0 {
		return nil, checks.Skip("no page answered with text/markdown")
	}
	return out, nil
}

// MarkdownVary reports a negotiated twin whose Markdown or HTML response
// does not list Accept in Vary, where the vary family has not already.
type MarkdownVary struct{ twinPlans }

func (MarkdownVary) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-markdown-vary", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		// It defers to vary-accept, whose probes of a page the page's shard sends.
		PerResource: true,
		Title:       "Negotiated Markdown twins and their HTML list Accept in Vary",
		SpecRefs:    []finding.SpecRef{ref("RFC 9110", "12.5.5", "SHOULD", "https://www.rfc-editor.org/rfc/rfc9110#section-12.5.5"), ref("RFC 9111", "4.1", "MUST", "https://www.rfc-editor.org/rfc/rfc9111#section-4.1")},
		Help: `A page that answers ` + "`Accept: text/markdown`" + ` with Markdown and browsers with HTML at the
same URL must say so with ` + "`Vary: Accept`" + ` on both responses (RFC 9110 §12.5.5); otherwise
a shared cache hands the Markdown to a browser or the HTML to an agent (RFC 9111 §4.1).

Resources whose missing ` + "`Vary`" + ` the ` + "`vary-accept`" + ` check already reports are not reported again.

**How to fix:** add ` + "`Vary: Accept`" + ` to every response of the page.`,
	}
}

func (c MarkdownVary) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	negotiated := 0
	for _, t := range twins(in) {
		if !isMarkdown(t.negotiated) {
			continue
		}
		negotiated++
		if varyAcceptReported(in, t.page) {
			continue
		}
		var lacking []*exchange.Exchange
		for _, x := range []*exchange.Exchange{t.negotiated, t.html} {
			if conneg.Cacheable(x) && !conneg.VaryHas(x.Response.Header, "Accept") {
				lacking = append(lacking, x)
			}
		}
		if len(lacking) == 0 {
			continue
		}
		names := make([]string, len(lacking))
		for i, x := range lacking {
			names[i] = "Accept: " + x.Request.Header.Get("Accept") + " → " + x.Response.MediaType()
		}
		ev := evidence(lacking[0], "Vary", "Cache-Control")
		ev.Header, ev.Expected, ev.Actual = "Vary", "Vary: Accept", strings.Join(lacking[0].Response.Header.Values("Vary"), ", ")
		if ev.Actual == "" {
			ev.Actual = "(absent)"
		}
		out = append(out, checks.New(c.Meta(), "Accept", fmt.Sprintf(
			"%s serves a Markdown twin by negotiation but Vary lacks Accept on %s", exchange.PathOf(t.page), strings.Join(names, "; ")), ev))
	}
	if negotiated == 0 {
		return nil, checks.Skip("no page served a Markdown twin by negotiation")
	}
	return out, nil
}

// acceptVariants are the probes vary-accept judges a sample by.
var acceptVariants = []string{
	conneg.PurposeNone, conneg.PurposeOwn, conneg.PurposeWildcard, conneg.PurposeAlt,
	conneg.PurposeQOrder, conneg.PurposeQZero, conneg.PurposeSpecificity, conneg.PurposeUnsupported,
}

// varyAcceptReported mirrors vary-accept's condition for a sample: several
// media types among its cacheable variants and one of them without Vary:
// Accept. Reporting the twin too would say the same thing twice.
func varyAcceptReported(in *checks.Input, page string) bool {
	s := in.Recording.Lookup(page)
	if s == nil || !conneg.Cacheable(s) {
		return false
	}
	variants := []*exchange.Exchange{s}
	for _, p := range acceptVariants {
		if x := in.Probe(p, page); conneg.Cacheable(x) {
			variants = append(variants, x)
		}
	}
	types := map[string]bool{}
	lacking := false
	for _, x := range variants {
		types[x.Response.MediaType()] = true
		lacking = lacking || !conneg.VaryHas(x.Response.Header, "Accept")
	}
	return len(types) > 1 && lacking
}

// MarkdownTwin reports HTML pages that offer agents no Markdown version.
type MarkdownTwin struct{ plans }

func (MarkdownTwin) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-markdown-twin", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "HTML pages offer a Markdown twin",
		SpecRefs: []finding.SpecRef{ref("RFC 9110", "12.4.1", "MAY", "https://www.rfc-editor.org/rfc/rfc9110#section-12.4.1"), ref("llms.txt proposal", ".md pages", "proposal", "https://llmstxt.org/#proposal")},
		Help: `Agents read Markdown far more cheaply than HTML. A page can offer it by answering
` + "`Accept: text/markdown`" + `, by a ` + "`<url>.md`" + ` sibling, or by ` + "`Link: <…>; rel=\"alternate\"; type=\"text/markdown\"`" + `.
Answering HTML instead is conformant HTTP (RFC 9110 §12.4.1), so this is advice, not
an error.

**How to fix:** render a Markdown version of the page and serve it by negotiation
with ` + "`Vary: Accept`" + `.`,
	}
}

func (c MarkdownTwin) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	pages := 0
	for _, t := range twins(in) {
		if t.html == nil || !isHTML(t.html) {
			continue
		}
		pages++
		if t.hasMarkdown || t.negotiated == nil {
			continue
		}
		x := t.negotiated
		ev := evidence(x)
		ev.Expected, ev.Actual = "200 text/markdown", "no Markdown"
		if x.Response != nil {
			ev.Actual = fmt.Sprintf("%d %s", x.Response.Status, x.Response.MediaType())
		}
		out = append(out, checks.New(c.Meta(), "", fmt.Sprintf(
			"%s has no Markdown twin: Accept: text/markdown got %s, and no .md sibling or alternate link answered Markdown",
			exchange.PathOf(t.page), ev.Actual), ev))
	}
	if pages == 0 {
		return nil, checks.Skip("no probed page answered HTML")
	}
	return out, nil
}

// MarkdownDeadLinks reports links of Markdown twins that do not answer.
type MarkdownDeadLinks struct{ plans }

func (MarkdownDeadLinks) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-markdown-dead-links", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Links in Markdown twins answer",
		SpecRefs: []finding.SpecRef{ref("RFC 9110", "15.5.5", "informative", "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.5")},
		Help: `A Markdown twin is what an agent reads instead of the page; its links are what the
agent follows next. Twins rendered by hand or by a separate template drift from the
HTML and link to pages that are gone. Links on the target's origin are checked with
HEAD, up to a bound.

**How to fix:** render the twin from the same data as the page, and fix the links
named in the finding.`,
	}
}

func (c MarkdownDeadLinks) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	docs := 0
	for _, t := range twins(in) {
		for _, x := range t.markdownResponses() {
			docs++
			out = append(out, deadLinks(in, c.Meta(), "the Markdown twin of "+exchange.PathOf(t.page), twinLinks(in.Target, x))...)
		}
	}
	if docs == 0 {
		return nil, checks.Skip("no page answered with text/markdown")
	}
	return out, nil
}
