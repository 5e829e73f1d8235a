// Package stateful checks stateful business actions: resources that tell an
// agent which tools it may call next ("next_actions"), what the current node
// needs ("inputs", "missing", "allowed_patch") and where a human must approve
// ("requires_confirmation"). The rules come from the stateful-action design
// (seed 003): every response of a flow says what comes next, the
// confirmation node is never skipped, submissions and retries carry an
// idempotency key, an unresolved submission offers a verification, the
// patch vocabulary agrees with itself and with the patch schema, a node
// whose validation failed offers no confirmation, every next action says
// what it does, and applied and validation_errors have their shapes.
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
	// idIdempotencyDeclared judges the document alone.
	idIdempotencyDeclared = "stateful-idempotency-key-declared"
	idVerify              = "stateful-verify-missing"
	idPatchFields         = "stateful-patch-fields"
	idPatchVersion        = "stateful-patch-version"
	idConfirmInvalid      = "stateful-confirm-while-invalid"
	idUndescribed         = "stateful-next-action-undescribed"
	idResultShape         = "stateful-result-shape"
	idOffList             = "stateful-off-list-accepted"
	idPatchOutside        = "stateful-patch-outside-applied"
	idReplay              = "stateful-replay-second-effect"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		NextActionsMissing{}, ConfirmationSkipped{}, IdempotencyKey{}, VerifyMissing{}, PatchFields{}, PatchVersion{},
		ConfirmWhileInvalid{}, NextActionUndescribed{}, ResultShape{}, IdempotencyKeyDeclared{},
		OffListAccepted{}, PatchOutsideApplied{}, ReplaySecondEffect{},
	}
}

// judge is the findings of check m, from the family's one analysis of the
// flows the recording shows.
func judge(ctx context.Context, in *checks.Input, m checks.Meta) ([]finding.Finding, error) {
	a, err := flows(ctx, in)
	if err != nil {
		return nil, err
	}
	return hypermedia.Findings(m, a.issues[m.ID]), nil
}

// flows is the family's analysis, or why its checks are not assessed.
func flows(ctx context.Context, in *checks.Input) (*analysis, error) {
	a := analyze(in)
	if a.nodes == 0 {
		return nil, checks.Skip("no crawled JSON response carried next_actions")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return a, nil
}

const seedStateful = "Stateful business actions for agents"

func ref(anchor, level string) finding.SpecRef {
	return finding.SpecRef{Doc: "agent-readiness guidance", Section: seedStateful, Level: level,
		URL: "https://github.com/agentready/agentready/blob/main/docs/stateful.md#" + anchor}
}
