package discovery_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
)

// TestMarkdownTwin covers the Markdown twin of the root.
func TestMarkdownTwin(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"markdown without charset", func(s site) { s["md"].Build().Response.Header.Set("Content-Type", "text/markdown") }, []string{"discovery-markdown-charset"}},
		{"markdown without Vary", func(s site) { s["md"].Build().Response.Header.Del("Vary") }, []string{"discovery-markdown-vary"}},
		{"HTML without Vary", func(s site) { s["md-html"].Build().Response.Header.Del("Vary") }, []string{"discovery-markdown-vary"}},
		{"HTML answer is no twin", func(s site) {
			s["md"] = get(discovery.PurposeMarkdown, "/").ReqHeader("Accept", "text/markdown").Status(200).Header("Content-Type", "text/html").Body("<p>")
		}, []string{"discovery-markdown-twin"}},
		{"sibling .md is a twin", func(s site) {
			s["md"] = get(discovery.PurposeMarkdown, "/").ReqHeader("Accept", "text/markdown").Status(406)
			s["sibling"] = checkstest.Exchange(discovery.PurposeMarkdownSibling, "GET", origin+"/index.html.md").BasedOn(origin+"/").
				Status(200).Header("Content-Type", "text/markdown; charset=utf-8").Body("# Demo\n")
		}, nil},
	})
}

// guidePage is an HTML page as a documentation site serves it: navigation,
// a header and a footer around <main>, permalinks on the headings, and
// entities in the text.
const guidePage = `<!doctype html><html><head><title>Orders guide · Demo</title>
<link rel="alternate" type="text/markdown" href="/guide.md"></head><body>
<header><a href="/">Demo</a><nav><a href="/pricing">Pricing</a><a href="/login">Log in</a></nav></header>
<main>
<h1>Orders guide <a class="anchor" href="#top">¶</a></h1>
<p>Read <a href="http://api.test/orders">the orders</a> and <a href="#pay">how to pay</a>.</p>
<h2 id="pay">Paying &amp; refunds</h2>
<p>See <a href="/orders/1/payment">payment</a>, <a href="../docs/">the docs</a> and <a href="https://pay.example/terms">the terms</a>.</p>
<h2>Shipping</h2><h3>Tracking <code>status</code></h3>
<p><a href="/guide">This page</a>, <a href="mailto:help@api.test">mail us</a>.</p>
</main>
<footer><h2>Contact</h2><a href="/contact">Contact</a></footer>
</body></html>`

// generatedGuide is what a converter from HTML makes of guidePage's
// <main>: setext and ATX headings, escapes, a reference link, .md links,
// an autolink and an embedded HTML table.
const generatedGuide = "---\ntitle: Orders guide\n---\nOrders guide\n============\n\n" +
	"Read the orders and [how to pay](#pay).\n\n" +
	"## Paying & refunds ##\n\nSee [payment][p], [the docs](/docs/index.html.md) and <https://pay.example/terms>.\n\n" +
	"[p]: http://API.test:80/orders/1/payment\n\n" +
	"Shipping\n--------\n\n### Tracking `status`\n\n<table><tr><td><a href=\"/guide.md\">This page</a></td><td><a href=\"/orders\">the orders</a></td></tr></table>\n\n" +
	"```\n# not a heading [nor](/a-link)\n```\n"

// withGuide gives the conformant site a sampled HTML page, /guide, and its
// negotiated twin.
func withGuide(s site, html, md string) {
	s["sample-guide"] = crawl("/guide", 200).Header("Content-Type", "text/html; charset=utf-8").Body(html)
	s["guide-md"] = get(discovery.PurposeMarkdown, "/guide").ReqHeader("Accept", "text/markdown").Status(200).
		Header("Content-Type", "text/markdown; charset=utf-8").Header("Vary", "Accept").Body(md)
	s["guide-html"] = get(discovery.PurposeMarkdownHTML, "/guide").ReqHeader("Accept", "text/html").Status(200).
		Header("Content-Type", "text/html; charset=utf-8").Header("Vary", "Accept").Body(html)
	s["sitemap"].Body(urlset("/", "/orders", "/docs", "/guide"))
	s["sitemap-guide"] = get(discovery.PurposeSitemapEntry, "/guide").Status(200)
	for _, p := range []string{"/orders/1/payment", "/docs/", "/guide"} {
		s["link"+p] = link(p, 200)
	}
}

