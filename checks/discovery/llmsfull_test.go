package discovery_test

import (
	"testing"

	"github.com/agentready/agentready/checks/discovery"
)

// TestLLMsFull covers llms-full.txt: served as text, with live links.
func TestLLMsFull(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"llms-full as octet-stream", func(s site) {
			s["llms-full"].Build().Response.Header.Set("Content-Type", "application/octet-stream")
		}, []string{"discovery-llms-full"}},
		{"llms-full as text/plain", func(s site) { s["llms-full"].Build().Response.Header.Set("Content-Type", "text/plain") }, nil},
		{"llms-full catch-all HTML nothing links to", func(s site) {
			s["llms-full"] = get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(200).Header("Content-Type", "text/html").Body("<p>app</p>")
		}, nil},
		{"llms-full HTML llms.txt links to", func(s site) {
			s["llms-full"] = get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(200).Header("Content-Type", "text/html").Body("<p>app</p>")
			s["llms"].Body("# Demo\n\n> Orders.\n\n## API\n\n- [listOrders](/orders): Find orders\n\n## Optional\n\n- [Docs](/docs)\n- [Full](/llms-full.txt)\n")
			s["link-full"] = link("/llms-full.txt", 200)
			s["sitemap"].Body(urlset("/", "/orders", "/docs", "/llms-full.txt"))
		}, []string{"discovery-llms-full"}},
		{"llms-full 404", func(s site) { s["llms-full"] = get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(404) }, nil},
		{"llms-full dead link", func(s site) {
			s["llms-full"].Body("# Demo\n\n[the docs](/docs) and [the guide](/guide.md)\n")
			s["link-guide"] = link("/guide.md", 404)
		}, []string{"discovery-llms-full-dead-links"}},
	})
}
