package score

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// GateOptions say when a run fails.
type GateOptions struct {
	// FailOn fails the run on findings of this severity or worse;
	// SeverityNone turns that rule off.
	FailOn finding.Severity
	// Minimum fails the run when the grade or score is below it; nil is none.
	Minimum *finding.FailUnder
	// StrictBaseline fails the run when the report's baseline is stale.
	StrictBaseline bool
	// MinCoverage fails the run when the scan reached less than this share
	// of the OpenAPI document's GET operations, in percent (1–100), or when
	// there was no document to count them in; 0 is none.
	MinCoverage int
	// FailOnDrift says which changes to the agent surface since the
	// baseline fail the run: finding.DriftBreaking ("" too), DriftAny or
	// DriftNone. Drift findings never count toward FailOn.
	FailOnDrift string
	// FailOnTrial fails the run on findings of the trial family of this
	// severity or worse, when a trial was played; SeverityNone turns that
	// rule off. Trial findings never count toward FailOn.
	FailOnTrial finding.Severity
}

// Gate decides whether a graded report passes. With a baseline only new
// findings count toward FailOn: the baseline's findings were accepted.
func Gate(rep *finding.Report, opts GateOptions) *finding.Gate {
	g := &finding.Gate{FailOn: opts.FailOn, NewOnly: rep.Baseline != nil}
	g.Reasons = append(g.Reasons, severityReason(rep, opts.FailOn))
	if rep.Coverage.Stopped() {
		g.Reasons = append(g.Reasons, finding.GateReason{Kind: finding.GateInterrupted})
	}
	if !rep.Coverage.Reached() {
		g.Reasons = append(g.Reasons, finding.GateReason{Kind: finding.GateNotReached})
	}
	if rep.Coverage.Throttled() {
		g.Reasons = append(g.Reasons, finding.GateReason{Kind: finding.GateThrottled})
	}
	if opts.MinCoverage > 0 {
		g.MinCoverage = opts.MinCoverage
		if r, ok := coverageReason(rep.Coverage, opts.MinCoverage); ok {
			g.Reasons = append(g.Reasons, r)
		}
	}
	if m := opts.Minimum; m != nil {
		g.FailUnder = m.String()
		if !m.Met(rep.Score.Grade, rep.Score.Value) {
			g.Reasons = append(g.Reasons, finding.GateReason{Kind: finding.GateBelowMinimum})
		}
	}
	if driftCompared(rep) {
		g.FailOnDrift = opts.FailOnDrift
		if g.FailOnDrift == "" {
			g.FailOnDrift = finding.DriftBreaking
		}
		if r, ok := driftReason(rep, g.FailOnDrift); ok {
			g.Reasons = append(g.Reasons, r)
		}
	}
	if rep.Coverage.Has(finding.SurfaceTrial) {
		g.FailOnTrial = opts.FailOnTrial.String()
		if r, ok := trialReason(rep, opts.FailOnTrial); ok {
			g.Reasons = append(g.Reasons, r)
		}
	}
	if opts.StrictBaseline && rep.Baseline != nil {
		g.StrictBaseline = true
		if rep.Baseline.Stale {
			g.Reasons = append(g.Reasons, finding.GateReason{Kind: finding.GateStaleBaseline, Count: len(rep.Baseline.Fixed)})
		}
	}
	g.Passed = len(failing(g.Reasons)) == 0
	g.Reason = reasonText(g, rep)
	return g
}

// severityReason counts the findings at or above failOn, leaving out those
// the baseline lists.
func severityReason(rep *finding.Report, failOn finding.Severity) finding.GateReason {
	if failOn == finding.SeverityNone {
		return finding.GateReason{Kind: finding.GateDisabled}
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Severity >= failOn && f.BaselineState != finding.BaselineExisting && f.Family != finding.DriftFamily && f.Family != finding.TrialFamily {
			n++
		}
	}
	if n == 0 {
		return finding.GateReason{Kind: finding.GateNoFinding}
	}
	return finding.GateReason{Kind: finding.GateFindings, Count: n}
}

// driftCompared reports a scan whose surface was compared with a baseline's.
// A report without coverage (lint's) compared it when it was given a
// baseline and recorded its own surface.
func driftCompared(rep *finding.Report) bool {
	if rep.Coverage == nil {
		return rep.Baseline != nil && rep.Snapshot != nil
	}
	return rep.Coverage.Has(finding.SurfaceBaseline)
}

// driftReason counts the changes to the agent surface that fail the run:
// the breaking ones (drift findings at error), or any.
func driftReason(rep *finding.Report, failOn string) (finding.GateReason, bool) {
	if failOn == finding.DriftNone {
		return finding.GateReason{}, false
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Family == finding.DriftFamily && (failOn == finding.DriftAny || f.Severity >= finding.SeverityError) {
			n++
		}
	}
	return finding.GateReason{Kind: finding.GateDrift, Count: n}, n > 0
}

