package discovery_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
)

// TestRobots covers robots.txt: reachable, well-formed, and blocking nothing the site advertises.
func TestRobots(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"robots 503", func(s site) { s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(503) }, []string{"discovery-robots-unreachable"}},
		{"robots 403", func(s site) { s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(403) }, []string{"discovery-robots-forbidden"}},
		{"robots 404 is fine", func(s site) { s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(404) }, nil},
		{"robots syntax", func(s site) { s["robots"].Body("Disallow: /x\nUser-agent: *\nDisalow /y\n") }, []string{"discovery-robots-syntax"}},
		{"robots as HTML is not parsed", func(s site) {
			s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(200).Header("Content-Type", "text/html").Body("<html>")
		}, nil},
		{"robots as octet-stream", func(s site) {
			s["robots"].Build().Response.Header.Set("Content-Type", "application/octet-stream")
		}, []string{"discovery-robots-media-type"}},
		{"robots without Content-Type", func(s site) { s["robots"].Build().Response.Header.Del("Content-Type") }, []string{"discovery-robots-media-type"}},
		{"robots rules labelled HTML", func(s site) {
			s["robots"].Build().Response.Header.Set("Content-Type", "text/html; charset=utf-8")
		}, []string{"discovery-robots-media-type"}},
		{"robots text/plain with charset", func(s site) {
			s["robots"].Build().Response.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}, nil},
		{"robots too large", func(s site) { s["robots"].Body("User-agent: *\nAllow: /\n" + strings.Repeat("# pad\n", 100<<10)) }, []string{"discovery-robots-size"}},
		{"relative sitemap", func(s site) { s["robots"].Body("User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n") }, []string{"discovery-robots-sitemap"}},
		{"robots blocks what llms.txt advertises", func(s site) { s["robots"].Body("User-agent: GPTBot\nDisallow: /orders\n") }, []string{"discovery-robots-blocks-advertised"}},
		{"robots blocks the agent card's interface", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: ClaudeBot\nDisallow: /a2a\n")
		}, []string{"discovery-robots-blocks-advertised"}},
	})
}

func TestAICrawlerGroupsAreFacts(t *testing.T) {
	in := conformant().input(false)
	fs, _ := checkstest.Run(t, discovery.RobotsSyntax{}, in)
	facts := in.Observations("discovery-robots-syntax")
	if len(fs) != 0 || len(facts) != 1 || !strings.Contains(facts[0], "GPTBot") {
		t.Errorf("findings %v, facts %v", fs, facts)
	}
}

// TestRobotsNotKnownIsNotAbsent covers a robots.txt still throttled after
// retrying, or answering a server error, is not "no file": every check of
// it is not assessed (the 5xx itself is still a finding), while a 404 is a
// site without one.
func TestRobotsNotKnownIsNotAbsent(t *testing.T) {
	for _, tt := range []struct {
		name   string
		robots *checkstest.Builder
		reason string
		fires  []string
	}{
		{"429", get(discovery.PurposeRobots, "/robots.txt").Status(429), "not assessed: /robots.txt answered 429 and stayed throttled after retrying", nil},
		{"503 with Retry-After", get(discovery.PurposeRobots, "/robots.txt").Status(503).Header("Retry-After", "120"),
			"not assessed: /robots.txt answered 503 and stayed throttled after retrying", []string{"discovery-robots-unreachable"}},
		{"500", get(discovery.PurposeRobots, "/robots.txt").Status(500), "not assessed: /robots.txt answered 500, a server error", []string{"discovery-robots-unreachable"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := conformant()
			s["robots"] = tt.robots
			in := s.input(false)
			var got []string
			for _, c := range discovery.All() {
				id := c.Meta().ID
				if !strings.Contains(id, "robots") && !strings.Contains(id, "content-signal") {
					continue
				}
				fs, reason := checkstest.Run(t, c, in)
				got = append(got, checkstest.IDs(fs)...)
				if len(fs) == 0 && !strings.HasPrefix(reason, tt.reason) {
					t.Errorf("%s: skip reason %q, want it to begin %q", id, reason, tt.reason)
				}
			}
			if !slices.Equal(got, tt.fires) {
				t.Errorf("fired %v, want %v", got, tt.fires)
			}
		})
	}
}
