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
		{"unknown need", func(m *checks.Meta) { m.Needs = 1 << 7 }, "unknown needs"},
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

// parted is a check that brings parts.
type parted struct {
	fake
	parts []checks.Part
}

func (p parted) Parts() []checks.Part { return p.parts }

type note struct{ text string }

func (n note) Annotate(_ *checks.Input, rep *finding.Report) { rep.Notes = append(rep.Notes, n.text) }

// unhashable is a part whose slice makes it not comparable.
type unhashable []string

func (unhashable) Annotate(*checks.Input, *finding.Report) {}

func TestNewRegistryRejectsBadParts(t *testing.T) {
	tests := []struct {
		what string
		cs   []checks.Check
		want string
	}{
		{"a family's checks disagree", []checks.Check{parted{fake{valid("vary-a")}, []checks.Part{note{"a"}}}, parted{fake{valid("vary-b")}, []checks.Part{note{"b"}}}}, "different parts"},
		{"one check of the family brings none", []checks.Check{parted{fake{valid("vary-a")}, []checks.Part{note{"a"}}}, fake{valid("vary-b")}}, "different parts"},
		{"a part that does nothing", []checks.Check{parted{fake{valid("vary-a")}, []checks.Part{"text"}}}, "IdentityProber, an Annotator or a PageReader"},
		{"a part that is not comparable", []checks.Check{parted{fake{valid("vary-a")}, []checks.Part{unhashable{}}}}, "comparable"},
	}
	for _, tt := range tests {
		_, err := checks.NewRegistry(tt.cs...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want error containing %q", tt.what, err, tt.want)
		}
	}
	shared := []checks.Part{note{"a"}}
	if _, err := checks.NewRegistry(parted{fake{valid("vary-a")}, shared}, parted{fake{valid("vary-b")}, shared}); err != nil {
		t.Errorf("a family whose checks agree: %v", err)
	}
}

// TestPartsOfKeepsEachPartOnce: parts brought by several checks, of one
// family or several, are used once, in the order of the checks.
func TestPartsOfKeepsEachPartOnce(t *testing.T) {
	a, b := note{"a"}, note{"b"}
	m := valid("negotiation-x")
	m.Family = checks.FamilyNegotiation
	cs := []checks.Check{
		parted{fake{valid("vary-a")}, []checks.Part{b, a}},
		fake{valid("vary-c")},
		parted{fake{valid("vary-b")}, []checks.Part{b, a}},
		parted{fake{m}, []checks.Part{a, unhashable{}}},
	}
	got := checks.PartsOf(cs)
	if len(got) != 3 || got[0] != checks.Part(b) || got[1] != checks.Part(a) {
		t.Errorf("PartsOf = %v, want b, a and the unhashable part once each", got)
	}
}

func TestNeedsOfUnitesTheChecksNeeds(t *testing.T) {
	a, b := valid("vary-a"), valid("vary-b")
	a.Needs, b.Needs = checks.NeedsMCP|checks.NeedsMCPPerIdentity, checks.NeedsActiveStale
	n := checks.NeedsOf([]checks.Check{fake{a}, fake{b}, fake{valid("vary-c")}})
	if !n.Has(checks.NeedsMCPPerIdentity|checks.NeedsActiveStale) || n.Has(checks.NeedsActiveHidden) {
		t.Errorf("NeedsOf = %b", n)
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
