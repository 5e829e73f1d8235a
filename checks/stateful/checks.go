package stateful

import (
	"context"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/finding"
)

var (
	refIdempotencyKey = finding.SpecRef{Doc: "IETF draft-ietf-httpapi-idempotency-key-header", Section: "2", Level: "SHOULD",
		URL: "https://datatracker.ietf.org/doc/html/draft-ietf-httpapi-idempotency-key-header#section-2"}
	refMCPAnnotations = finding.SpecRef{Doc: "MCP 2025-11-25", Section: "server/tools ToolAnnotations", Level: "advice",
		URL: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools"}
)

// NextActionsMissing checks that every response of a stateful resource carries next_actions.
type NextActionsMissing struct{}

func (NextActionsMissing) Meta() checks.Meta {
	return checks.Meta{
		ID: idMissing, Family: checks.FamilyStateful, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "Every response of a stateful resource carries next_actions",
		SpecRefs: []finding.SpecRef{ref("every-response-carries-next-actions", "MUST")},
		Help: `In a stateful action every response tells the model which tools it may call next;
an empty ` + "`next_actions`" + ` means the flow is finished. When some responses of a kind of
resource carry ` + "`next_actions`" + ` and another of the same kind does not, the model
has no list to choose from and falls back to guessing from the whole tool
catalog. An empty list on a node that still lists ` + "`missing`" + ` fields, asks for
confirmation or says it is recoverable declares the flow finished while it
plainly is not.

Resources are grouped by path shape and media type; only the documents' own
top-level members are read.

**How to fix:** compute ` + "`next_actions`" + ` for every state of the flow, and return
` + "`[]`" + ` only when nothing remains to be done.`,
	}
}

func (c NextActionsMissing) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// ConfirmationSkipped checks that high-risk actions sit behind requires_confirmation.
type ConfirmationSkipped struct{}

func (ConfirmationSkipped) Meta() checks.Meta {
	return checks.Meta{
		ID: idConfirmation, Family: checks.FamilyStateful, Severity: finding.SeverityError, Security: true,
		Since:    checks.FirstRelease,
		Title:    "Payments, deletions, permission changes, exports and approvals sit behind requires_confirmation",
		SpecRefs: []finding.SpecRef{ref("the-confirmation-node-is-never-skipped", "MUST"), refMCPAnnotations},
		Help: `The confirmation node is a hard boundary: no matter how much the model already
knows, an action that moves money, deletes data, changes permissions, sends
data outside or needs a human's approval is offered only where
` + "`requires_confirmation`" + ` is true (on the entry or on the node that lists it), so
that the agent stops and asks. An entry is held to this when it is marked
` + "`requires_user_approval`" + `, when its description says it charges, pays, refunds,
deletes, grants, revokes, changes a role, exports, shares or sends
(descriptions that only check, verify, request or start something are not),
or when the MCP tool it names is declared destructive and not idempotent.

**How to fix:** set ` + "`requires_confirmation: true`" + ` on the node that offers the
action (or on the entry), and keep the action off the list until the flow
reaches its confirmation node.`,
	}
}

func (c ConfirmationSkipped) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// IdempotencyKey checks that confirm, recover and retry steps take an
// idempotency key.
type IdempotencyKey struct{}

func (IdempotencyKey) Meta() checks.Meta {
	return checks.Meta{
		ID: idIdempotency, Family: checks.FamilyStateful, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "Confirm, recover and retry steps take an idempotency key",
		SpecRefs: []finding.SpecRef{ref("confirm-and-recover-take-an-idempotency-key", "SHOULD"), refIdempotencyKey},
		Help: `The final submission and its retry after a timeout are the calls an agent may
send twice. An operation reached from a confirm, recover or retry step of
next_actions (an entry whose name says so: ` + "`confirm_action`" + `, ` + "`recover_action`" + `,
` + "`retryPayment`" + `) must let the agent say "this is the same request": an
` + "`Idempotency-Key`" + ` header parameter, or an ` + "`idempotency_key`" + ` member of its request
body or tool input. Without one a retried payment is charged twice. The
operation is the one the OpenAPI document (operationId, x-mcp-tool) or the MCP
tool catalog gives the entry's name; entries that resolve to neither are not
judged.

**How to fix:** declare the key on the operation and deduplicate on it.`,
	}
}

func (c IdempotencyKey) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	a, err := flows(ctx, in)
	if err != nil {
		return nil, err
	}
	if !a.catalog.any() {
		return nil, checks.Skip("neither an OpenAPI document nor an MCP tool catalog describes the operations next_actions name")
	}
	return hypermedia.Findings(c.Meta(), a.issues[idIdempotency]), nil
}

// VerifyMissing checks that a submitted or unknown outcome offers a verify action.
type VerifyMissing struct{}

func (VerifyMissing) Meta() checks.Meta {
	return checks.Meta{
		ID: idVerify, Family: checks.FamilyStateful, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "A submitted or unknown outcome offers a verify action",
		SpecRefs: []finding.SpecRef{ref("unresolved-outcomes-offer-verification", "SHOULD")},
		Help: `After a submission, or when its outcome is unknown (a gateway timeout), the
model must not blindly resubmit: the server should offer a way to check
whether the external system completed. A node or status marked submitted or
unknown, without a ` + "`verification`" + ` result, whose ` + "`next_actions`" + ` name no verify,
check or status action leaves the model to retry or give up.

**How to fix:** offer a verify action (` + "`verify_action`" + `, a status read) on every
submitted or unknown node until the verification is recorded.`,
	}
}

func (c VerifyMissing) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// PatchFields checks that inputs, allowed_patch, missing and depends_on name the same fields.
type PatchFields struct{}

