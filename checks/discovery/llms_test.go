package discovery_test

import (
	"testing"

	"github.com/agentready/agentready/checks/internal/purpose"
)

// TestLLMs covers llms.txt: its title, list items, Optional section and links.
func TestLLMs(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"llms without H1", func(s site) { s["llms"].Body("## API\n\n- [listOrders](/orders)\n") }, []string{"discovery-llms-title"}},
		{"llms item without link", func(s site) { s["llms"].Body("# Demo\n## API\n- listOrders: /orders\n") }, []string{"discovery-llms-list-items"}},
		{"llms Optional first", func(s site) { s["llms"].Body("# Demo\n## Optional\n- [Docs](/docs)\n## API\n- [o](/orders)\n") }, []string{"discovery-llms-optional-order"}},
		{"llms dead link", func(s site) { s["link-orders"] = link("/orders", 404) }, []string{"discovery-llms-dead-links", "discovery-markdown-dead-links"}},
		{"llms link unchecked is not judged", func(s site) { delete(s, "link-docs") }, nil},
		{"llms as HTML catch-all", func(s site) {
			s["llms"] = get(purpose.LLMs, "/llms.txt").Status(200).Header("Content-Type", "text/html").Body("<p>app</p>")
		}, nil},
	})
}
