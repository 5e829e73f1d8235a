package checks_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
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
		{"unknown need", func(m *checks.Meta) { m.Needs = 1 << 15 }, "unknown needs"},
		{"unknown document", func(m *checks.Meta) { m.Documents = 1 << 7 }, "unknown documents"},
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

// renamed is valid metadata of id, formerly known as aliases.
func renamed(id string, aliases ...string) checks.Meta {
	m := valid(id)
	m.Aliases = aliases
	return m
}

// TestRegistryKeepsIDsAndFormerIDsUnique: a name is one check's, as its ID
// or a former one, so that an ignore or a baseline naming it means one check.
func TestRegistryKeepsIDsAndFormerIDsUnique(t *testing.T) {
	tests := []struct {
		what string
		cs   []checks.Check
		want string
	}{
		{"a former ID that is another check's ID", []checks.Check{fake{renamed("vary-a", "vary-b")}, fake{valid("vary-b")}}, `"vary-b" is already the ID or a former ID of check "vary-a"`},
		{"an ID that is another check's former ID", []checks.Check{fake{valid("vary-b")}, fake{renamed("vary-a", "vary-b")}}, `"vary-b" is already the ID or a former ID of check "vary-b"`},
		{"a former ID of two checks", []checks.Check{fake{renamed("vary-a", "vary-old")}, fake{renamed("vary-b", "vary-old")}}, `"vary-old" is already the ID or a former ID of check "vary-a"`},
		{"a former ID twice", []checks.Check{fake{renamed("vary-a", "vary-old", "vary-old")}}, `"vary-old" is already`},
		{"its own ID as a former one", []checks.Check{fake{renamed("vary-a", "vary-a")}}, "its ID is not a former ID"},
		{"a former ID of another form", []checks.Check{fake{renamed("vary-a", "Vary_Old")}}, "must be kebab-case"},
	}
	for _, tt := range tests {
		_, err := checks.NewRegistry(tt.cs...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want error containing %q", tt.what, err, tt.want)
		}
	}
}

// TestRegistryFindsARenamedCheck: a former ID, which may be of another
// family, leads to the check, and only through Renamed.
func TestRegistryFindsARenamedCheck(t *testing.T) {
	cs := []checks.Check{fake{renamed("vary-accept", "negotiation-vary", "vary-old")}, fake{valid("vary-prefer")}}
	reg, err := checks.NewRegistry(cs...)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := reg.Renamed("negotiation-vary"); !ok || c.Meta().ID != "vary-accept" {
		t.Errorf("Renamed(negotiation-vary) = %v, %v", c, ok)
	}
	if _, ok := reg.Get("vary-old"); ok {
		t.Error("Get found a check by a former ID")
	}
	if _, ok := reg.Renamed("vary-accept"); ok {
		t.Error("Renamed found a check by its ID")
	}
	want := map[string]string{"negotiation-vary": "vary-accept", "vary-old": "vary-accept"}
	if got := checks.Renames(cs); !maps.Equal(got, want) {
		t.Errorf("Renames = %v, want %v", got, want)
	}
}

func TestRegistryRejectsASinceThatIsNoVersion(t *testing.T) {
	for _, since := range []string{"1.2", "v0.1.0", "0.01.0", "0.1.0-rc1"} {
		m := valid("vary-a")
		m.Since = since
		if _, err := checks.NewRegistry(fake{m}); err == nil || !strings.Contains(err.Error(), "MAJOR.MINOR.PATCH") {
			t.Errorf("Since %q: got %v", since, err)
		}
	}
	m := valid("vary-a")
	m.Since = checks.FirstRelease
	if _, err := checks.NewRegistry(fake{m}); err != nil {
		t.Errorf("Since %q: %v", m.Since, err)
	}
}

// lint selects by the documents a check declares, and only those it was
// given: without a catalog, no check of the catalog runs.
func TestStaticForSelectsByTheDeclaredDocuments(t *testing.T) {
	of := func(id string, d checks.Documents) checks.Check {
		m := valid(id)
		m.Documents = d
		return fake{m}
	}
	live, spec, tools, both := of("vary-live", 0), of("vary-spec", checks.DocOpenAPI), of("vary-tools", checks.DocMCPTools),
		of("vary-both", checks.DocOpenAPI|checks.DocMCPTools)
	all := []checks.Check{live, spec, tools, both}
	ids := func(cs []checks.Check) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Meta().ID)
		}
		return strings.Join(out, " ")
	}
	for _, tt := range []struct {
		given checks.Documents
		want  string
	}{
		{checks.DocOpenAPI, "vary-spec"},
		{checks.DocMCPTools, "vary-tools"},
		{checks.DocOpenAPI | checks.DocMCPTools, "vary-spec vary-tools vary-both"},
	} {
		if got := ids(checks.StaticFor(all, tt.given)); got != tt.want {
			t.Errorf("given %v: %q, want %q", tt.given.Names(), got, tt.want)
		}
	}
	if got := ids(checks.StaticOnly(all)); got != "vary-spec vary-tools vary-both" || checks.IsStatic(live) {
		t.Errorf("static: %q", got)
	}
}

// A file given to lint is recorded as the 200 answer to the GET a scan
// sends for its document, at the target's origin, so that the checks of the
// document find it where they look in a live scan.
func TestStaticInputRecordsFilesAtTheirWellKnownURL(t *testing.T) {
	target := &url.URL{Scheme: "file", Path: "/repo/api/openapi.yaml"}
	in := checks.NewStaticInput(target, nil,
		checks.File{Document: checks.DocLLMsText, Body: []byte("# Shop\n")},
		checks.File{Document: checks.DocAgentCard, Body: []byte(`{"name":"shop"}`)},
		checks.File{Document: checks.DocOpenAPI, Body: []byte("openapi: 3.1.0")})
	for _, tt := range []struct {
		purpose, url, mediaType, body string
	}{
		{"discovery/llms", "file:///llms.txt", "text/plain", "# Shop\n"},
		{"discovery/agent-card", "file:///.well-known/agent-card.json", "application/json", `{"name":"shop"}`},
	} {
		x := in.Probe(tt.purpose, tt.url)
		if x == nil || x.Request.Method != http.MethodGet || x.Request.URL != tt.url || x.Response.Status != http.StatusOK ||
			x.Response.MediaType() != tt.mediaType || string(x.Response.Body) != tt.body {
			t.Errorf("%s: %+v", tt.purpose, x)
		}
	}
	if n := len(in.Recording.Exchanges); n != 2 {
		t.Errorf("%d exchanges recorded, want 2: a file cannot hold the OpenAPI document", n)
	}
	if got := strings.Join((checks.DocOpenAPI | checks.DocMCPTools | checks.DocLLMsText | checks.DocAgentCard).Names(), " "); got != "openapi mcp-tools llms agent-card" {
		t.Errorf("names %q", got)
	}
}

func TestSubjectLineReadsOnlyLineSubjects(t *testing.T) {
	for subject, want := range map[string]int{
		checks.LineSubject(12): 12, "line 1": 1, "line 0": 0, "line -3": 0, "line 3 of 4": 0, "line 03": 0,
		"": 0, "Content-Type": 0, "skill 2": 0,
	} {
		if got := checks.SubjectLine(subject); got != want {
			t.Errorf("SubjectLine(%q) = %d, want %d", subject, got, want)
		}
	}
}
