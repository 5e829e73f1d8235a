package discovery_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/checks/internal/purpose"
)

// TestSitemaps covers sitemaps: named or conventional, well-formed, listing live pages of the origin.
func TestSitemaps(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"sitemap 404", func(s site) { s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(404) }, []string{"discovery-sitemap-unreachable"}},
		{"unnamed sitemap 404 is no sitemap", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n")
			s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(404)
		}, nil},
		{"unnamed catch-all at /sitemap.xml is no sitemap", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n")
			s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(200).Header("Content-Type", "application/json").Body(`{"error":"x"}`)
		}, nil},
		{"unnamed sitemap is judged", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n")
			s["sitemap"].Body(strings.Replace(urlset("/", "/orders", "/docs"), "/docs", "/docs?a=1&b=2", 1))
		}, []string{"discovery-sitemap-format"}},
		{"named sitemap as HTML", func(s site) {
			s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(200).Header("Content-Type", "text/html").Body("<html></html>")
		}, []string{"discovery-sitemap-format"}},
		{"sitemap without namespace", func(s site) {
			s["sitemap"].Body(strings.Replace(urlset("/", "/orders", "/docs"), ` xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`, "", 1))
		}, []string{"discovery-sitemap-format"}},
		{"text sitemap", func(s site) {
			s["sitemap"].Body(origin+"/\n"+origin+"/orders\n"+origin+"/docs\n").Build().Response.Header.Set("Content-Type", "text/plain")
		}, nil},
		{"sitemap lists another host", func(s site) { s["sitemap"].Body(urlset("/", "/orders", "/docs", "https://elsewhere.test/")) }, []string{"discovery-sitemap-entries"}},
		{"sitemap lists a priced page", func(s site) {
			s["sitemap"].Body(urlset("/", "/orders", "/docs", "/reports/monthly"))
		}, nil},
		{"sitemap lists a page refused with a plain 402", func(s site) {
			s["sitemap"].Body(urlset("/", "/orders", "/docs", "/reports/monthly"))
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(`{"error":"card declined"}`)
		}, []string{"discovery-sitemap-entries"}},
		{"sitemap lists a dead page", func(s site) { s["sitemap-docs"] = get(discovery.PurposeSitemapEntry, "/docs").Status(404) }, []string{"discovery-sitemap-entries"}},
		{"sitemap entry read from the crawl", func(s site) {
			delete(s, "sitemap-orders")
			s["crawl-orders"] = crawl("/orders", 500)
		}, []string{"discovery-sitemap-entries"}},
		{"sitemap entry not checked is not judged", func(s site) { delete(s, "sitemap-docs") }, nil},
		{"sitemap misses a page llms.txt advertises", func(s site) { s["sitemap"].Body(urlset("/", "/orders")) }, []string{"discovery-sitemap-coverage"}},
		{"sitemap index", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\nSitemap: " + origin + "/sitemaps/index.xml\n")
			s["sitemap-index"] = get(purpose.Sitemap, "/sitemaps/index.xml").Status(200).Header("Content-Type", "text/xml").
				Body(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + origin + `/sitemaps/1.xml</loc></sitemap></sitemapindex>`)
			s["sitemap-1"] = get(purpose.Sitemap, "/sitemaps/1.xml").Status(200).Body(urlset("/", "/orders", "/docs"))
		}, nil},
		{"sitemap index child 404", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\nSitemap: " + origin + "/sitemaps/index.xml\n")
			s["sitemap-index"] = get(purpose.Sitemap, "/sitemaps/index.xml").Status(200).Header("Content-Type", "text/xml").
				Body(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + origin + `/sitemaps/1.xml</loc></sitemap></sitemapindex>`)
			s["sitemap-1"] = get(purpose.Sitemap, "/sitemaps/1.xml").Status(410)
		}, []string{"discovery-sitemap-unreachable"}},
	})
}
