package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/report/json"
)

// craftedShard writes, as another CI job could, the JSON report of shard
// index/total with one check of the given status and its findings.
func craftedShard(t *testing.T, index, total int, status finding.CheckStatus, findings int) string {
	t.Helper()
	rep := finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Target:        "https://api.example/",
		Shard:         &finding.Shard{Index: index, Total: total},
		Checks:        []finding.CheckResult{{ID: "vary-accept", Family: "vary", Status: status, Findings: findings, Severity: finding.SeverityError}},
	}
	for i := range findings {
		rep.Findings = append(rep.Findings, finding.Finding{CheckID: "vary-accept", Family: "vary", Severity: finding.SeverityError,
			Message: "planted", Fingerprint: fmt.Sprintf("fp-%d-%d", index, i)})
	}
	return writeJSON(t, rep)
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shard.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReportMergeRefusesAHugeShardTotal(t *testing.T) {
	path := craftedShard(t, 1, 1<<62, finding.StatusPass, 0)
	done := make(chan result, 1)
	go func() { done <- run(t, "report", "merge", "-q", "--allow-missing", path) }()
	select {
	case r := <-done:
		if r.code != ExitUsage || !strings.Contains(r.stderr, "at most 1024 shards") {
			t.Errorf("exit %d, stderr %q; want a usage error naming the bound", r.code, r.stderr)
		}
	case <-time.After(20 * time.Second):
		// Before the bound, the list of missing shards took 2^62 entries.
		t.Fatal("merge of a shard claiming 2^62 shards did not return")
	}
	var args []string
	for i := range scan.MaxShards + 1 {
		args = append(args, fmt.Sprintf("shard-%d.json", i))
	}
	// Refused before any file is opened: none of these exists.
	if r := run(t, append([]string{"report", "merge", "-q"}, args...)...); r.code != ExitUsage || !strings.Contains(r.stderr, "1025 reports given") {
		t.Errorf("1025 reports: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestReportMergeRefusesFindingsTheChecksDeny(t *testing.T) {
	// A real split scan, then its check results rewritten to pass: before,
	// the merge graded it A+ while it carried the demo's error findings.
	paths := shardReports(t, serve(t, demo.DefectProblemStatusString, demo.DefectNoVaryAccept), "1/2", "2/2")
	var denied []string
	for _, p := range paths {
		var rep map[string]any
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		for _, c := range rep["checks"].([]any) {
			c := c.(map[string]any)
			if c["status"] == "fail" {
				c["status"], c["findings"] = "pass", 0
			}
		}
		denied = append(denied, writeJSON(t, rep))
	}
	r := run(t, "report", "merge", "--format", "json", denied[0], denied[1])
	if r.code != ExitUsage || !strings.Contains(r.stderr, "is marked pass yet carries") || !strings.Contains(r.stderr, "check problem-json-") && !strings.Contains(r.stderr, "check vary-") {
		t.Errorf("every check marked pass over error findings: exit %d, stderr %q, stdout %.200s", r.code, r.stderr, r.stdout)
	}

	for _, c := range []struct {
		name string
		path string
		has  string
	}{
		{"pass with findings", craftedShard(t, 1, 1, finding.StatusPass, 51), "check vary-accept is marked pass yet carries 51 finding(s)"},
		{"skip with findings", craftedShard(t, 1, 1, finding.StatusSkip, 2), "check vary-accept is marked skip yet carries 2 finding(s)"},
		{"findings of a check not listed", writeJSON(t, finding.Report{SchemaVersion: 1, Target: "https://api.example/", Shard: &finding.Shard{Index: 1, Total: 1},
			Findings: []finding.Finding{{CheckID: "vary-accept", Severity: finding.SeverityError, Fingerprint: "x"}}}), "1 finding(s) of check vary-accept, which the report does not list"},
		{"a check this version lacks", writeJSON(t, finding.Report{SchemaVersion: 1, Target: "https://api.example/", Shard: &finding.Shard{Index: 1, Total: 1},
			Checks: []finding.CheckResult{{ID: "vary-\x1b[31mred", Family: "vary", Status: finding.StatusFail}}}), "check vary-red is not one this version has"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "report", "merge", "-q", c.path)
			if r.code != ExitUsage || !strings.Contains(r.stderr, c.has) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, ExitUsage, c.has)
			}
		})
	}
	// A failed check with no findings stays legal: the grading policy fails
	// a check whose findings another shard owns.
	if r := run(t, "report", "merge", "-q", "--fail-on", "none", craftedShard(t, 1, 1, finding.StatusFail, 0)); r.code == ExitUsage {
		t.Errorf("a failed check without findings was refused: %s", r.stderr)
	}
}

