package discovery_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/internal/exchange"
)

const altHTML = `<!doctype html><html><head><title>Demo</title>
<link rel="stylesheet" href="/style.css">
<link rel="Alternate" type="text/markdown; charset=utf-8" href="/index.md">
<link rel="alternate" type="text/markdown" href="https://elsewhere.test/index.md">
</head><body><h1>Demo</h1></body></html>`

// htmlTwinSite is a root that answers text/markdown with 406 and names its
// twin only in an HTML <link> element.
func htmlTwinSite() site {
	s := conformant()
	s["md"] = get(discovery.PurposeMarkdown, "/").ReqHeader("Accept", "text/markdown").Status(406)
	s["md-html"].Body(altHTML)
	s["alt"] = checkstest.Exchange(discovery.PurposeMarkdownAlt, "GET", origin+"/index.md").BasedOn(origin+"/").
		ReqHeader("Accept", "text/markdown").Status(200).Header("Content-Type", "text/markdown; charset=utf-8").Body("# Demo\n")
	return s
}

func TestHTMLAlternateLinkIsATwin(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(site)
		want   []string
	}{
		{"twin named by <link>", func(site) {}, nil},
		{"no <link>, no twin", func(s site) { s["md-html"].Body("<h1>Demo</h1>"); delete(s, "alt") }, []string{"discovery-markdown-twin"}},
		{"<link> twin is judged: charset", func(s site) { s["alt"].Build().Response.Header.Set("Content-Type", "text/markdown") },
			[]string{"discovery-markdown-charset"}},
		{"<link> twin is judged: dead links", func(s site) {
			s["alt"].Body("# Demo\n\n[Orders](/orders)\n")
			s["link-orders"] = link("/orders", 404)
		}, []string{"discovery-llms-dead-links", "discovery-markdown-dead-links"}},
		{"<link> target answering HTML is no twin", func(s site) {
			s["alt"].Build().Response.Header.Set("Content-Type", "text/html")
		}, []string{"discovery-markdown-twin"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			s := htmlTwinSite()
			tt.mutate(s)
			if got := fired(t, s.input(false)); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFollowUpPlansHTMLAlternates(t *testing.T) {
	target, _ := url.Parse(origin + "/")
	s := htmlTwinSite()
	root := s["root"].Build()
	root.Source = "start"
	plan := func(body string) []string {
		s["md-html"].Body(body)
		pin := &checks.PlanInput{Target: target, Crawled: []*exchange.Exchange{root},
			Probes: []*exchange.Exchange{s["md"].Build(), s["md-html"].Build()}}
		var out []string
		for _, p := range plannedKeys((discovery.MarkdownTwin{}).PlanFollowUp(pin)) {
			if strings.HasPrefix(p, discovery.PurposeMarkdownAlt) {
				out = append(out, p)
			}
		}
		return out
	}
	want := []string{"discovery/markdown-alternate GET /index.md text/markdown"}
	if got := plan(altHTML); !slices.Equal(got, want) {
		t.Errorf("planned %v, want %v (the other origin's twin must not be asked for)", got, want)
	}
	withBase := `<html><head><base href="/docs/"><link rel="alternate" type="text/markdown" href="page.md"></head></html>`
	if got := plan(withBase); !slices.Equal(got, []string{"discovery/markdown-alternate GET /docs/page.md text/markdown"}) {
		t.Errorf("with <base>: planned %v", got)
	}
	for _, body := range []string{
		`<link rel="stylesheet" type="text/markdown" href="/x.md">`,
		`<link rel="alternate" type="text/html" href="/x.html">`,
		`<link rel="alternate" type="text/markdown">`,
		strings.Repeat("<div>", 100000) + "<<<>>>&&&",
	} {
		if got := plan(body); len(got) != 0 {
			t.Errorf("planned %v from %.60q", got, body)
		}
	}
}
