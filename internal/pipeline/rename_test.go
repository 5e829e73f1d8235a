package pipeline

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
)

// renamedCheck is vary-accept, formerly vary-accept-old, whose findings the
// tests give by hand.
type renamedCheck struct{}

func (renamedCheck) Meta() checks.Meta {
	return checks.Meta{
		ID: "vary-accept", Aliases: []string{"vary-accept-old"}, Since: checks.FirstRelease,
		Family: checks.FamilyVary, Title: "t", Help: "h", Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{{Doc: "RFC 9110"}},
	}
}

func (renamedCheck) Run(context.Context, *checks.Input) ([]finding.Finding, error) { return nil, nil }

// renamedRegistry is a registry of the renamed check, as a scan has it.
func renamedRegistry(t *testing.T) []checks.Check {
	t.Helper()
	reg, err := checks.NewRegistry(renamedCheck{})
	if err != nil {
		t.Fatal(err)
	}
	return reg.All()
}

// runRenamed selects the checks with p, as a scan does before it runs
// them, and passes a finding of the renamed check on /orders/1 through the
// pipeline.
func runRenamed(t *testing.T, p *Policy) (*Pipeline, []checks.Check, []string, []finding.Finding) {
	t.Helper()
	selected, notes := p.Select(renamedRegistry(t))
	post := &Pipeline{Policy: p, Doc: ordersDoc(t),
		Results: []finding.CheckResult{{ID: "vary-accept", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityWarning}},
		Rules:   []finding.RuleInfo{{ID: "vary-accept", Severity: finding.SeverityWarning}},
	}
	fs := post.Run([]finding.Finding{found("vary-accept", "GET", "http://h/orders/1", "Accept", finding.SeverityWarning)})
	return post, selected, notes, fs
}

// A baseline written before the rename names the former ID, under the
// fingerprints its findings had; its findings are the renamed check's.
func TestABaselineOfAFormerIDMatchesTheRenamedCheck(t *testing.T) {
	old := fingerprint(&Pipeline{}, []finding.Finding{
		found("vary-accept-old", "GET", "http://h/orders/2", "Accept", finding.SeverityWarning),
		found("vary-accept-old", "GET", "http://h/", "Accept", finding.SeverityWarning),
	})
	var file bytes.Buffer
	if err := WriteBaseline(&file, &finding.Report{Findings: old}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(file.String(), `"checkId": "vary-accept-old"`) {
		t.Fatalf("the baseline does not name the former ID:\n%s", file.String())
	}
	b, err := ReadBaseline(&file)
	if err != nil {
		t.Fatal(err)
	}
	post, _, _, fs := runRenamed(t, &Policy{Baseline: b})
	if fs[0].BaselineState != finding.BaselineExisting {
		t.Errorf("the renamed check's finding is %q, want existing", fs[0].BaselineState)
	}
	sum := post.Baseline
	if sum.New != 0 || sum.Existing != 1 || len(sum.Fixed) != 1 || sum.Fixed[0].CheckID != "vary-accept" || sum.Fixed[0].URL != "http://h/" {
		t.Errorf("summary %+v: the entry on / is fixed under the check's ID now", sum)
	}
	if b.Entries[0].CheckID != "vary-accept-old" {
		t.Error("comparing rewrote the baseline it was given")
	}
}

func TestAnIgnoreOfAFormerIDIgnoresTheRenamedCheck(t *testing.T) {
	p := &Policy{Ignores: []config.Ignore{{Check: "vary-accept-old", Reason: "legacy"}}}
	post, _, notes, fs := runRenamed(t, p)
	if len(fs) != 0 || len(post.Ignored) != 1 {
		t.Fatalf("kept %d, ignored %d; want the finding ignored", len(fs), len(post.Ignored))
	}
	if !slices.Contains(post.Notes, "1 finding(s) of vary-accept ignored by the configuration: legacy") {
		t.Errorf("notes %q", post.Notes)
	}
	want := "the configuration names checks by their former IDs, which apply to the checks as renamed: vary-accept-old (now vary-accept)"
	if !slices.Contains(notes, want) {
		t.Errorf("selection notes %q, want %q", notes, want)
	}
	if p.Ignores[0].Check != "vary-accept-old" {
		t.Error("the policy's ignore was rewritten")
	}
}

func TestAnOverrideOfAFormerIDAppliesToTheRenamedCheck(t *testing.T) {
	post, _, _, fs := runRenamed(t, &Policy{Severity: map[string]finding.Severity{"vary-accept-old": finding.SeverityError}})
	if fs[0].Severity != finding.SeverityError || post.Rules[0].Severity != finding.SeverityError || post.Results[0].Severity != finding.SeverityError {
		t.Errorf("severities %s, %s, %s; want error", fs[0].Severity, post.Rules[0].Severity, post.Results[0].Severity)
	}
	// One that names the ID now wins over one that names a former ID.
	_, _, _, fs = runRenamed(t, &Policy{Severity: map[string]finding.Severity{"vary-accept-old": finding.SeverityError, "vary-accept": finding.SeverityInfo}})
	if fs[0].Severity != finding.SeverityInfo {
		t.Errorf("severity %s, want the ID's info", fs[0].Severity)
	}
	_, selected, notes, _ := runRenamed(t, &Policy{Severity: map[string]finding.Severity{"vary-accept-old": finding.SeverityNone}})
	if len(selected) != 0 || !slices.Contains(notes, "turned off by the configuration: vary-accept") {
		t.Errorf("selected %d, notes %q; want the renamed check off", len(selected), notes)
	}
}
