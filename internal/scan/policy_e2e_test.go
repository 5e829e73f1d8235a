package scan_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/pipeline"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/score"
	"github.com/agentready/agentready/probe"
)

func scanWithPolicy(t *testing.T, p *pipeline.Policy, defects ...demo.Defect) *finding.Report {
	t.Helper()
	return mustScan(t, demo.New(defects...), scan.Options{Probe: probe.Config{Spec: probe.SpecConfig{Discover: true}}, Policy: p})
}

func result(rep *finding.Report, id string) *finding.CheckResult {
	for i := range rep.Checks {
		if rep.Checks[i].ID == id {
			return &rep.Checks[i]
		}
	}
	return nil
}

func hasNote(rep *finding.Report, sub string) bool {
	return slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, sub) })
}

func TestSeverityOverrideChangesFindingsRuleAndGrade(t *testing.T) {
	t.Parallel()
	plain := scanWithPolicy(t, nil, demo.DefectNoVaryAccept)
	rep := scanWithPolicy(t, &pipeline.Policy{Severity: map[string]finding.Severity{"vary-accept": finding.SeverityInfo}}, demo.DefectNoVaryAccept)
	if len(rep.Findings) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range rep.Findings {
		if f.CheckID == "vary-accept" && f.Severity != finding.SeverityInfo {
			t.Errorf("finding at %s after the override", f.Severity)
		}
	}
	for _, r := range rep.Rules {
		if r.ID == "vary-accept" && r.Severity != finding.SeverityInfo {
			t.Errorf("rule at %s after the override", r.Severity)
		}
	}
	if rep.Score.Value != plain.Score.Value+score.Penalty(finding.SeverityWarning) {
		t.Errorf("score %d with the override, %d without; an info finding costs nothing", rep.Score.Value, plain.Score.Value)
	}
}

func TestOffChecksAndFamiliesDoNotRun(t *testing.T) {
	t.Parallel()
	rep := scanWithPolicy(t, &pipeline.Policy{
		Severity: map[string]finding.Severity{"vary-accept": finding.SeverityNone},
		Families: map[string]bool{"mcp": false},
	}, demo.DefectNoVaryAccept)
	for _, r := range rep.Checks {
		if r.ID == "vary-accept" || r.Family == "mcp" {
			t.Errorf("%s ran", r.ID)
		}
	}
	if !hasNote(rep, "turned off by the configuration: vary-accept") || !hasNote(rep, "families left out by the configuration: mcp") {
		t.Errorf("notes %q", rep.Notes)
	}
}

func TestIgnoresNarrowByURLOperationAndTool(t *testing.T) {
	t.Parallel()
	plain := scanWithPolicy(t, nil, demo.DefectNoVaryAccept, demo.DefectMCPNoDescription)
	count := func(rep *finding.Report, id string) int {
		n := 0
		for _, f := range rep.Findings {
			if f.CheckID == id {
				n++
			}
		}
		return n
	}
	onOrders := 0
	for _, f := range plain.Findings {
		if f.CheckID == "vary-accept" && strings.Contains(f.PrimaryURL(), "/orders/") {
			onOrders++
		}
	}
	if onOrders == 0 || count(plain, "mcp-tool-description") == 0 {
		t.Fatalf("fixture lost its findings: %v", expecttest.Fired(plain))
	}
	tests := []struct {
		name    string
		ignore  config.Ignore
		check   string
		ignored int
	}{
		{"url", config.Ignore{Check: "vary-accept", URL: "/orders/*", Reason: "r"}, "vary-accept", onOrders},
		{"operation", config.Ignore{Check: "vary-accept", Operation: "getOrder", Reason: "r"}, "vary-accept", onOrders},
		{"operation by key", config.Ignore{Check: "vary-accept", Operation: "GET /orders/{id}", Reason: "r"}, "vary-accept", onOrders},
		{"tool", config.Ignore{Check: "mcp-tool-description", Tool: "getOrder", Reason: "r"}, "mcp-tool-description", count(plain, "mcp-tool-description")},
		{"other tool", config.Ignore{Check: "mcp-tool-description", Tool: "listOrders", Reason: "r"}, "mcp-tool-description", 0},
		{"whole check", config.Ignore{Check: "vary-accept", Reason: "r"}, "vary-accept", count(plain, "vary-accept")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := scanWithPolicy(t, &pipeline.Policy{Ignores: []config.Ignore{tt.ignore}}, demo.DefectNoVaryAccept, demo.DefectMCPNoDescription)
			if got := count(plain, tt.check) - count(rep, tt.check); got != tt.ignored {
				t.Fatalf("%d finding(s) ignored, want %d", got, tt.ignored)
			}
			if len(rep.Ignored) != tt.ignored {
				t.Fatalf("report lists %d ignored, want %d", len(rep.Ignored), tt.ignored)
			}
			for _, f := range rep.Ignored {
				if f.Suppression == nil || f.Suppression.Reason != "r" {
					t.Fatalf("ignored finding without its reason: %+v", f.Suppression)
				}
			}
			if tt.ignored == 0 && !hasNote(rep, "matched no finding") {
				t.Errorf("an ignore that matched nothing is not noted: %q", rep.Notes)
			}
		})
	}
}

func TestIgnoringEveryFindingPassesTheCheckAndRestoresTheGrade(t *testing.T) {
	t.Parallel()
	clean := scanWithPolicy(t, nil)
	rep := scanWithPolicy(t, &pipeline.Policy{Ignores: []config.Ignore{{Check: "vary-accept", Reason: "accepted"}}}, demo.DefectNoVaryAccept)
	r := result(rep, "vary-accept")
	if r == nil || r.Status != finding.StatusPass || r.Findings != 0 {
		t.Fatalf("vary-accept result %+v", r)
	}
	if rep.Score.Value != clean.Score.Value {
		t.Errorf("score %d, want the clean demo's %d", rep.Score.Value, clean.Score.Value)
	}
}

func TestExpiredIgnoreStopsApplyingWithANotice(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }
	ig := config.Ignore{Check: "vary-accept", Reason: "legacy", Expires: "2026-05-31"}
	rep := scanWithPolicy(t, &pipeline.Policy{Ignores: []config.Ignore{ig}, Now: now}, demo.DefectNoVaryAccept)
	if len(rep.Ignored) != 0 || !slices.Contains(expecttest.Fired(rep), "vary-accept") {
		t.Fatalf("an expired ignore still applies: %d ignored", len(rep.Ignored))
	}
	if !hasNote(rep, "the ignore of vary-accept expired on 2026-05-31") {
		t.Errorf("no expiry notice in %q", rep.Notes)
	}
	ig.Expires = "2026-06-01"
	rep = scanWithPolicy(t, &pipeline.Policy{Ignores: []config.Ignore{ig}, Now: now}, demo.DefectNoVaryAccept)
	if len(rep.Ignored) == 0 {
		t.Fatal("an ignore stopped applying on its last day")
	}
}

func TestPolicyFromConfig(t *testing.T) {
	t.Parallel()
	p, err := pipeline.PolicyFromConfig(&config.File{Checks: map[string]string{"vary-accept": "off", "vary-prefer": "warn"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Severity["vary-accept"] != finding.SeverityNone || p.Severity["vary-prefer"] != finding.SeverityWarning {
		t.Fatalf("%+v", p.Severity)
	}
}