func (PatchFields) Meta() checks.Meta {
	return checks.Meta{
		ID: idPatchFields, Family: checks.FamilyStateful, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "inputs, allowed_patch, missing and depends_on name the same fields",
		SpecRefs: []finding.SpecRef{ref("the-patch-vocabulary-agrees", "MUST")},
		Help: `` + "`inputs[].field`" + `, ` + "`allowed_patch`" + `, ` + "`missing`" + ` and ` + "`depends_on`" + ` tell the model which fields
to collect and submit. They must name fields the patch accepts and agree with
each other: a ` + "`missing`" + ` field the node does not allow to be patched is a dead
end, an allowed field no input describes cannot be asked for, and a
dependency on a field that does not exist can never be satisfied. When a
next action's operation or tool declares a ` + "`patch`" + ` object with its
properties, every named field must be a path in it (` + "`items[].quantity`" + ` is
` + "`items`" + `, its array items, then ` + "`quantity`" + `).

**How to fix:** derive the four lists and the patch schema from one flow
definition.`,
	}
}

func (c PatchFields) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// PatchVersion checks that a response that allows a patch carries a version.
type PatchVersion struct{}

func (PatchVersion) Meta() checks.Meta {
	return checks.Meta{
		ID: idPatchVersion, Family: checks.FamilyStateful, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "A response that allows a patch carries a version",
		SpecRefs: []finding.SpecRef{ref("patches-are-versioned", "SHOULD")},
		Help: `A patch is applied to the state the model read. A response that lists
` + "`allowed_patch`" + ` without a ` + "`version`" + ` member (or an ETag) gives the agent nothing to
send back, so a patch computed from a stale view is applied to a newer one.

**How to fix:** return the action's ` + "`version`" + ` with every node and require it in the
patch.`,
	}
}

func (c PatchVersion) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// ConfirmWhileInvalid checks that a node whose validation failed offers no confirm step.
type ConfirmWhileInvalid struct{}

func (ConfirmWhileInvalid) Meta() checks.Meta {
	return checks.Meta{
		ID: idConfirmInvalid, Family: checks.FamilyStateful, Severity: finding.SeverityError,
		Since:    checks.FirstRelease,
		Title:    "A node whose validation failed offers no confirm step",
		SpecRefs: []finding.SpecRef{ref("no-confirmation-while-validation-fails", "MUST")},
		Help: `When a field of the patch fails validation (inventory runs short, an address
cannot be delivered to), the server stops at the failing node: ` + "`applied`" + ` lists
what took effect, ` + "`validation_errors`" + ` says why the rest did not, and
` + "`next_actions`" + ` offers only the way to fix it; the confirm step does not
appear. An entry whose tool or operation name says confirm, which is marked
` + "`requires_user_approval`" + ` or ` + "`requires_confirmation`" + `, or whose description
names a high-risk action (a charge, a deletion, a permission change, an
export), offered beside a non-empty
` + "`validation_errors`" + ` invites the model to submit an order the server has just
said is wrong.

**How to fix:** compute ` + "`next_actions`" + ` after validation, and leave the confirm step
off the list while ` + "`validation_errors`" + ` has entries.`,
	}
}

func (c ConfirmWhileInvalid) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// NextActionUndescribed checks that every next_actions entry says what it does.
type NextActionUndescribed struct{}

func (NextActionUndescribed) Meta() checks.Meta {
	return checks.Meta{
		ID: idUndescribed, Family: checks.FamilyStateful, Severity: finding.SeverityInfo,
		Since:    checks.FirstRelease,
		Title:    "Every next_actions entry says what it does",
		SpecRefs: []finding.SpecRef{ref("each-next-action-says-what-it-does", "advice")},
		Help: `` + "`next_actions`" + ` "tells the model explicitly which tools it may call next and
what each one does": each entry carries a ` + "`description`" + ` (or a ` + "`title`" + `) such as
"Apply a coupon or change order details" or "Check with the payment gateway
first; do not resubmit". A bare tool name leaves the model to guess the
difference between two entries that call the same tool with other arguments,
and hides the advice a description carries. The design states this as what
the list is for, not with a MUST or SHOULD of its own, so this is advice.

**How to fix:** give each entry a ` + "`description`" + ` saying what it does in this state,
from the same flow definition that computes the list.`,
	}
}

func (c NextActionUndescribed) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}

// ResultShape checks that applied and validation_errors have the shapes the design gives them.
type ResultShape struct{}

func (ResultShape) Meta() checks.Meta {
	return checks.Meta{
		ID: idResultShape, Family: checks.FamilyStateful, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "applied and validation_errors have the shapes agents read",
		SpecRefs: []finding.SpecRef{ref("applied-and-validation-errors-have-shapes", "readiness")},
		Help: `After a patch, "` + "`applied`" + ` lists the fields that took effect,
` + "`validation_errors`" + ` explains why" the others did not. An agent reads them to tell
the user what changed and to fix what failed, so their shapes are part of the
contract: ` + "`applied`" + ` is an array of field names (` + "`[\"items\", \"address_id\"]`" + `), or an
object keyed by them; ` + "`validation_errors`" + ` is an array of objects, each naming
its field (` + "`field`" + `, ` + "`pointer`" + ` or ` + "`path`" + `) and why it failed (` + "`message`" + `, ` + "`reason`" + ` or
` + "`detail`" + `). A string, a number, or a failure without its field or message
leaves the model unable to say which field to fix. A ` + "`null`" + ` is read as an empty
list.

**How to fix:** return the fields by name and each failure as
` + "`{\"field\": \"items[].quantity\", \"message\": \"only 1 in stock\"}`" + `.`,
	}
}

func (c ResultShape) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(ctx, in, c.Meta())
}
