package scan

import (
	"cmp"
	"slices"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
	"github.com/agentready/agentready/internal/score"
)

// Readiness grades the OpenAPI document's own agent readiness: the
// report's scoring over the checks its rules mark Readiness, and the
// operations with the most deductions. It reads the report alone, so that
// lint, a scan and the merge of a scan's shards grade it alike; nil when
// no readiness check passed or failed.
func Readiness(rep *finding.Report) *finding.Readiness {
	mine := map[string]bool{}
	var rules []finding.RuleInfo
	for _, r := range rep.Rules {
		if r.Readiness {
			mine[r.ID] = true
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	var results []finding.CheckResult
	for _, c := range rep.Checks {
		if mine[c.ID] {
			results = append(results, c)
		}
	}
	var deductions []finding.Finding
	for _, f := range rep.Findings {
		if mine[f.CheckID] {
			deductions = append(deductions, f)
		}
	}
	s := score.Compute(checks.FamilyNames(), rules, results, deductions)
	if s.Grade == finding.GradeNotAssessed {
		return nil
	}
	out := &finding.Readiness{Score: s, Deductions: len(deductions)}
	out.Hotspots, out.Deducted = hotspots(deductions)
	if rep.Spec != nil {
		out.Operations = rep.Spec.Operations
	}
	return out
}

// hotspots counts the deductions of each operation, most first, then by
// the line of their first deduction; it returns the first MaxHotspots and
// how many operations have any.
func hotspots(fs []finding.Finding) ([]finding.Hotspot, int) {
	byOp := map[string]*finding.Hotspot{}
	var all []*finding.Hotspot
	for _, f := range fs {
		op := operationAt(f.Location)
		if op == "" {
			continue
		}
		h := byOp[op]
		if h == nil {
			h = &finding.Hotspot{Operation: op}
			byOp[op] = h
			all = append(all, h)
		}
		h.Deductions++
		if !slices.Contains(h.Checks, f.CheckID) {
			h.Checks = append(h.Checks, f.CheckID)
		}
		if h.Location == nil || f.Location.Line < h.Location.Line {
			loc := *f.Location
			h.Location = &loc
		}
	}
	slices.SortFunc(all, func(a, b *finding.Hotspot) int {
		return cmp.Or(b.Deductions-a.Deductions, a.Location.Line-b.Location.Line, strings.Compare(a.Operation, b.Operation))
	})
	out := make([]finding.Hotspot, 0, min(len(all), finding.MaxHotspots))
	for _, h := range all[:min(len(all), finding.MaxHotspots)] {
		slices.Sort(h.Checks)
		out = append(out, *h)
	}
	return out, len(all)
}

// operationAt names the operation a document location is in
// ("/paths/~1orders/post/…" is "POST /orders"), or "".
func operationAt(loc *finding.SourceLocation) string {
	if loc == nil || !strings.HasPrefix(loc.Pointer, "/paths/") {
		return ""
	}
	tokens := strings.SplitN(strings.TrimPrefix(loc.Pointer, "/paths/"), "/", 3)
	if len(tokens) < 2 || tokens[1] == "" || tokens[1] == "parameters" {
		return ""
	}
	return strings.ToUpper(jsonorder.Unescape(tokens[1])) + " " + jsonorder.Unescape(tokens[0])
}
