package discovery_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/checks/internal/purpose"
)

// TestAgentCard covers the A2A agent card.
func TestAgentCard(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"card pre-1.0", func(s site) {
			s["card"].Body(`{"name":"x","url":"http://api.test/a2a","preferredTransport":"JSONRPC"}`)
		}, []string{"discovery-agent-card-fields"}},
		{"skill without tags", func(s site) { s["card"].Body(strings.Replace(card, `"tags":["orders"]`, `"tag":"orders"`, 1)) }, []string{"discovery-agent-card-skills"}},
		{"interface 404", func(s site) { s["link-a2a"] = link("/a2a", 404) }, []string{"discovery-agent-card-interfaces"}},
		{"card without caching", func(s site) {
			s["card"] = get(purpose.AgentCard, "/.well-known/agent-card.json").Status(200).Header("Content-Type", "application/json").Body(card)
		}, []string{"discovery-agent-card-caching"}},
		{"legacy card only", func(s site) {
			s["card-legacy"] = get(purpose.AgentCardLegacy, "/.well-known/agent.json").Status(200).Header("Content-Type", "application/json").
				Header("Cache-Control", "max-age=60").Header("ETag", `"x"`).Body(card)
			s["card"] = get(purpose.AgentCard, "/.well-known/agent-card.json").Status(404)
		}, []string{"discovery-agent-card-legacy"}},
	})
}

// A card that repeats a defect thousands of times gives checks.MaxFindings
// findings, the last of them counting the rest: lint reads a card up to
// --max-spec-size, far past a scan's body cap (llms.txt's parser keeps at
// most llmstxt.MaxBadItems items).
func TestRepeatedSkillDefectsAreBounded(t *testing.T) {
	skills := strings.Repeat(`{"id":"a","name":"a","description":"a"},`, 250)
	s := conformant()
	s["card"].Body(`{"name":"x","skills":[` + strings.TrimSuffix(skills, ",") + `]}`)
	fs, _ := checkstest.Run(t, discovery.AgentCardSkills{}, s.input(false))
	if len(fs) != checks.MaxFindings || !strings.Contains(fs[len(fs)-1].Message, "150 more findings") {
		t.Errorf("%d findings, the last %q", len(fs), fs[len(fs)-1].Message)
	}
}
