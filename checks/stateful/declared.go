package stateful

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// IdempotencyKeyDeclared checks, from the OpenAPI document alone, that the
// confirm, recover and retry operations it declares take an idempotency key: the
// rule of IdempotencyKey, for operations no crawled next_actions names yet.
type IdempotencyKeyDeclared struct{}

func (IdempotencyKeyDeclared) Meta() checks.Meta {
	return checks.Meta{
		ID: idIdempotencyDeclared, Family: checks.FamilyStateful, Severity: finding.SeverityWarning,
		Documents: checks.DocOpenAPI,
		Since:     checks.FirstRelease,
		Title:     "Confirm, recover and retry operations the OpenAPI document declares take an idempotency key",
		SpecRefs:  []finding.SpecRef{ref("confirm-and-recover-take-an-idempotency-key", "SHOULD"), refIdempotencyKey},
		Help: `The final submission and its retry after a timeout are the calls an agent may
send twice. An operation of the document that is such a step must let the agent
say "this is the same request": an ` + "`Idempotency-Key`" + ` header parameter, or an
` + "`idempotency_key`" + ` member of its JSON request body. Without one a retried
payment is charged twice.

An operation is judged when it is a POST or a PATCH (PUT and DELETE are
idempotent in HTTP already) and its operationId, its ` + "`x-mcp-tool`" + ` name or the last
literal segment of its path names a confirm, recover or retry step
(` + "`confirm_action`" + `, ` + "`recoverPayment`" + `, ` + "`POST /checkouts/{id}/confirmation`" + `). One whose
body is declared without properties is not judged. The check needs only the
document, so ` + "`agentready lint`" + ` runs it; stateful-idempotency-key judges the
same rule for the steps a live flow's next_actions offer.

**How to fix:** declare the key on the operation (a required ` + "`Idempotency-Key`" + ` header
parameter) and deduplicate on it.`,
	}
}

func (c IdempotencyKeyDeclared) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	return in.EachOperation(ctx, func(op *spec.Operation) []finding.Finding {
		step := activeplan.SubmissionStep(op)
		if step == "" {
			return nil
		}
		if declared, known := operationIdempotency(op); declared || !known {
			return nil
		}
		f := checks.New(m, op.Key(), fmt.Sprintf(
			"%s (%s) is a confirm, recover or retry step, but declares no Idempotency-Key header and no idempotency_key member: a retried submission cannot be told from a new one",
			op.Key(), step), finding.Evidence{Method: op.Method, URL: op.PathTemplate,
			Expected: "an Idempotency-Key header parameter or an idempotency_key member", Actual: "(none)"})
		return []finding.Finding{checks.AtOperation(f, op)}
	})
}
