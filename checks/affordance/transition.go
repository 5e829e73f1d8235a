package affordance

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// TransitionExecuted flags a state-changing request that succeeded on a
// resource whose state offers no such control: the state matrix said "not
// now" and the server did it anyway. It judges the active state-transition
// probes (checks/internal/activeplan), sent only with --active.
type TransitionExecuted struct{}

// Parts implements checks.WithParts, like every check of the family.
func (TransitionExecuted) Parts() []checks.Part {
	return hypermedia.Parts()
}

func (TransitionExecuted) Meta() checks.Meta {
	return checks.Meta{
		ID:       "affordance-state-transition-executed",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyAffordance,
		Needs:    checks.NeedsActiveState,
		Title:    "Operations a resource's state does not offer are refused",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			{Doc: "agent-readiness guidance", Section: seedStateful + ": refund only (not yet shipped)", Level: "MUST",
				URL: "https://github.com/agentready/agentready/blob/main/docs/identities.md#state-transitions"},
			{Doc: "RFC 9110", Section: "15.5.10", Level: "advice", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.10"},
			{Doc: "RFC 9457", Section: "3", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9457#section-3"},
		},
		Help: `A resource's controls say which transitions its current state allows: an
order offers "cancel" while pending and not once shipped. An agent acting on
an old view, a retry or a tool whose name promises "refund only (not yet
shipped)" will still send the request; only the server's own check of the
state stops it. This active probe (sent only with ` + "`--active`" + ` and an
` + "`--active-allow`" + ` entry naming the operation) reads the state matrix of the
most privileged identity's crawl: a control that a kind of resource offered
in one state and that no resource of the kind offered in another is sent,
as that caller, to a resource in the other state. A 2xx answer means the
transition ran from a state that does not allow it. A refusal should be 409
(RFC 9110 §15.5.10: the request conflicts with the resource's state), 422,
403 or 404, with problem+json; a refusal in another form is recorded as an
observation, not graded.

**How to fix:** check the resource's current state in the handler that
executes the transition, inside the same transaction that changes it, and
answer 409 with problem+json naming the state.`,
	}
}

func (c TransitionExecuted) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	probes := activeplan.Answered(in.Recording, purpose.ActiveState)
	return activeplan.Judge(in, probes, "no operation named by --active-allow was offered on a resource in one state and absent from every resource of its kind in another", func(x *exchange.Exchange) *finding.Finding {
		st, op := x.Response.Status, activeplan.Operation(x)
		switch activeplan.OutcomeOf(x, activeplan.RefusesTransition) {
		case activeplan.Executed:
			ev := []finding.Evidence{checks.Evidence(x, []string{"Content-Type"}, []string{"Content-Type", "Location"})}
			state := "a state"
			if base, member, s := stateBefore(in.Recording, x); base != nil {
				state = fmt.Sprintf("%q", s)
				ev = append(ev, hypermedia.Evidence(base, "/"+member))
			}
			msg := fmt.Sprintf("%s %s was answered %d although %s was %s, in which no resource of its kind offered it; expected 409, 422, 403 or 404 and the state unchanged",
				x.Request.Method, exchange.PathOf(x.Request.URL), st, exchange.PathOf(x.BasedOn), state)
			f := checks.New(m, op, msg, ev...)
			return &f
		case activeplan.OtherStatus:
			in.Observe(m.ID, fmt.Sprintf("%s refused with %d, not 409, 422, 403 or 404: not graded", op, st))
		case activeplan.RefusedWithoutProblem:
			in.Observe(m.ID, fmt.Sprintf("%s refused with %d as %q, not application/problem+json: not graded", op, st, x.Response.MediaType()))
		}
		return nil
	})
}

// stateBefore is the crawled representation probe x was planned from and
// the state it named; nil when the crawl read none or it named no state.
func stateBefore(rec *exchange.Recording, x *exchange.Exchange) (base *exchange.Exchange, member, state string) {
	c := activeplan.PlannedFrom(rec, x)
	if c == nil {
		return nil, "", ""
	}
	if root := hypermedia.Decode(c).Root(); root != nil {
		if member, state := hypermedia.StateOf(root); state != "" {
			return c, member, state
		}
	}
	return nil, "", ""
}
