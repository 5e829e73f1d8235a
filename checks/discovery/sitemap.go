package discovery

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/internal/sitemap"
	"github.com/agentready/agentready/checks/internal/x402"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/robots"
	"github.com/agentready/agentready/internal/urlx"
)

// PurposeSitemapEntry is the GET of a sampled sitemap entry the crawl did
// not fetch. The sitemaps themselves (the conventional /sitemap.xml in the
// first round; those robots.txt names and an index lists in the follow-up)
// are purpose.Sitemap, which surface reads too.
const PurposeSitemapEntry = "discovery/sitemap-entry"

const sitemapPath = "/sitemap.xml"

// Bounds on the sitemap requests.
const (
	maxSitemaps       = 5  // sitemaps fetched besides /sitemap.xml
	maxSitemapEntries = 10 // entries of /sitemap.xml sampled with GET
)

const sitemapsURL = "https://www.sitemaps.org/protocol.html"

func sitemapsRef(heading, level, anchor string) finding.SpecRef {
	return ref("Sitemaps protocol 0.9", heading, level, sitemapsURL+anchor)
}

// sitemapDoc is a sitemap the site declares or serves at the conventional
// location, and what fetching it returned.
type sitemapDoc struct {
	url string
	// via says who names it: a robots.txt line, an index, or nobody (the
	// conventional location).
	via   string
	named bool
	x     *exchange.Exchange // nil when it was not fetched
}

// parsedSitemap is a sitemap's parse, or why it could not be read.
type parsedSitemap struct {
	file *sitemap.File
	err  error
}

// robotsSitemaps are the absolute same-origin Sitemap URLs of a robots.txt
// exchange, in file order, each once, with the line naming it. Relative
// ones are discovery-robots-sitemap's; other origins are never fetched.
func robotsSitemaps(target *url.URL, x *exchange.Exchange) []sitemapDoc {
	if !ok2xx(x) || isHTML(x) || x.Response.Dropped {
		return nil
	}
	var out []sitemapDoc
	seen := map[string]bool{}
	for _, s := range robots.Parse(x.Response.Body).Sitemaps {
		if !isAbsoluteHTTP(s.Value) {
			continue
		}
		for _, l := range resolve(target, x.Request.URL, []string{s.Value}) {
			if l.sameOrigin && !seen[l.url] {
				seen[l.url] = true
				out = append(out, sitemapDoc{url: l.url, via: fmt.Sprintf("robots.txt line %d", s.Line), named: true})
			}
		}
	}
	return out
}

// indexChildren are the same-origin sitemaps an index lists.
func indexChildren(target *url.URL, parent string, f *sitemap.File) []sitemapDoc {
	if f == nil || f.Kind != sitemap.KindIndex {
		return nil
	}
	var refs []string
	for _, e := range f.Entries {
		refs = append(refs, e.Loc)
	}
	var out []sitemapDoc
	for _, l := range resolve(target, parent, refs) {
		if l.sameOrigin {
			out = append(out, sitemapDoc{url: l.url, via: "the sitemap index " + exchange.PathOf(parent), named: true})
		}
	}
	return out
}

func parseSitemap(x *exchange.Exchange) parsedSitemap {
	if x == nil || !ok2xx(x) || !x.Response.Whole() {
		return parsedSitemap{}
	}
	f, err := sitemap.Parse(x.Response.Body)
	return parsedSitemap{f, err}
}

// looksLikeSitemap tells a file at the conventional location that claims to
// be a sitemap from an API's catch-all answer: XML or gzip by media type or
// by its first bytes.
func looksLikeSitemap(x *exchange.Exchange) bool {
	mt := x.Response.MediaType()
	if strings.Contains(mt, "xml") || strings.Contains(mt, "gzip") {
		return true
	}
	b := strings.TrimLeft(string(x.Response.Body[:min(len(x.Response.Body), 256)]), " \t\r\n\ufeff")
	return strings.HasPrefix(b, "\x1f\x8b") || strings.HasPrefix(b, "<?xml") || strings.HasPrefix(b, "<urlset") || strings.HasPrefix(b, "<sitemapindex")
}

