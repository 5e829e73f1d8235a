// Package stateful checks stateful business actions: resources that tell an
// agent which tools it may call next ("next_actions"), what the current node
// needs ("inputs", "missing", "allowed_patch") and where a human must approve
// ("requires_confirmation"). The rules come from the stateful-action design
// (seed 003): every response of a flow says what comes next, the
// confirmation node is never skipped, submissions and retries carry an
// idempotency key, an unresolved submission offers a verification, and the
// patch vocabulary agrees with itself and with the patch schema.
//
// Whether a next_actions entry names an operation that exists is judged by
// the affordance family (affordance-next-action-unknown); this family judges
// what the entries and their flow promise.
package stateful

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/finding"
)

// Check IDs.
const (
	idMissing      = "stateful-next-actions-missing"
	idConfirmation = "stateful-confirmation-skipped"
	idIdempotency  = "stateful-idempotency-key"
	idVerify       = "stateful-verify-missing"
	idPatchFields  = "stateful-patch-fields"
	idPatchVersion = "stateful-patch-version"
)

// All returns the family's checks.
func All() []checks.Check {
	out := make([]checks.Check, len(rules))
	for i, m := range rules {
		out[i] = rule{meta: m}
	}
	return out
}

type rule struct{ meta checks.Meta }

func (r rule) Meta() checks.Meta { return r.meta }

func (r rule) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	a := analyze(in)
	if a.nodes == 0 {
		return nil, checks.Skip("no crawled JSON response carried next_actions")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.meta.ID == idIdempotency && !a.catalog.any() {
		return nil, checks.Skip("neither an OpenAPI document nor an MCP tool catalog describes the operations next_actions name")
	}
	return hypermedia.Findings(r.meta, a.issues[r.meta.ID]), nil
}

const seedStateful = "Stateful business actions for agents"

func ref(anchor, level string) finding.SpecRef {
	return finding.SpecRef{Doc: "agent-readiness guidance", Section: seedStateful, Level: level,
		URL: "https://github.com/agentready/agentready/blob/main/docs/stateful.md#" + anchor}
}
