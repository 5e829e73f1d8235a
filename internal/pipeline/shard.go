package pipeline

import (
	"fmt"

	"github.com/agentready/agentready/internal/finding"
)

// ShardFilter keeps what one shard of a split scan reports (see
// internal/scan's shard.go for how the work is divided).
type ShardFilter struct {
	Shard finding.Shard
	// Owns reports a finding this shard reports; another shard reports
	// every other one.
	Owns func(finding.Finding) bool
	// Elsewhere is why another shard runs the check, or "" when this one
	// does.
	Elsewhere func(checkID string) string
}

// LeftToOtherShards ends the observation a shard adds to a check some of
// whose findings other shards report; merging the shards drops it.
const LeftToOtherShards = "about other shards' path shapes are left to them"

// keepShard drops the findings other shards report, and says so in the
// results: a check that failed only on other shards' shapes passed on this
// shard's, and a check another shard runs is skipped here. It comes before
// the policy, so that ignores and the baseline count the shard's findings.
func keepShard(p *Pipeline, fs []finding.Finding) []finding.Finding {
	sf := p.Shard
	if sf == nil {
		return fs
	}
	kept, dropped := map[string]int{}, map[string]int{}
	worst := map[string]finding.Severity{}
	out := fs[:0]
	for _, f := range fs {
		if sf.Owns(f) {
			out = append(out, f)
			kept[f.CheckID]++
			worst[f.CheckID] = max(worst[f.CheckID], f.Severity)
			continue
		}
		dropped[f.CheckID]++
	}
	defaults := map[string]finding.Severity{}
	for _, rule := range p.Rules {
		defaults[rule.ID] = rule.Severity
	}
	for i := range p.Results {
		r := &p.Results[i]
		if why := sf.Elsewhere(r.ID); why != "" {
			*r = finding.CheckResult{ID: r.ID, Family: r.Family, Status: finding.StatusSkip, Reason: why, Severity: r.Severity}
			continue
		}
		if n := dropped[r.ID]; n > 0 {
			r.Observations = append(r.Observations, fmt.Sprintf("%d finding(s) %s", n, LeftToOtherShards))
		}
		if r.Status == finding.StatusFail && dropped[r.ID] > 0 {
			r.Findings, r.Severity = kept[r.ID], worst[r.ID]
			if r.Findings == 0 {
				r.Status, r.Severity = finding.StatusPass, defaults[r.ID]
			}
		}
	}
	return out
}