func TestReportReadersBoundTheirInput(t *testing.T) {
	// A sparse file over the bound: refused from its size, unread.
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(`{"schemaVersion": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, jsonreport.MaxSize+1); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(t.TempDir(), "deep.json")
	os.WriteFile(deep, []byte(`{"schemaVersion": 1, "notes": `+strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)+`}`), 0o644)
	for _, args := range [][]string{
		{"report", "merge", "-q", big},
		{"report", "diff", big, big},
		{"report", "convert", "--from", big},
	} {
		if r := run(t, args...); r.code != ExitUsage || !strings.Contains(r.stderr, "268435457 bytes, larger than the 256 MiB a report may have") {
			t.Errorf("%s of a 256 MiB + 1 file: exit %d, stderr %q", args[1], r.code, r.stderr)
		}
	}
	for _, args := range [][]string{{"report", "merge", "-q", deep}, {"report", "diff", deep, deep}} {
		if r := run(t, args...); r.code != ExitUsage || !strings.Contains(r.stderr, "nested deeper than 64 levels") {
			t.Errorf("%s of a report nested 100,000 deep: exit %d, stderr %q", args[1], r.code, r.stderr)
		}
	}
}

func TestReportMergeAndDiffHonourCancellation(t *testing.T) {
	path := craftedShard(t, 1, 1, finding.StatusFail, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as SIGTERM would, before the command reads anything
	for _, args := range [][]string{{"report", "merge", "-q", path}, {"report", "diff", path, path}} {
		if r := runCtx(t, ctx, args...); r.code != ExitIncomplete || !strings.Contains(r.stderr, "interrupted") {
			t.Errorf("%s with a cancelled context: exit %d, stderr %q; want 3", args[1], r.code, r.stderr)
		}
	}
}

func TestReportMergeRulesComeFromThisBuild(t *testing.T) {
	planted := "![x](http://evil/i.png) [link](http://evil) @team"
	path := writeJSON(t, finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Target:        "https://api.example/",
		Shard:         &finding.Shard{Index: 1, Total: 1},
		Rules: []finding.RuleInfo{
			{ID: "vary-accept", Family: "vary", Title: "Vary", Help: planted, DocsURL: "http://evil/docs"},
			{ID: "custom-no-x", Family: "custom", Title: "No x", Help: planted, Severity: finding.SeverityWarning},
		},
		Checks: []finding.CheckResult{{ID: "vary-accept", Status: finding.StatusPass}, {ID: "custom-no-x", Family: "custom", Status: finding.StatusPass}},
	})
	sarifPath := filepath.Join(t.TempDir(), "merged.sarif")
	if r := run(t, "report", "merge", "-q", "--fail-on", "none", "-o", "sarif="+sarifPath, path); r.code == ExitUsage {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
						Help    struct{ Markdown string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	for _, rule := range log.Runs[0].Tool.Driver.Rules {
		md := rule.Help.Markdown
		for _, live := range []string{"![x](", "[link](", "@team", "evil/docs"} {
			if strings.Contains(md, live) || strings.Contains(rule.HelpURI, "evil") {
				t.Errorf("rule %s: %q reached code scanning from the shard:\n%s", rule.ID, live, md)
			}
		}
		if rule.ID == "vary-accept" && !strings.Contains(md, "**How to fix:**") {
			t.Errorf("vary-accept's help is not this build's:\n%s", md)
		}
	}
}