// trialReason counts the trial family's findings at or above failOn,
// leaving out those the baseline lists.
func trialReason(rep *finding.Report, failOn finding.Severity) (finding.GateReason, bool) {
	if failOn == finding.SeverityNone {
		return finding.GateReason{}, false
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Family == finding.TrialFamily && f.Severity >= failOn && f.BaselineState != finding.BaselineExisting {
			n++
		}
	}
	return finding.GateReason{Kind: finding.GateTrial, Count: n}, n > 0
}

// coverageReason fails a scan that reached less than min percent of the
// document's GET operations, or that had no document to count them in.
func coverageReason(c *finding.Coverage, min int) (finding.GateReason, bool) {
	switch p := c.Percent(); {
	case p < 0:
		return finding.GateReason{Kind: finding.GateCoverageUnknown}, true
	case p < min:
		return finding.GateReason{Kind: finding.GateBelowCoverage}, true
	}
	return finding.GateReason{}, false
}

func failing(rs []finding.GateReason) []finding.GateReason {
	var out []finding.GateReason
	for _, r := range rs {
		if r.Fails() {
			out = append(out, r)
		}
	}
	return out
}

// reasonText is the gate's reason as reports print it: what failed the run,
// or, when it passed, the severity rule that let it.
func reasonText(g *finding.Gate, rep *finding.Report) string {
	shown := failing(g.Reasons)
	if len(shown) == 0 {
		shown = g.Reasons[:1]
	}
	texts := make([]string, len(shown))
	for i, r := range shown {
		texts[i] = describe(r, g, rep)
	}
	return strings.Join(texts, "; ")
}

// describe renders one reason; reports and their goldens rely on the exact
// words.
func describe(r finding.GateReason, g *finding.Gate, rep *finding.Report) string {
	switch r.Kind {
	case finding.GateDisabled:
		return "gate disabled (--fail-on none)" + baselineCounts(rep)
	case finding.GateNoFinding:
		return fmt.Sprintf("no %sfinding at or above %s%s", newWord(g), g.FailOn, baselineCounts(rep))
	case finding.GateFindings:
		return fmt.Sprintf("%d %sfinding(s) at or above %s%s", r.Count, newWord(g), g.FailOn, baselineCounts(rep))
	case finding.GateBelowMinimum:
		return fmt.Sprintf("grade %s (score %d) is below the minimum %s", rep.Score.Grade, rep.Score.Value, g.FailUnder)
	case finding.GateStaleBaseline:
		return fmt.Sprintf("the baseline is stale: %d finding(s) it lists are fixed; rewrite it with 'agentready baseline write'", r.Count)
	case finding.GateInterrupted:
		return "the scan did not run to its end (" + rep.Coverage.Interrupted + "), so nothing it reports is a pass"
	case finding.GateNotReached:
		return "the scan reached no API resource, so nothing it reports is a pass"
	case finding.GateThrottled:
		return "the server throttled more than half of the crawl's GET requests, so nothing the scan reports is a pass"
	case finding.GateBelowCoverage:
		reached := ""
		if ops := rep.Coverage.Operations; ops != nil {
			reached = fmt.Sprintf(" (%d of %d GET operations reached)", ops.Reached, ops.Declared)
		}
		return fmt.Sprintf("coverage %d%%%s is below the minimum %d%%", rep.Coverage.Percent(), reached, g.MinCoverage)
	case finding.GateDrift:
		what := "breaking change(s)"
		if g.FailOnDrift == finding.DriftAny {
			what = "change(s)"
		}
		return fmt.Sprintf("%d %s to the agent surface since the baseline (fail-on-drift %s)", r.Count, what, g.FailOnDrift)
	case finding.GateTrial:
		return fmt.Sprintf("%d %strial finding(s) at or above %s (fail-on-trial)", r.Count, newWord(g), g.FailOnTrial)
	case finding.GateCoverageUnknown:
		return fmt.Sprintf("coverage unknown: no OpenAPI document declared GET operations to count, so the minimum coverage %d%% is not met (pass --openapi)", g.MinCoverage)
	}
	return fmt.Sprintf("gate reason %d", r.Kind)
}

func newWord(g *finding.Gate) string {
	if g.NewOnly {
		return "new "
	}
	return ""
}

func baselineCounts(rep *finding.Report) string {
	b := rep.Baseline
	if b == nil {
		return ""
	}
	return fmt.Sprintf(" (baseline: %d new, %d existing, %d fixed)", b.New, b.Existing, len(b.Fixed))
}