// planSitemaps is the follow-up round of sitemaps: those robots.txt names,
// then the children of the index at /sitemap.xml, at most maxSitemaps.
func planSitemaps(target *url.URL, byPurpose map[string][]*exchange.Exchange) []exchange.PlannedRequest {
	conventional := wellKnown(target, sitemapPath)
	var docs []sitemapDoc
	for _, x := range byPurpose[PurposeRobots] {
		docs = append(docs, robotsSitemaps(target, x)...)
	}
	for _, x := range byPurpose[purpose.Sitemap] {
		if x.Request.URL == conventional {
			docs = append(docs, indexChildren(target, conventional, parseSitemap(x).file)...)
		}
	}
	var out []exchange.PlannedRequest
	seen := map[string]bool{conventional: true}
	for _, d := range docs {
		if len(out) < maxSitemaps && !seen[d.url] {
			seen[d.url] = true
			out = append(out, request(purpose.Sitemap, http.MethodGet, d.url, "", d.url))
		}
	}
	return out
}

// planSitemapEntries samples, with GET, the first same-origin entries of
// /sitemap.xml that the crawl did not fetch, when robots.txt names no other
// sitemap (the only one whose entries are known before the last round).
func planSitemapEntries(in *checks.PlanInput, byPurpose map[string][]*exchange.Exchange) []exchange.PlannedRequest {
	conventional := wellKnown(in.Target, sitemapPath)
	for _, x := range byPurpose[PurposeRobots] {
		for _, d := range robotsSitemaps(in.Target, x) {
			if d.url != conventional {
				return nil
			}
		}
	}
	crawled := map[string]bool{}
	for _, x := range in.Crawled {
		crawled[x.Request.URL] = true
	}
	var out []exchange.PlannedRequest
	for _, x := range byPurpose[purpose.Sitemap] {
		if x.Request.URL != conventional || !servesSitemap(x) {
			continue
		}
		for _, u := range sampleEntries(in.Target, parseSitemap(x).file) {
			if !crawled[u] {
				out = append(out, request(PurposeSitemapEntry, http.MethodGet, u, "", u))
			}
		}
	}
	return out
}

func servesSitemap(x *exchange.Exchange) bool {
	return ok2xx(x) && !isHTML(x) && looksLikeSitemap(x)
}

// sampleEntries are the first maxSitemapEntries same-origin URLs a urlset
// lists, normalized as the crawler normalizes what it fetches.
func sampleEntries(target *url.URL, f *sitemap.File) []string {
	if f == nil || f.Kind == sitemap.KindIndex {
		return nil
	}
	var out []string
	for _, e := range f.Entries {
		if len(out) >= maxSitemapEntries {
			break
		}
		u, err := url.Parse(e.Loc)
		if err != nil || !urlx.SameOrigin(u, target) {
			continue
		}
		out = append(out, urlx.Normalize(u).String())
	}
	return out
}

var sitemapsKey = checks.NewKey[[]sitemapDoc]()

// sitemaps are the sitemaps judged: those robots.txt names, or else the one
// at the conventional location when it serves one, then the children of
// every index among them that were fetched.
func sitemaps(in *checks.Input) []sitemapDoc {
	return checks.Memo(in, sitemapsKey, func() []sitemapDoc {
		conventional := wellKnown(in.Target, sitemapPath)
		docs := robotsSitemaps(in.Target, docRobots.fetched(in))
		if len(docs) == 0 {
			if x := in.Probe(purpose.Sitemap, conventional); x != nil && servesSitemap(x) {
				docs = []sitemapDoc{{url: conventional, via: sitemapPath + " (the conventional location)"}}
			}
		}
		for i := range docs {
			docs[i].x = sent(in, purpose.Sitemap, http.MethodGet, docs[i].url, "")
		}
		var children []sitemapDoc
		for _, d := range docs {
			for _, c := range indexChildren(in.Target, d.url, parsedOf(in, d).file) {
				c.x = sent(in, purpose.Sitemap, http.MethodGet, c.url, "")
				children = append(children, c)
			}
		}
		return append(docs, children...)
	})
}

var sitemapKey = checks.NewKey[parsedSitemap]()

func parsedOf(in *checks.Input, d sitemapDoc) parsedSitemap {
	return checks.Memo(in, sitemapKey.With(d.url), func() parsedSitemap { return parseSitemap(d.x) })
}

