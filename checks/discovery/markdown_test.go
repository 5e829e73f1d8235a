package discovery_test

import (
	"testing"

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
