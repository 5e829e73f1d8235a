package checks_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// outcome is a check whose Run ends as told.
type outcome struct {
	id  string
	run func() ([]finding.Finding, error)
}

func (o outcome) Meta() checks.Meta {
	return checks.Meta{ID: o.id, Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning}
}

func (o outcome) Run(context.Context, *checks.Input) ([]finding.Finding, error) { return o.run() }

func TestEvaluateEndsEachCheckOnItsOwn(t *testing.T) {
	cs := []checks.Check{
		outcome{"discovery-pass", func() ([]finding.Finding, error) { return nil, nil }},
		outcome{"discovery-fail", func() ([]finding.Finding, error) {
			return []finding.Finding{{CheckID: "discovery-fail", Severity: finding.SeverityError}}, nil
		}},
		outcome{"discovery-skip", func() ([]finding.Finding, error) { return nil, checks.Skip("nothing to judge") }},
		outcome{"discovery-error", func() ([]finding.Finding, error) { return nil, errors.New("broken") }},
		outcome{"discovery-panic", func() ([]finding.Finding, error) { panic("boom") }},
	}
	u, _ := url.Parse("http://app.test/")
	results, fs := checks.Evaluate(context.Background(), checks.NewInput(u, &exchange.Recording{}), cs)
	want := []finding.CheckStatus{finding.StatusPass, finding.StatusFail, finding.StatusSkip, finding.StatusError, finding.StatusError}
	for i, r := range results {
		if r.ID != cs[i].Meta().ID || r.Status != want[i] {
			t.Errorf("result %d = %s %s, want %s %s", i, r.ID, r.Status, cs[i].Meta().ID, want[i])
		}
	}
	if results[1].Severity != finding.SeverityError || results[1].Findings != 1 || len(fs) != 1 {
		t.Errorf("failed check: %+v, findings %d", results[1], len(fs))
	}
	if !strings.Contains(results[4].Reason, "check panicked: boom") || results[2].Reason != "nothing to judge" {
		t.Errorf("reasons: skip %q, panic %q", results[2].Reason, results[4].Reason)
	}
}
