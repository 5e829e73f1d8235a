package scan

import (
	"net/url"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
)

// followUps adapts the checks that plan a second round to the probe's
// FollowUp; nil when none does, so the probe skips the round entirely.
func followUps(target *url.URL, cs []checks.Check, sh finding.Shard, plans *resourcePlans) probe.FollowUp {
	whole, owned := shardChecks(cs, sh)
	wholePlanners, ownedPlanners := checks.FollowUpPlanners(whole), checks.FollowUpPlanners(owned)
	if len(wholePlanners)+len(ownedPlanners) == 0 {
		return nil
	}
	return func(crawled, samples, probes []*exchange.Exchange) []exchange.PlannedRequest {
		pin := &checks.PlanInput{Target: target, Crawled: crawled, Samples: samples, Probes: probes}
		var out []exchange.PlannedRequest
		for _, p := range wholePlanners {
			out = append(out, p.PlanFollowUp(pin)...)
		}
		for _, p := range ownedPlanners {
			out = append(out, plans.ownedRequests(sh, p.PlanFollowUp(pin))...)
		}
		return out
	}
}
