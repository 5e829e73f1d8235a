package checks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
)

type fake struct{ m checks.Meta }

func (f fake) Meta() checks.Meta { return f.m }
func (fake) Run(context.Context, *checks.Input) ([]finding.Finding, error) {
	return nil, nil
}

func valid(id string) checks.Meta {
	return checks.Meta{
		ID: id, Family: checks.FamilyVary, Title: "t", Help: "h",
		Severity: finding.SeverityWarning, SpecRefs: []finding.SpecRef{{Doc: "RFC 9110"}},
	}
}

func TestNewRegistryRejectsBadMetadata(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(*checks.Meta)
		want   string
	}{
		{"not kebab-case", func(m *checks.Meta) { m.ID = "Vary_Accept" }, "kebab-case"},
		{"wrong family prefix", func(m *checks.Meta) { m.ID = "negotiation-x" }, "start with its family"},
		{"unknown family", func(m *checks.Meta) { m.Family = "nope"; m.ID = "nope-x" }, "unknown family"},
		{"no title", func(m *checks.Meta) { m.Title = "" }, "title and help"},
		{"no severity", func(m *checks.Meta) { m.Severity = finding.SeverityNone }, "severity"},
		{"no clause", func(m *checks.Meta) { m.SpecRefs = nil }, "clause"},
	}
	for _, tt := range tests {
		m := valid("vary-x")
		tt.mutate(&m)
		_, err := checks.NewRegistry(fake{m})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want error containing %q", tt.what, err, tt.want)
		}
	}
	if _, err := checks.NewRegistry(fake{valid("vary-x")}, fake{valid("vary-x")}); err == nil {
		t.Error("duplicate IDs accepted")
	}
}

func TestRegistrySortsAndSuggests(t *testing.T) {
	reg, err := checks.NewRegistry(fake{valid("vary-prefer")}, fake{valid("vary-accept")})
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.All()[0].Meta().ID; got != "vary-accept" {
		t.Errorf("first = %s, want vary-accept", got)
	}
	if got := reg.Suggest("vary-acept"); got != "vary-accept" {
		t.Errorf("Suggest = %q", got)
	}
	if got := reg.Suggest("completely-different-thing"); got != "" {
		t.Errorf("Suggest of a far ID = %q, want none", got)
	}
}

// TestSuggestBreaksTiesInSortedOrder: "vary-b" and "vary-c" are one edit
// from "vary-a"; the hint is the first of them in sorted order on every run.
func TestSuggestBreaksTiesInSortedOrder(t *testing.T) {
	var cs []checks.Check
	for _, id := range []string{"vary-e", "vary-c", "vary-d", "vary-b", "vary-f"} {
		cs = append(cs, fake{valid(id)})
	}
	reg, err := checks.NewRegistry(cs...)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if got := reg.Suggest("vary-a"); got != "vary-b" {
			t.Fatalf("Suggest = %q, want vary-b", got)
		}
	}
}