// TestMarkdownDivergent compares pages with their twins.
func TestMarkdownDivergent(t *testing.T) {
	div := []string{"discovery-markdown-divergent"}
	runSiteCases(t, []siteCase{
		{"a twin converted from the page agrees", func(s site) { withGuide(s, guidePage, generatedGuide) }, nil},
		{"a twin with the page's chrome agrees", func(s site) {
			withGuide(s, guidePage, "# Orders guide · Demo\n\n[Demo](/) [Pricing](/pricing)\n\n"+generatedGuide+"\n## Contact\n\n[Contact](/contact)\n")
		}, nil},
		{"H1 renamed in the twin", func(s site) {
			withGuide(s, guidePage, strings.Replace(generatedGuide, "Orders guide\n====", "Order handbook\n====", 1))
		}, div},
		{"H1 equal to the <title> agrees", func(s site) {
			withGuide(s, guidePage, strings.Replace(generatedGuide, "Orders guide\n====", "Orders guide · Demo\n====", 1))
		}, nil},
		{"one heading of four renamed: an overlap of 3/5", func(s site) {
			withGuide(s, guidePage, strings.Replace(generatedGuide, "Shipping\n---", "Delivery\n---", 1))
		}, div},
		{"three links differ", func(s site) {
			withGuide(s, guidePage, generatedGuide+"\n[Old](/old-a) [Gone](/old-b)\n")
		}, nil},
		{"four links differ", func(s site) {
			withGuide(s, guidePage, generatedGuide+"\n[Old](/old-a) [Gone](/old-b) [Elsewhere](https://other.example/) [Moved](/old-c)\n")
		}, div},
		{"a page without H1 is titled by <title>", func(s site) {
			withGuide(s, `<html><head><title>Guide</title></head><body><a href="/guide">guide</a></body></html>`, "# Guide\n\nSee [the guide](/guide).\n")
		}, nil},
		{"a twin titled otherwise than the <title>", func(s site) {
			withGuide(s, `<html><head><title>Guide</title></head><body><a href="/guide">guide</a></body></html>`, "# Handbook\n")
		}, div},
		{"a truncated twin is not judged", func(s site) {
			withGuide(s, guidePage, "# Something else\n")
			s["guide-md"].Build().Response.Truncated = true
		}, nil},
	})
}

// TestMarkdownDivergentEvidence holds the finding to naming what differs,
// a few items of each kind, and the thresholds to the configuration.
func TestMarkdownDivergentEvidence(t *testing.T) {
	s := conformant()
	withGuide(s, guidePage, "# Order handbook\n\n## Paying & refunds\n\n## Returns\n\n"+
		"[a](/a) [b](/b) [c](/c) [d](/d) [e](/e) [f](/f) [g](https://other.example/g)\n")
	in := s.input(false)
	fs, _ := checkstest.Run(t, discovery.MarkdownDivergent{}, in)
	if len(fs) != 1 {
		t.Fatalf("findings %+v, want one", fs)
	}
	msg := fs[0].Message
	for _, want := range []string{
		`the Markdown twin of /guide (Accept: text/markdown)`,
		`its H1 is "Order handbook" where the page's is "Orders guide"`,
		`its headings overlap the page's by 0.25, under 0.80 (only in the page: "Shipping", "Tracking status"; only in the twin: "Returns")`,
		`11 link targets differ, over 3 (only in the page: /orders, /orders/1/payment, /docs, https://pay.example/terms; only in the twin: /a, /b, /c, /d, /e and 2 more)`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if ev := fs[0].Evidence; len(ev) != 2 || ev[0].Purpose != discovery.PurposeMarkdown || ev[1].Purpose != discovery.PurposeMarkdownHTML ||
		ev[0].Actual != `H1 "Order handbook", headings overlapping by 0.25, 11 link targets differing` {
		t.Errorf("evidence %+v", ev)
	}

	zero, lenient, none := 0, 20, 0.0
	in = s.input(false)
	in.Twins = checks.TwinLimits{MinHeadingOverlap: &none, MaxLinkDifferences: &lenient}
	fs, _ = checkstest.Run(t, discovery.MarkdownDivergent{}, in)
	if len(fs) != 1 || strings.Contains(fs[0].Message, "overlap") || strings.Contains(fs[0].Message, "link targets") {
		t.Errorf("with lenient limits, findings %+v, want the H1 alone", fs)
	}

	s = conformant()
	withGuide(s, guidePage, generatedGuide+"\n[Old](/old-a)\n")
	in = s.input(false)
	in.Twins = checks.TwinLimits{MaxLinkDifferences: &zero}
	// The root's twin links to /orders, which its HTML does not.
	fs, _ = checkstest.Run(t, discovery.MarkdownDivergent{}, in)
	if len(fs) != 2 || !strings.Contains(fs[0].Message, "twin of / (") || !strings.Contains(fs[1].Message, "1 link target differs, over 0 (only in the twin: /old-a)") {
		t.Errorf("with no link difference allowed, findings %+v", fs)
	}
}
