package discovery_test

import (
	"testing"
)

// TestContentSignal covers Content-Signal lines of robots.txt: placed in a group, spelt right, agreeing with its rules.
func TestContentSignal(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"content signal", func(s site) {
			s["robots"].Body("User-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nAllow: /\n")
		}, nil},
		{"content signal before the first group", func(s site) {
			s["robots"].Body("Content-Signal: search=yes, ai-input=yes, ai-train=no\nUser-agent: *\nAllow: /\n")
		}, []string{"discovery-content-signal-placement"}},
		{"content signal after a group's rules", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\nSitemap: http://api.test/sitemap.xml\nContent-Signal: search=yes\n")
		}, nil},
		{"content signal misspelt", func(s site) {
			s["robots"].Body("User-agent: *\nContent-Signal: search=yes, ai_train=no\nAllow: /\n")
		}, []string{"discovery-content-signal-syntax"}},
		{"content signal grants what the group disallows", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: search=yes, ai-train=no\nDisallow: /\n")
		}, []string{"discovery-robots-blocks-advertised", "discovery-content-signal-contradiction"}},
		{"content signal grants what the group partly allows", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: search=yes\nDisallow: /\nAllow: /orders\n")
		}, []string{"discovery-robots-blocks-advertised"}},
		{"content signal refuses what the group disallows", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: search=no, ai-train=no\nDisallow: /\n")
		}, []string{"discovery-robots-blocks-advertised"}},
	})
}