func needSitemaps(in *checks.Input) ([]sitemapDoc, error) {
	if in.Target == nil {
		return nil, checks.Skip("no target")
	}
	docs := sitemaps(in)
	if len(docs) == 0 {
		return nil, checks.Skip("robots.txt names no sitemap on the target's origin and " + sitemapPath + " serves none")
	}
	return docs, nil
}

// SitemapUnreachable reports a declared sitemap that does not answer.
type SitemapUnreachable struct{ plans }

func (SitemapUnreachable) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-sitemap-unreachable", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "Every sitemap robots.txt or an index names answers 2xx",
		SpecRefs: []finding.SpecRef{
			sitemapsRef("Specifying the Sitemap location in your robots.txt file", "MUST", "#submit_robots"),
			sitemapsRef("Using Sitemap index files", "MUST", "#index"),
			rfc9309("2.2.4", "MAY"),
		},
		Help: `A ` + "`Sitemap:`" + ` line in robots.txt, or a ` + "`<sitemap>`" + ` entry of a sitemap index, tells
crawlers and agents where the site lists its pages (sitemaps.org, protocol 0.9). A
declaration whose target answers 404, a server error or nothing lists nothing: the
crawlers that read it learn no page, and the ones that check it learn the site's
declarations are stale.

Sitemaps on the target's origin are fetched with GET, up to a bound; a sitemap on
another origin is never fetched.

**How to fix:** serve the sitemap at the URL the declaration names, or correct the line.`,
	}
}

func (c SitemapUnreachable) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	docs, err := needSitemaps(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, d := range docs {
		if !d.named || d.x == nil || ok2xx(d.x) {
			continue
		}
		ev := evidence(d.x)
		ev.Expected, ev.Actual = "200 with a sitemap", statusText(d.x)
		out = append(out, checks.New(c.Meta(), exchange.PathOf(d.url), fmt.Sprintf(
			"%s names the sitemap %s, which answered %s", d.via, d.url, strings.ToLower(statusText(d.x))), ev))
	}
	return out, nil
}

// SitemapFormat reports a sitemap that does not parse, or breaks the
// protocol's rules: namespace, loc, limits.
type SitemapFormat struct{ plans }

func (SitemapFormat) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-sitemap-format", Family: checks.FamilyDiscovery, Severity: finding.SeverityError,
		Since: checks.FirstRelease,
		Title: "Sitemaps are urlset or sitemapindex documents within the protocol's limits",
		SpecRefs: []finding.SpecRef{
			sitemapsRef("Sitemaps XML format", "MUST", "#xmlTagDefinitions"),
			sitemapsRef("Using Sitemap index files", "MUST", "#index"),
			sitemapsRef("Other Sitemap formats: Text file", "MUST", "#otherformats"),
		},
		Help: `A sitemap must be UTF-8 XML whose root is ` + "`<urlset>`" + ` (or ` + "`<sitemapindex>`" + ` for an
index) in the namespace ` + "`http://www.sitemaps.org/schemas/sitemap/0.9`" + `, with one ` + "`<loc>`" + `
per entry; every loc begins with the protocol and is shorter than 2,048 characters;
data values are entity-escaped (a bare ` + "`&`" + ` makes the whole file unreadable); at most
50,000 entries and 50 MB uncompressed (sitemaps.org, protocol 0.9). A text sitemap
holds one full URL per line. Crawlers discard a file that breaks these rules, often
silently.

A file at ` + "`/sitemap.xml`" + ` that nothing names is judged only when it says it is XML or
gzip; an API's catch-all answer there is not read as a sitemap.

**How to fix:** generate the sitemap with an XML library rather than by string
concatenation, and split it with an index past the limits.`,
	}
}

