package discovery_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/internal/mcp"
)

const serverCard = `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
 "name":"test.api/orders","version":"1.0.0","description":"Orders",
 "remotes":[{"type":"streamable-http","url":"http://api.test/mcp","supportedProtocolVersions":["2026-07-28","2025-11-25"]},
            {"type":"sse","url":"http://api.test/sse"}]}`

const aiCatalog = `{"entries":[{"type":"application/mcp-server-card+json","url":"/mcp/server-card"},
 {"type":"application/a2a-agent-card+json","url":"/.well-known/agent-card.json"}]}`

func cardSite() site {
	s := conformant()
	s["mcp-card"] = get(discovery.PurposeMCPCard, "/mcp/server-card").Status(200).
		Header("Content-Type", "application/mcp-server-card+json").Body(serverCard)
	s["ai-catalog"] = get(discovery.PurposeAICatalog, "/.well-known/ai-catalog.json").Status(200).
		Header("Content-Type", "application/ai-catalog+json").Body(aiCatalog)
	return s
}

func modernSnapshot() *mcp.Snapshot {
	return &mcp.Snapshot{
		Endpoint: mcp.Endpoint{URL: origin + "/mcp", Source: "Link header of /"},
		Verdict:  mcp.Verdict{Era: mcp.EraModern, Version: mcp.Modern, SupportedVersions: []string{mcp.Modern, mcp.Legacy}},
	}
}

var cardChecks = []checks.Check{discovery.MCPCardFormat{}, discovery.MCPCardRemotes{}, discovery.AICatalog{}}

func firedCard(t *testing.T, in *checks.Input) (ids []string, skipped []string) {
	t.Helper()
	for _, c := range cardChecks {
		fs, reason := checkstest.Run(t, c, in)
		ids = append(ids, checkstest.IDs(fs)...)
		if reason != "" {
			skipped = append(skipped, c.Meta().ID)
		}
	}
	return ids, skipped
}

func TestMCPCardChecks(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(site)
		snap   func(*mcp.Snapshot)
		want   []string
	}{
		{"conformant", func(site) {}, nil, nil},
		{"card not JSON", func(s site) { s["mcp-card"].Body("name: orders") }, nil, []string{"discovery-mcp-card-format"}},
		{"card without version", func(s site) { s["mcp-card"].Body(strings.Replace(serverCard, `"version"`, `"ver"`, 1)) }, nil,
			[]string{"discovery-mcp-card-format"}},
		{"remote without url", func(s site) {
			s["mcp-card"].Body(`{"name":"a/b","version":"1","description":"d","remotes":[{"type":"streamable-http"}]}`)
		}, nil, []string{"discovery-mcp-card-format"}},
		{"remote names another endpoint", func(s site) {
			s["mcp-card"].Body(strings.Replace(serverCard, "http://api.test/mcp", "/v2/mcp", 1))
		}, nil, []string{"discovery-mcp-card-remotes"}},
		{"remote claims a version the server does not list", func(s site) {
			s["mcp-card"].Body(strings.Replace(serverCard, `"2025-11-25"]`, `"2024-10-07"]`, 1))
		}, nil, []string{"discovery-mcp-card-remotes"}},
		{"legacy server, card claims the modern revision", func(site) {}, func(s *mcp.Snapshot) {
			s.Verdict = mcp.Verdict{Era: mcp.EraLegacy, Version: mcp.Legacy, FellBack: true}
		}, []string{"discovery-mcp-card-remotes"}},
		{"legacy server without a list cannot refute legacy versions", func(s site) {
			s["mcp-card"].Body(strings.Replace(serverCard, `"2026-07-28",`, `"2025-03-26",`, 1))
		}, func(s *mcp.Snapshot) { s.Verdict = mcp.Verdict{Era: mcp.EraLegacy, Version: mcp.Legacy} }, nil},
		{"undetermined revision refutes nothing", func(s site) {
			s["mcp-card"].Body(strings.Replace(serverCard, `"2025-11-25"]`, `"2024-10-07"]`, 1))
		}, func(s *mcp.Snapshot) { s.Verdict = mcp.Verdict{Era: mcp.EraUnknown, Refused: "401"} }, nil},
		{"remote on a second examined endpoint", func(s site) {
			s["mcp-card"].Body(strings.Replace(serverCard, "http://api.test/mcp", "/legacy/mcp", 1))
		}, func(s *mcp.Snapshot) {
			s.Others = []mcp.EndpointVerdict{{Endpoint: mcp.Endpoint{URL: origin + "/legacy/mcp"},
				Verdict: mcp.Verdict{Era: mcp.EraLegacy, SupportedVersions: []string{mcp.Legacy}}}}
		}, []string{"discovery-mcp-card-remotes"}},
		{"catalog entry without type", func(s site) {
			s["ai-catalog"].Body(`{"entries":[{"url":"/mcp/server-card"}]}`)
		}, nil, []string{"discovery-ai-catalog"}},
		{"catalog card entry without url or data", func(s site) {
			s["ai-catalog"].Body(`{"entries":[{"type":"application/mcp-server-card+json"}]}`)
		}, nil, []string{"discovery-ai-catalog"}},
		{"catalog without entries", func(s site) { s["ai-catalog"].Body(`{"servers":[]}`) }, nil, []string{"discovery-ai-catalog"}},
		{"catalog card URL 404", func(s site) {
			s["ai-catalog"].Body(`{"entries":[{"type":"application/mcp-server-card+json","url":"/cards/orders.json"}]}`)
			s["dead-card"] = get(discovery.PurposeMCPCard, "/cards/orders.json").Status(404)
		}, nil, []string{"discovery-ai-catalog"}},
		{"inline card lacking a name", func(s site) {
			s["ai-catalog"].Body(`{"entries":[{"type":"application/mcp-server-card+json","data":{"version":"1","description":"d"}}]}`)
		}, nil, []string{"discovery-mcp-card-format"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			s := cardSite()
			tt.mutate(s)
			in := s.input(false)
			in.MCP = modernSnapshot()
			if tt.snap != nil {
				tt.snap(in.MCP)
			}
			got, skipped := firedCard(t, in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
			if len(skipped) > 0 {
				t.Errorf("skipped %v", skipped)
			}
		})
	}
}

func TestMCPCardSkips(t *testing.T) {
	in := cardSite().input(false)
	if _, reason := checkstest.Run(t, discovery.MCPCardRemotes{}, in); !strings.Contains(reason, "MCP endpoint") {
		t.Errorf("remotes without an MCP snapshot: skip reason %q", reason)
	}
	s := conformant()
	s["mcp-card"] = get(discovery.PurposeMCPCard, "/mcp/server-card").Status(404)
	in = s.input(false)
	in.MCP = modernSnapshot()
	for _, c := range cardChecks {
		if fs, reason := checkstest.Run(t, c, in); len(fs) != 0 || reason == "" {
			t.Errorf("%s without a card: findings %v, skip %q", c.Meta().ID, fs, reason)
		}
	}
}

func TestMCPCardFindingsPointIntoTheCard(t *testing.T) {
	s := cardSite()
	s["mcp-card"].Body(strings.Replace(serverCard, "http://api.test/mcp", "/v2/mcp", 1))
	in := s.input(false)
	in.MCP = modernSnapshot()
	fs, _ := checkstest.Run(t, discovery.MCPCardRemotes{}, in)
	if len(fs) != 1 || fs[0].Evidence[0].JSONPointer != "/remotes/0/url" || !strings.Contains(fs[0].Message, "http://api.test/mcp") {
		t.Errorf("findings %+v", fs)
	}
}
