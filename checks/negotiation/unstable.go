package negotiation

import (
	"context"
	"fmt"
	"sort"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// UnstableResource reports a resource whose status changed between identical
// requests. The scan sends a request again whenever a verdict would rest on
// two answers that differ, or on a 5xx; a resource that then answers the same
// request differently is judged by this check alone, once, so that a server
// failing at random gets the same report on every scan.
type UnstableResource struct{ probes }

func (UnstableResource) Meta() checks.Meta {
	return checks.Meta{
		ID:       "negotiation-unstable-resource",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyNegotiation,
		Title:    "A resource answers identical requests with the same status",
		Severity: finding.SeverityInfo,
		SpecRefs: []finding.SpecRef{rfc9110("9.2.2", "")},
		Help: `GET is idempotent (RFC 9110 §9.2.2): an agent that retries it, or compares two
answers, expects the same outcome. A resource that answers the same request
with 200 once and 500 the next leaves an agent unable to tell a defect from bad
luck, and it leaves the scan unable to judge it: when re-sending a request the
scan compares gives another status, the resource is reported here, once, and
no other negotiation verdict is drawn from it.

**How to fix:** find why the resource fails intermittently (an overloaded
dependency, a race, a deliberate fault injection left on) and make it answer
consistently; a resource that must shed load should answer 503 with
` + "`Retry-After`" + `.`,
	}
}

func (c UnstableResource) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	unstable := conneg.Unstable(in)
	if len(unstable) == 0 && !anyRepeat(in.Recording) {
		return nil, checks.Skip("no answer needed sending again: no comparison differed and no crawled resource answered 5xx")
	}
	m := c.Meta()
	var out []finding.Finding
	for _, u := range sortedResources(unstable) {
		f := unstable[u]
		lo, hi := min(f.A.Response.Status, f.B.Response.Status), max(f.A.Response.Status, f.B.Response.Status)
		msg := fmt.Sprintf("%s answered both %d and %d to identical requests; the scan drew no other negotiation verdict from it",
			exchange.PathOf(u), lo, hi)
		pick := func(x *exchange.Exchange) finding.Evidence {
			return checks.Evidence(x, []string{"Accept", "Prefer"}, []string{"Content-Type", "Retry-After"})
		}
		a, b := pick(f.A), pick(f.B)
		a.Actual, a.Expected = fmt.Sprint(f.A.Response.Status), fmt.Sprint(f.B.Response.Status)
		evs := []finding.Evidence{a, b}
		// The crawl's GET leads, so that the finding is the same whichever
		// of the resource's requests happened to flip.
		if crawl := in.Index.Get(exchange.PurposeCrawl, u); crawl != nil && crawl != f.A {
			evs = append([]finding.Evidence{pick(crawl)}, evs...)
		}
		out = append(out, checks.New(m, "", msg, evs...))
	}
	return out, nil
}

func anyRepeat(rec *exchange.Recording) bool {
	for _, x := range rec.Exchanges {
		if conneg.IsRepeat(x.Purpose) {
			return true
		}
	}
	return false
}

func sortedResources(m map[string]conneg.Flip) []string {
	out := make([]string, 0, len(m))
	for u := range m {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}
