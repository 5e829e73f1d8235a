package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/finding"
)

func TestShardStageKeepsTheShardsFindingsAndSaysSo(t *testing.T) {
	mine := func(f finding.Finding) bool { return strings.HasPrefix(f.Evidence[0].URL, "/mine") }
	at := func(id, url string, sev finding.Severity) finding.Finding {
		return finding.Finding{CheckID: id, Severity: sev, Evidence: []finding.Evidence{{URL: url}}}
	}
	p := &Pipeline{
		Rules: []finding.RuleInfo{{ID: "a", Severity: finding.SeverityWarning}, {ID: "b", Severity: finding.SeverityWarning}, {ID: "site", Severity: finding.SeverityError}},
		Results: []finding.CheckResult{
			{ID: "a", Status: finding.StatusFail, Findings: 2, Severity: finding.SeverityError},
			{ID: "b", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityError},
			{ID: "site", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityError},
		},
		Shard: &ShardFilter{
			Shard: finding.Shard{Index: 2, Total: 2},
			Owns:  func(f finding.Finding) bool { return f.CheckID != "site" && mine(f) },
			Elsewhere: func(id string) string {
				if id == "site" {
					return "shard 1 runs it"
				}
				return ""
			},
		},
	}
	fs := p.Run([]finding.Finding{
		at("a", "/mine/1", finding.SeverityWarning), at("a", "/theirs/1", finding.SeverityError),
		at("b", "/theirs/2", finding.SeverityError), at("site", "/robots.txt", finding.SeverityError),
	})
	if len(fs) != 1 || fs[0].CheckID != "a" || fs[0].Evidence[0].URL != "/mine/1" {
		t.Fatalf("kept %+v, want a's finding on /mine/1 alone", fs)
	}
	want := []finding.CheckResult{
		{ID: "a", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityWarning, Observations: []string{"1 finding(s) " + LeftToOtherShards}},
		{ID: "b", Status: finding.StatusPass, Findings: 0, Severity: finding.SeverityWarning, Observations: []string{"1 finding(s) " + LeftToOtherShards}},
		{ID: "site", Status: finding.StatusSkip, Reason: "shard 1 runs it", Severity: finding.SeverityError},
	}
	for i, w := range want {
		got := p.Results[i]
		if got.Status != w.Status || got.Findings != w.Findings || got.Severity != w.Severity || got.Reason != w.Reason || !slices.Equal(got.Observations, w.Observations) {
			t.Errorf("result %s: %+v, want %+v", w.ID, got, w)
		}
	}
}
