package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/finding"
)

// renamedCheck is vary-accept, formerly vary-accept-old.
type renamedCheck struct{}

func (renamedCheck) Meta() checks.Meta {
	return checks.Meta{
		ID: "vary-accept", Aliases: []string{"vary-accept-old"}, Since: checks.FirstRelease,
		Family: checks.FamilyVary, Title: "Responses that vary by Accept say so", Help: "Why.\n\n**How to fix:** say so.",
		Severity: finding.SeverityWarning, SpecRefs: []finding.SpecRef{{Doc: "RFC 9110", Section: "12.5.5", Level: "SHOULD"}},
	}
}

func (renamedCheck) Run(context.Context, *checks.Input) ([]finding.Finding, error) { return nil, nil }

func TestExplainAFormerIDShowsTheRenamedCheck(t *testing.T) {
	reg, err := checks.NewRegistry(renamedCheck{})
	if err != nil {
		t.Fatal(err)
	}
	rule, preface, err := explain(reg, "vary-accept-old")
	if err != nil {
		t.Fatal(err)
	}
	if want := "vary-accept-old was renamed vary-accept; overrides, ignores and baselines that name vary-accept-old apply to it."; preface != want || rule.ID != "vary-accept" {
		t.Errorf("explain of the former ID: %s, %q; want vary-accept, %q", rule.ID, preface, want)
	}
	if rule, preface, err := explain(reg, "vary-accept"); err != nil || preface != "" || rule.ID != "vary-accept" {
		t.Errorf("explain of the ID: %v, %s, %q", err, rule.ID, preface)
	}
	if _, _, err := explain(reg, "vary-accept-older"); err == nil || !strings.Contains(err.Error(), `did you mean "vary-accept"`) {
		t.Errorf("explain of an unknown ID: %v", err)
	}
}

// A configuration written before a rename validates: its overrides and
// ignores may name the former ID.
func TestAConfigurationMayNameAFormerID(t *testing.T) {
	f := &config.File{
		Checks:  map[string]string{"vary-accept-old": "info"},
		Ignores: []config.Ignore{{Check: "vary-accept-old", Reason: "legacy"}},
	}
	if err := f.Validate(namesOf([]checks.Check{renamedCheck{}})); err != nil {
		t.Errorf("Validate: %v", err)
	}
}
