// Package purpose names the requests one family or helper plans and another
// family reads: the discovery documents that surface and drift compare, the
// lower identity's fetches the active probes start from, and the active
// probes that leakage and affordance judge. A purpose only its own family
// reads stays in that family; one named here is shared, so that no family
// imports another to learn it.
package purpose

import "github.com/agentready/agentready/checks"

// Discovery documents: discovery plans them; surface and drift read them.
const (
	LLMs            = checks.PurposeLLMsText
	AgentCard       = checks.PurposeAgentCard
	AgentCardLegacy = "discovery/agent-card-legacy"
	Sitemap         = "discovery/sitemap"
	// SkillsIndex is the Agent Skills index; Skill is each SKILL.md it
	// lists, fetched as a follow-up.
	SkillsIndex = "discovery/agent-skills-index"
	Skill       = "discovery/agent-skill"
)

// Where the documents lint also reads from files are served: lint records
// such a file as this GET of the target's origin, so that their checks
// read it unchanged and give the fingerprints a live scan gives.
const (
	LLMsPath      = checks.PathLLMsText
	AgentCardPath = checks.PathAgentCard
)

// Robots is discovery's GET of /robots.txt, whose 5xx is
// discovery-robots-unreachable's defect; problem-json reads it so that the
// failure is reported once.
const Robots = "discovery/robots"

// CrossFetch is a GET, as a lower identity, of a resource the most
// privileged identity read: leakage plans it, and the active probes find
// the controls each identity was offered in it.
const CrossFetch = "leakage/cross-fetch"

// Active probes: the state-changing requests activeplan plans, sent only
// with --active; leakage judges the hidden operation, affordance the stale
// version and the state transition, stateful the next_actions flows (the
// off-list call, the patch outside allowed_patch, the idempotent replay).
// A re-read is the GET of the resource a flow probe acted on, sent right
// after it to see what it changed.
const (
	ActiveHidden       = "active/hidden-operation"
	ActiveStale        = "active/stale-version"
	ActiveState        = "active/state-transition"
	ActiveOffList      = "active/off-list"
	ActivePatchOutside = "active/patch-outside"
	ActiveReplay       = "active/idempotent-replay"
	ActivePatchReread  = "active/patch-outside/re-read"
	ActiveReplayReread = "active/idempotent-replay/re-read"
)

// NotFoundHead is a HEAD of a URL that problem-json's not-found probes GET
// (a missing child, sibling or path): problem-json plans it beside the GET,
// with the same Accept, and negotiation judges its status against that
// GET's, since a missing item is where routers that register GET alone
// answer HEAD with 405.
const NotFoundHead = "problem-json/not-found-head"
