// Package negotiation checks proactive content negotiation (RFC 9110 §12),
// HEAD (§9.3.2, §8.6), OPTIONS (§9.3.7) and Allow on 405 (§10.2.1, §15.5.6).
package negotiation

import (
	"context"
	"fmt"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// All returns the family's checks.
func All() []checks.Check {
	return []checks.Check{
		PreferredType{}, QZero{}, Specificity{}, MixedWildcards{}, TieBreak{}, MalformedRange{}, Wildcard{}, Unsupported{},
		MalformedAccept{}, HeadStatus{}, HeadContentLength{}, HeadHeaders{}, HeadBody{},
		AllowOn405{}, AllowDeclared{}, OptionsAllow{}, OptionsCORSOnly{}, OptionsClientError{}, OptionsFailed{}, UnstableResource{},
	}
}

// probes is embedded by every check of the family: they share one plan, and
// the probe de-duplicates it.
type probes struct{}

func (probes) Plan(in *checks.PlanInput) []exchange.PlannedRequest { return conneg.Plan(in) }

// PlanFollowUp asks the resources with two representations how they rank
// them, and sends again the pairs a comparison would report, so that only a
// difference that holds on every send is.
func (probes) PlanFollowUp(in *checks.PlanInput) []exchange.PlannedRequest { return planFollowUp(in) }

func rfc9110(section, level string) finding.SpecRef {
	return finding.SpecRef{
		Doc: "RFC 9110", Section: section, Level: level,
		URL: "https://www.rfc-editor.org/rfc/rfc9110#section-" + section,
	}
}

// sampleProbes runs fn for each sample that has a usable own type and whose
// status held between identical requests.
func sampleProbes(ctx context.Context, in *checks.Input, fn func(s *exchange.Exchange, own string)) error {
	return eachResource(ctx, in, func(_ *conneg.View, r conneg.Resource) {
		if !r.Refused() {
			fn(r.Crawl, r.Own)
		}
	})
}

// eachResource runs fn for each resource the negotiation probes were sent
// for, refused ones included, whose status held between identical requests:
// an unstable resource is reported once, by UnstableResource, and judged by
// nothing else of the family.
func eachResource(ctx context.Context, in *checks.Input, fn func(v *conneg.View, r conneg.Resource)) error {
	if len(in.Samples) == 0 && len(conneg.ViewOf(in).Resources) == 0 {
		return checks.Skip("no resource answered 2xx to the crawl, so nothing was negotiated")
	}
	v := conneg.ViewOf(in)
	for _, r := range v.Resources {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !conneg.IsUnstable(in, r.URL()) {
			fn(v, r)
		}
	}
	return nil
}

// altProven reports the second type the resource was shown to serve
// (conneg.View.Alternate); preference checks only judge resources with two
// representations, because a server with one may always disregard Accept
// (RFC 9110 §12.4.1).
func altProven(in *checks.Input, s *exchange.Exchange, own string) (string, bool) {
	alt := conneg.ViewOf(in).Alternate(conneg.Resource{Crawl: s, Own: own})
	return alt, alt != ""
}

func status(x *exchange.Exchange) string {
	if x.Response == nil {
		return "no response (" + x.Err + ")"
	}
	return fmt.Sprintf("%d", x.Response.Status)
}

func evidence(x *exchange.Exchange, actual, expected string) finding.Evidence {
	ev := checks.Evidence(x, []string{"Accept", "Prefer"}, []string{"Content-Type", "Content-Length", "Vary", "Allow"})
	ev.Header = "Content-Type"
	ev.Actual, ev.Expected = actual, expected
	return ev
}
