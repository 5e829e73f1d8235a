// Package scan wires the probe, the checks, the post-processing pipeline and
// grading into one call. It holds no business rules of its own. Merge joins
// the reports of a scan split into shards (merge.go) with the same checks,
// pipeline and grading.
package scan

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/coverage"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/score"
	"github.com/agentready/agentready/probe"
)

// Options configure one scan.
type Options struct {
	Probe   probe.Config
	Checks  []checks.Check
	Version string
	// Now is the clock; tests fix it so reports are reproducible.
	Now func() time.Time
	// MCPEndpoint is the MCP endpoint named with --mcp; when empty, the
	// endpoint is discovered on the target's origin.
	MCPEndpoint string
	// Policy tunes checks, severities, ignores and the baseline; nil is none.
	Policy *pipeline.Policy
	// Identities are the callers to scan as, least privileged first, as
	// probe.Describe made them; with two or more the leakage family compares
	// them. See identities.go.
	Identities []probe.Identity
	// Access maps operations (operationId or "METHOD /path/template") to the
	// roles that may call them, from the configuration.
	Access checks.AccessRules
	// Active enables active probes; nil sends only safe requests.
	Active *ActiveOptions
	// Trial enables a trial (see trial.go); nil plays none.
	Trial *TrialOptions
	// Replay, when set, is a recorded scan judged again instead of running
	// one: nothing is sent, and the options that decide what is sent are
	// not read. See Recording.
	Replay *Recording
	// Record, when set, is handed the recording before the checks run, for
	// --record.
	Record func(*Recording)
	// Catalog bounds an MCP catalog, from the configuration.
	Catalog checks.CatalogLimits
	// Twins are how far a Markdown twin may differ from its page, from the
	// configuration.
	Twins checks.TwinLimits
	// Shard, when split, scans one shard of the work (--shard i/n); see
	// shard.go. The zero value scans it all.
	Shard finding.Shard
	// Progress, when set, follows the scan as it runs, for a progress line;
	// nil has the scan keep its own, which names the phase an interruption
	// stopped.
	Progress *probe.Progress

	// checksGrace replaces checksGrace when set, for the tests of an
	// interruption, which would otherwise wait the whole of it.
	checksGrace time.Duration
}

