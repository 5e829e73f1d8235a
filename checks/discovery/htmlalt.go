package discovery

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/agentready/agentready/internal/exchange"
)

// maxHTMLLinks bounds the <link> elements read from one page, so a hostile
// page cannot make the planner resolve an unbounded number of references.
const maxHTMLLinks = 200

// htmlMarkdownLinks returns the href of every <link rel="alternate"
// type="text/markdown"> of an HTML answer, as written, together with the
// base they resolve against (the page, or its <base href>). Anything that
// is not a 2xx HTML answer with a body yields nothing.
func htmlMarkdownLinks(x *exchange.Exchange) (base string, hrefs []string) {
	if !isHTML(x) || x.Response.Dropped || len(x.Response.Body) == 0 {
		return "", nil
	}
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(x.Response.Body))
	if err != nil {
		return "", nil
	}
	base = htmlBase(d, mustURL(x.Request.URL)).String()
	d.Find("link[rel][href]").EachWithBreak(func(i int, s *goquery.Selection) bool {
		if i >= maxHTMLLinks {
			return false
		}
		rel, _ := s.Attr("rel")
		typ, _ := s.Attr("type")
		href, _ := s.Attr("href")
		if mt, _ := exchange.MediaTypeOf(typ); mt == "text/markdown" && hasToken(rel, "alternate") && strings.TrimSpace(href) != "" {
			hrefs = append(hrefs, href)
		}
		return true
	})
	return base, hrefs
}

// htmlBase is what a page's relative references resolve against: its
// <base href>, resolved against the page's URL, or that URL.
func htmlBase(d *goquery.Document, page *url.URL) *url.URL {
	if href, ok := d.Find("base[href]").First().Attr("href"); ok {
		if r, err := url.Parse(strings.TrimSpace(href)); err == nil {
			return page.ResolveReference(r)
		}
	}
	return page
}

// hasToken reports whether a space-separated, case-insensitive token list
// (HTML's rel attribute) holds tok.
func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
