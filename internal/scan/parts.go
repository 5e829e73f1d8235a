package scan

import (
	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/probe"
)

// session is what the probe sends for the selected checks: the scan knows
// no check, only what they plan and need (checks.Meta.Needs).
func session(opts Options, plan probe.Planner) probe.Session {
	needs := checks.NeedsOf(opts.Checks)
	s := probe.Session{
		Config:         opts.Probe,
		Identities:     opts.Identities,
		Plan:           plan,
		PlanAsIdentity: identityPlanner(opts.Checks, opts.Shard),
		Active:         opts.Active.activePlan(needs),
		Trial:          opts.Trial.trialSession(),
		KeepSpecText:   needs.Has(checks.NeedsSpecText),
		Shard:          opts.Shard,
		Secrets:        secretHeaders(opts),
		Progress:       opts.Progress,
	}
	// Comparing callers needs the same pages whole for each: the least URLs
	// of a shape differ from one caller's crawl to another's. What active
	// probes send rests on what no page offered, which only every page says.
	if needs.Has(checks.NeedsEveryPage) || len(opts.Identities) > 1 || s.Active != nil {
		s.ReadEveryPage = true
	}
	perIdentity := len(opts.Identities) > 1 && needs.Has(checks.NeedsMCPPerIdentity)
	// A trial calls the tools the MCP endpoint lists.
	if (opts.MCPEndpoint != "" || needs.Has(checks.NeedsMCP) || perIdentity || s.Trial != nil) && opts.Shard.SiteWide() {
		s.MCP = &probe.MCPPlan{Named: opts.MCPEndpoint, PerIdentity: perIdentity}
	}
	return s
}

// identityPlanner adapts the parts that plan for a less privileged identity
// to the probe; nil when no selected check brings one.
func identityPlanner(cs []checks.Check, sh finding.Shard) func(*exchange.Recording, int) probe.Planner {
	var planners []checks.IdentityProber
	whole, owned := shardChecks(cs, sh)
	for _, p := range checks.PartsOf(append(whole, owned...)) {
		if ip, ok := p.(checks.IdentityProber); ok {
			planners = append(planners, ip)
		}
	}
	if len(planners) == 0 {
		return nil
	}
	return func(privileged *exchange.Recording, pages int) probe.Planner {
		return func(crawled, _ []*exchange.Exchange) []exchange.PlannedRequest {
			in := &checks.IdentityPlanInput{Crawled: crawled, Privileged: privileged, Pages: pages}
			var out []exchange.PlannedRequest
			for _, p := range planners {
				out = append(out, p.PlanAsIdentity(in)...)
			}
			return ownedRequests(sh, out)
		}
	}
}

// annotate lets the parts of the selected checks add their notes and
// sections to the report.
func annotate(in *checks.Input, rep *finding.Report, cs []checks.Check) {
	for _, p := range checks.PartsOf(cs) {
		if a, ok := p.(checks.Annotator); ok {
			a.Annotate(in, rep)
		}
	}
}
