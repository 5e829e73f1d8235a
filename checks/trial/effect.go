package trial

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

var (
	// closedLoopRef is seed 003's rule that an action returns a state the
	// caller can verify, not "request sent".
	closedLoopRef = finding.SpecRef{Doc: "agent-readiness guidance", Section: "Stateful business actions for agents: a verifiable, closed-loop state", Level: "SHOULD",
		URL: "https://github.com/agentready/agentready/blob/main/docs/hypermedia.md#stateful-actions"}
	// validForVersionRef is the affordance's version contract, as the
	// affordance family cites it.
	validForVersionRef = finding.SpecRef{Doc: "agent-readiness guidance", Section: "Stable Verbs, Dynamic Affordances (validForVersion)", Level: "MUST",
		URL: "https://github.com/agentready/agentready/blob/main/docs/hypermedia.md#hybrid-affordances"}
	ifMatchRef = finding.SpecRef{Doc: "RFC 9110", Section: "13.1.1 If-Match", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1"}
)

// NextActionNoEffect reports an operation a resource's next_actions lists
// that, taken, was accepted and did nothing the re-read shows: neither the
// state it declares nor any change.
type NextActionNoEffect struct{ parts }

func (NextActionNoEffect) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-next-action-no-effect", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "An action next_actions lists does what it says when accepted", Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{closedLoopRef, declaredRef},
		Help: "`next_actions` tells an agent what it may call next, and an accepted call is what the agent reports back\n" +
			"to its user as done. A trial took an operation the resource listed, the server accepted it (a `2xx`, or a\n" +
			"tool result that is not an error), and the resource read again showed neither the state the operation\n" +
			"declares nor any other change: the agent is told the action happened, and nothing did.\n\n" +
			"**How to fix:** carry out the action before answering success, or answer `202 Accepted` with where to\n" +
			"follow it; list in `next_actions` only what has an effect now.",
	}
}

func (c NextActionNoEffect) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if !r.task.NextAction || outcome(r) != outcomeNoChange || !bothRead(r.read, r.reread) {
			return nil
		}
		declared := "the operation declares no target state"
		if r.task.Target != "" {
			declared = fmt.Sprintf("it declares the state %q", r.task.Target)
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("%s lists %s in its next_actions; taken by player %s (via %s), it was accepted (%d) and the re-read shows no change (%s)",
			exchange.PathOf(r.plan.Resource), r.task.Operation, r.plan.Player, r.via, r.call.Response.Status, declared), evidence(r.read, r.call, r.reread)...)
		return &f
	})
}

// bothRead reports two reads of the resource that each answered 2xx: a
// failed read shows nothing about what the call did.
func bothRead(before, after *exchange.Exchange) bool {
	return accepted(before) && accepted(after)
}

// StaleVersionAccepted reports an affordance's request accepted again
// after the version it was valid for had moved on.
type StaleVersionAccepted struct{ parts }

func (StaleVersionAccepted) Meta() checks.Meta {
	return checks.Meta{
		ID: "trial-stale-version-accepted", Since: checks.FirstRelease, Family: checks.FamilyTrial,
		Title: "An affordance taken again on a version that moved on is refused", Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{validForVersionRef, ifMatchRef},
		Help: "An affordance is valid for one version of the resource (`validForVersion`), so that an agent acting on\n" +
			"an old view is stopped rather than, say, shipping an order twice. A trial took the affordance, which\n" +
			"succeeded and moved the resource's version, then sent the same request once more, conditional\n" +
			"(`If-Match`) on the entity tag of the read it was offered on, now stale. The server accepted it and the\n" +
			"resource changed again. Unlike `affordance-stale-version-executed`, whose probe sends a tag no server\n" +
			"issued, this tag was the server's own, and the server itself made it stale.\n\n" +
			"**How to fix:** evaluate `If-Match` (and the version an affordance was issued for) before executing a\n" +
			"state change, and answer `412` with problem+json when it no longer matches.",
	}
}

func (c StaleVersionAccepted) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	return judge(in, func(r *run) *finding.Finding {
		if r.stale == nil || !r.changed || !accepted(r.stale) || !(reads{r.reread, r.rereadStale}).changed() || judgedActively(in, r.stale) {
			return nil
		}
		f := checks.New(c.Meta(), r.plan.Resource, fmt.Sprintf("%s on %s, sent again with If-Match: %s after its first call moved the version, was answered %d and changed the resource again (player %s)",
			r.task.Operation, exchange.PathOf(r.plan.Resource), r.stale.Request.Header.Get("If-Match"), r.stale.Response.Status, r.plan.Player),
			evidence(r.read, r.call, r.reread, r.stale, r.rereadStale)...)
		return &f
	})
}

func accepted(x *exchange.Exchange) bool {
	return x != nil && x.Response != nil && x.Response.Status/100 == 2
}

// judgedActively reports an active stale-version probe of the identical
// request (method, URL, If-Match and body), which
// affordance-stale-version-executed already judges.
func judgedActively(in *checks.Input, x *exchange.Exchange) bool {
	if in.Recording == nil {
		return false
	}
	for _, p := range in.Recording.Exchanges {
		if p.Purpose == purpose.ActiveStale && p.Request.Method == x.Request.Method && p.Request.URL == x.Request.URL &&
			p.Request.Header.Get("If-Match") == x.Request.Header.Get("If-Match") && p.Request.Body == x.Request.Body {
			return true
		}
	}
	return false
}