func (c SitemapFormat) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	docs, err := needSitemaps(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, d := range docs {
		if d.x == nil || !ok2xx(d.x) || !d.x.Response.Whole() {
			continue
		}
		var problem string
		p := parsedOf(in, d)
		switch {
		case isHTML(d.x):
			problem = "is an HTML page, not a sitemap"
		case p.err != nil:
			problem = "cannot be read as a sitemap: " + p.err.Error()
		case len(p.file.Problems.Items) > 0:
			pr := p.file.Problems.Items[0]
			problem = pr.Message
			if pr.Line > 0 {
				problem = fmt.Sprintf("line %d: %s", pr.Line, pr.Message)
			}
			if n := len(p.file.Problems.Items) + p.file.Problems.Dropped; n > 1 {
				problem += fmt.Sprintf(" (and %d more)", n-1)
			}
		default:
			continue
		}
		ev := evidence(d.x)
		ev.Expected, ev.Actual, ev.Excerpt = "a <urlset> or <sitemapindex> of the sitemaps.org 0.9 namespace", problem, checks.Excerpt(d.x)
		out = append(out, checks.New(c.Meta(), exchange.PathOf(d.url), fmt.Sprintf("the sitemap %s (named by %s) %s", d.url, d.via, problem), ev))
	}
	return out, nil
}

// SitemapEntries reports entries on another origin and sampled entries
// that do not answer.
type SitemapEntries struct{ plans }

func (SitemapEntries) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-sitemap-entries", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since: checks.FirstRelease,
		Title: "Sitemap entries are on the sitemap's origin and answer 2xx",
		SpecRefs: []finding.SpecRef{
			sitemapsRef("Sitemap file location", "MUST", "#location"),
			sitemapsRef("XML tag definitions: loc", "MUST", "#xmlTagDefinitions"),
		},
		Help: `"All URLs listed in the Sitemap must use the same protocol … and reside on the same
host as the Sitemap" (sitemaps.org, protocol 0.9): crawlers drop the others. And a
sitemap lists pages to fetch: an entry that answers 404, 410, a server error or
nothing sends every crawler and agent that trusts the sitemap to a page that is
not there.

The first entries of ` + "`/sitemap.xml`" + ` are checked with GET, up to a bound, or read from
the crawl when it fetched them; entries of other sitemaps are checked only when
the crawl fetched them.

**How to fix:** list only the site's own live pages; generate the sitemap from the
routes the site serves.`,
	}
}

func (c SitemapEntries) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	docs, err := needSitemaps(in)
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for _, d := range docs {
		p := parsedOf(in, d)
		if p.file == nil || p.file.Kind == sitemap.KindIndex {
			continue
		}
		if f := foreignEntries(c.Meta(), in.Target, d, p.file); f != nil {
			out = append(out, *f)
		}
		out = append(out, deadEntries(in, c.Meta(), d)...)
	}
	return out, nil
}

func foreignEntries(m checks.Meta, target *url.URL, d sitemapDoc, f *sitemap.File) *finding.Finding {
	var foreign []sitemap.Entry
	for _, e := range f.Entries {
		if u, err := url.Parse(e.Loc); err == nil && u.Host != "" && !urlx.SameOrigin(u, target) {
			foreign = append(foreign, e)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	ev := evidence(d.x)
	ev.Expected = "URLs on " + target.Scheme + "://" + target.Host
	ev.Actual = fmt.Sprintf("line %d: %s", foreign[0].Line, foreign[0].Loc)
	fnd := checks.New(m, exchange.PathOf(d.url)+" foreign", fmt.Sprintf(
		"the sitemap %s lists %d URL(s) on another protocol or host, which crawlers drop, such as %s",
		d.url, len(foreign), foreign[0].Loc), ev)
	return &fnd
}

func deadEntries(in *checks.Input, m checks.Meta, d sitemapDoc) []finding.Finding {
	var out []finding.Finding
	for _, u := range sampleEntries(in.Target, parsedOf(in, d).file) {
		x := in.Probe(PurposeSitemapEntry, u)
		if x == nil {
			x = in.Index.Get(exchange.PurposeCrawl, u)
		}
		if x == nil || x.Request.Method != http.MethodGet || conneg.IsUnstable(in, u) || !deadPage(x) {
			continue
		}
		ev := evidence(x)
		ev.Expected, ev.Actual = "2xx", statusText(x)
		out = append(out, checks.New(m, exchange.PathOf(u), fmt.Sprintf(
			"the sitemap %s lists %s, which answered %s", d.url, u, strings.ToLower(statusText(x))), ev))
	}
	return out
}

// deadPage reports a page that is not there for a crawler: no answer, or a
// 4xx or 5xx. A 401 or 403 is reported too: a sitemap lists public pages.
// A page priced with x402 is there: its 402 says how to pay for it.
func deadPage(x *exchange.Exchange) bool {
	if x.Response != nil && x.Response.Status == http.StatusPaymentRequired {
		_, priced := x402.ReadChallenge(x)
		return !priced
	}
	return x.Response == nil || x.Response.Status >= 400
}

// SitemapCoverage reports pages the site advertises elsewhere that its
// sitemaps omit.
type SitemapCoverage struct{ plans }

func (SitemapCoverage) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-sitemap-coverage", Family: checks.FamilyDiscovery, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "The sitemaps list the pages llms.txt and the Markdown twins advertise",
		SpecRefs: []finding.SpecRef{seedRef, sitemapsRef("Sitemaps XML format", "advice", "#xmlTagDefinitions")},
		Help: `When a site lists its pages in a sitemap and again in llms.txt, or offers a Markdown twin
of a page, the lists are projections of one set of pages and should agree. A page
that llms.txt advertises (on the site's origin, outside ` + "`/.well-known/`" + `) or that has a
Markdown twin, and that no sitemap lists, is what hand-maintained copies look like
after an edit reached one of them.

Judged only when every sitemap was fetched and read in full.

**How to fix:** derive the sitemap, llms.txt and the twins from one list of pages.`,
	}
}

