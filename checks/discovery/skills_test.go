package discovery_test

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/internal/purpose"
)

// TestSkills covers the Agent Skills index and the SKILL.md files it lists.
func TestSkills(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"skills index as text/plain", func(s site) {
			s["skills-index"].Build().Response.Header.Set("Content-Type", "text/plain")
		}, []string{"discovery-skills-index"}},
		{"skills index without $schema", func(s site) {
			s["skills-index"].Body(strings.Replace(skillsIndex(skillMD), `"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json",`, "", 1))
		}, []string{"discovery-skills-index"}},
		{"skills index with a bare digest", func(s site) {
			s["skills-index"].Body(strings.Replace(skillsIndex(skillMD), `"sha256:`, `"`, 1))
		}, []string{"discovery-skills-index", "discovery-skills-artifacts"}},
		{"skill edited after the index", func(s site) { s["skill"].Body(skillMD + "\nMore.\n") }, []string{"discovery-skills-artifacts"}},
		{"skill renamed in its frontmatter", func(s site) {
			body := strings.Replace(skillMD, "name: order-workflow", "name: orders", 1)
			s["skill"].Body(body)
			s["skills-index"].Body(skillsIndex(body))
		}, []string{"discovery-skills-artifacts"}},
		{"skill 404", func(s site) {
			s["skill"] = get(purpose.Skill, "/.well-known/agent-skills/order-workflow/SKILL.md").Status(404)
		}, []string{"discovery-skills-artifacts"}},
		{"no skills index", func(s site) {
			s["skills-index"] = get(purpose.SkillsIndex, "/.well-known/agent-skills/index.json").Status(404)
		}, nil},
		{"card missing skills", func(s site) { s["card"].Body(strings.Replace(card, `"skills"`, `"skillz"`, 1)) }, []string{"discovery-agent-card-fields"}},
	})
}