// Run crawls, probes, checks and grades. opts.Probe.Budget bounds the whole
// run, shared among its phases (see probe.RunSession). It returns an error only when
// the scan could not complete; a partial scan still gives a report: one
// its budget cut is graded on what it reached, one that ctx's cancellation
// stopped (Ctrl-C, a fatal error: context.Cause names it) is not graded.
func Run(ctx context.Context, opts Options) (*finding.Report, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	started := now()
	if opts.Progress == nil {
		opts.Progress = &probe.Progress{}
	}
	grace := checksGrace
	if opts.checksGrace > 0 {
		grace = opts.checksGrace
	}
	watch := watchInterruption(ctx, opts.Progress, grace)
	defer watch.stop()
	var selectionNotes []string
	opts.Checks, selectionNotes = opts.Policy.Select(opts.Checks)
	rec := opts.Replay
	if rec == nil {
		var err error
		if rec, err = record(ctx, opts); err != nil {
			return nil, err
		}
	}
	if opts.Record != nil {
		opts.Record(rec)
	}
	out := rec.Outcome
	activeRun, activeInfo := activeReported(out.Active)
	in := checks.NewInput(rec.Target, out.Recording)
	in.Spec, in.MCP, in.Active, in.Trial = out.Spec, out.MCP, activeRun, out.Trial
	in.Identities = identityViews(out.Views)
	in.Caller, in.Access = out.Caller, opts.Access
	in.Catalog, in.Twins = opts.Catalog, opts.Twins
	in.Baseline = opts.Policy.BaselineSnapshot()
	opts.Progress.SetPhase(ctx, probe.PhaseChecks)
	checksCtx, checksDone := watch.checksContext()
	defer checksDone()
	results, findings := checks.Evaluate(checksCtx, in, opts.Checks)
	post := &pipeline.Pipeline{Doc: in.Spec, Policy: opts.Policy, Now: opts.Policy.Clock(), Results: results, Rules: RuleInfos(opts.Checks),
		Shard: shardFilter(opts.Shard, opts.Checks, in.Recording, rec.plans)}
	findings = post.Run(findings)
	rep := &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: opts.Version, DocsURL: "https://github.com/agentready/agentready"},
		Target:        rec.Target.String(),
		StartedAt:     started.UTC(),
		FinishedAt:    now().UTC(),
		Rules:         post.Rules,
		Checks:        post.Results,
		Findings:      findings,
		Ignored:       post.Ignored,
		Baseline:      post.Baseline,
		Stats:         ownedStats(opts.Shard, out.Stats, in.Recording),
		TLSUnverified: rec.TLSUnverified,
		Notes:         out.Notes,
		MCP:           out.MCPInfo(),
		Active:        activeInfo,
	}
	if checksCtx.Err() == nil {
		// The parts read what the checks derived; past the checks' grace
		// some are still deriving it, and the report is due.
		annotate(in, rep, opts.Checks)
	}
	checksDone()
	rep.Notes = append(rep.Notes, out.EchoNotes()...)
	describeSpec(rep, &out.Result)
	// What the policy did is told last, after what the scan saw.
	rep.Notes = slices.Concat(rep.Notes, selectionNotes, post.Notes)
	rep.Coverage = coverage.Of(in.Recording, in.Target, in.Spec, coverage.MCPAnswered(rep.MCP), operationsOf(&out.Result), out.Throttling)
	if why := watch.reason(out.Stats.Interrupted); why != "" {
		// What a scan stopped half-way did not reach says nothing of the
		// app's configuration: the interruption is the cause.
		rep.Coverage.Interrupted, rep.Coverage.Cause = why, ""
		rep.Stats.Interrupted = true
	}
	if in.Trial != nil && in.Trial.Sent {
		rep.Coverage.Surfaces = append(rep.Coverage.Surfaces, finding.SurfaceTrial)
	}
	if in.Baseline != nil {
		rep.Coverage.Surfaces = slices.Sorted(slices.Values(append(rep.Coverage.Surfaces, finding.SurfaceBaseline)))
	}
	rep.Score = Grade(rep)
	rep.Readiness = Readiness(rep)
	if opts.Shard.Split() {
		sh := opts.Shard
		rep.Shard = &sh
		rep.Score.Basis = PartialBasis(sh, rep.Score.Basis)
	}
	return rep, nil
}

// RuleInfos is the metadata of the checks, as reports carry it.
func RuleInfos(cs []checks.Check) []finding.RuleInfo {
	var rules []finding.RuleInfo
	for _, c := range cs {
		rules = append(rules, checks.RuleInfo(c.Meta()))
	}
	return rules
}

// Grade scores a report once the pipeline has run, in the checks' family
// order, against the surfaces and coverage the report records.
func Grade(rep *finding.Report) finding.Score {
	return score.Grade(score.Input{Families: checks.FamilyNames(), Rules: rep.Rules, Results: rep.Checks, Findings: rep.Findings,
		Needs: checks.FamilySurfaces(), Coverage: rep.Coverage})
}

// planner adapts the checks that plan probes to the probe's Planner, so the
// probe never imports the checks.
func planner(target *url.URL, cs []checks.Check, slot *specSlot, sh finding.Shard, plans *resourcePlans) probe.Planner {
	whole, owned := shardChecks(cs, sh)
	wholePlanners, ownedPlanners := checks.Planners(whole), checks.Planners(owned)
	return func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest {
		pin := &checks.PlanInput{Target: target, Crawled: crawled, Samples: samples, Spec: slot.get()}
		var out []exchange.PlannedRequest
		for _, p := range wholePlanners {
			out = append(out, p.Plan(pin)...)
		}
		for _, p := range ownedPlanners {
			out = append(out, plans.ownedRequests(sh, p.Plan(pin))...)
		}
		return out
	}
}