var seedRef = finding.SpecRef{Doc: "agentready", Section: "one declared surface", Level: "advice", URL: checks.DocsBase + "#family-surface"}

func (c SitemapCoverage) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	docs, err := needSitemaps(in)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	var evx *exchange.Exchange
	for _, d := range docs {
		p := parsedOf(in, d)
		if p.file == nil || p.file.Count > len(p.file.Entries) {
			return nil, checks.Skip("the sitemap " + d.url + " was not fetched or read in full")
		}
		if evx == nil {
			evx = d.x
		}
		for _, e := range p.file.Entries {
			if u, err := url.Parse(e.Loc); err == nil {
				listed[urlx.Normalize(u).String()] = true
			}
		}
	}
	var out []finding.Finding
	for _, page := range advertisedPages(in) {
		if listed[page.url] {
			continue
		}
		ev := evidence(evx)
		ev.Expected, ev.Actual = "a <loc> for "+page.url, "not listed"
		out = append(out, checks.New(c.Meta(), exchange.PathOf(page.url), fmt.Sprintf(
			"%s advertises %s, which no sitemap lists", page.by, page.url), ev))
	}
	return out, nil
}

type advertisedPage struct{ url, by string }

// advertisedPages are the same-origin pages llms.txt links to (outside
// /.well-known/, where metadata lives) and the pages that have a Markdown
// twin, each once, in a stable order. A link is a page only when it was
// seen answering 2xx: a dead link is discovery-llms-dead-links', and an
// endpoint that refuses GET or HEAD is no page to list.
func advertisedPages(in *checks.Input) []advertisedPage {
	var out []advertisedPage
	seen := map[string]bool{}
	add := func(raw, by string) {
		u, err := url.Parse(raw)
		if err != nil || strings.HasPrefix(u.Path, "/.well-known/") {
			return
		}
		n := urlx.Normalize(u).String()
		if !seen[n] {
			seen[n] = true
			out = append(out, advertisedPage{n, by})
		}
	}
	if x := docLLMs.fetched(in); x != nil {
		for _, l := range llmsLinks(in.Target, x) {
			if l.sameOrigin && livePage(in, l.url) {
				add(l.url, "llms.txt")
			}
		}
	}
	for x := range in.Recording.WithPurpose(PurposeMarkdown) {
		if ok2xx(x) && isMarkdown(x) {
			add(x.Request.URL, "the Markdown twin of "+exchange.PathOf(x.Request.URL))
		}
	}
	return out
}

// livePage reports a URL that answered 2xx to the link check or the crawl.
func livePage(in *checks.Input, u string) bool {
	if ok2xx(in.Probe(PurposeLink, u)) {
		return true
	}
	pu, err := url.Parse(u)
	return err == nil && ok2xx(in.Index.Get(exchange.PurposeCrawl, urlx.Normalize(pu).String()))
}
