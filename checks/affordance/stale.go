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

// StaleVersion flags an operation executed although its request was
// conditional on a version the resource does not have. It judges the active
// stale-version probes (checks/internal/activeplan), sent only with --active.
type StaleVersion struct{}

// Parts implements checks.WithParts, like every check of the family.
func (StaleVersion) Parts() []checks.Part {
	return hypermedia.Parts()
}

func (StaleVersion) Meta() checks.Meta {
	return checks.Meta{
		ID:       "affordance-stale-version-executed",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyAffordance,
		Needs:    checks.NeedsActiveStale,
		Title:    "Operations conditional on a stale version are refused",
		Severity: finding.SeverityError,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 9110", Section: "13.1.1", Level: "MUST", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-13.1.1"},
			{Doc: "RFC 9110", Section: "15.5.13", Level: "SHOULD", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-15.5.13"},
			refStateful,
		},
		Help: `An affordance is valid for one version of a resource (` + "`validForVersion`" + `, or the
representation's entity tag). An agent that acts on an old view must be
stopped, not allowed to cancel an order that has since shipped. RFC 9110
§13.1.1: when If-Match matches no current representation, the server MUST NOT
perform the method, and answers 412 (or 409 when it reports a conflict in
its own terms). This active probe (sent only with ` + "`--active`" + ` and an
` + "`--active-allow`" + ` entry naming the operation) sends the request behind an
offered control with ` + "`If-Match: \"agentready-stale-version\"`" + `, a tag no server
issues. A 2xx answer means the server executed it anyway; any other answer
is recorded as an observation.

**How to fix:** evaluate If-Match (and the version an affordance was issued
for) before executing any state change, and answer 412 with problem+json.`,
	}
}

func (c StaleVersion) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	m := c.Meta()
	probes := activeplan.Answered(in.Recording, purpose.ActiveStale)
	return activeplan.Judge(in, probes, "no operation named by --active-allow was offered on a resource with an ETag or validForVersion", func(x *exchange.Exchange) *finding.Finding {
		st := x.Response.Status
		switch activeplan.OutcomeOf(x, activeplan.RefusesStale) {
		case activeplan.Executed:
			msg := fmt.Sprintf("%s %s with If-Match: %s (matching no representation) was answered %d; expected 412 or 409, and the method not performed",
				x.Request.Method, exchange.PathOf(x.Request.URL), activeplan.StaleETag, st)
			f := checks.New(m, activeplan.Operation(x), msg, checks.Evidence(x, []string{"If-Match", "Content-Type"}, []string{"Content-Type", "ETag"}))
			return &f
		case activeplan.OtherStatus:
			in.Observe(m.ID, fmt.Sprintf("%s with a stale If-Match was refused with %d before the precondition could be judged", activeplan.Operation(x), st))
		}
		// A 412 or 409 refused it, problem+json or not: the precondition
		// held, which is all this check judges.
		return nil
	})
}
