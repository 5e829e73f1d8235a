package hypermedia_test

import (
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/mcp"
)

func light(id, state, op string) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/lights/"+id).Status(200).
		Header("Content-Type", "application/hal+json").
		Body(`{"state":"` + state + `","_links":{"self":{"href":"/lights/` + id + `"}},"affordances":[{"operation":"` + op + `"}]}`).Build()
}

// smallDomain is seed 000's small case: a two-state resource and three
// tools, one of them a read.
func smallDomain() (*checks.Input, *mcp.Snapshot) {
	yes := true
	in := checkstest.Input("http://api.test/", nil, light("1", "on", "turnOff"), light("2", "off", "turnOn"))
	snap := &mcp.Snapshot{Catalog: mcp.NewCatalog([]mcp.Tool{
		{Name: "getLight", Description: "Read a light.", Annotations: &mcp.Annotations{ReadOnlyHint: &yes}},
		{Name: "turnOn", Description: "Turn a light on."},
		{Name: "turnOff", Description: "Turn a light off."},
	})}
	return in, snap
}

func TestInterfacesSmallDomainShowsLittleNarrowing(t *testing.T) {
	in, snap := smallDomain()
	s := hypermedia.InterfaceCosts(in, snap)
	if s == nil || s.Catalog != "mcp" || s.Resources != 2 {
		t.Fatalf("section = %+v", s)
	}
	a, b, c := s.Interface(finding.InterfaceStatic), s.Interface(finding.InterfaceReferenced), s.Interface(finding.InterfaceDynamic)
	// Both writes apply to a light, and the state leaves one of them: the
	// references save one choice of two, no more.
	if *a.ChoicesPerStep != 2 || *a.InvalidChoicesPerStep != 1 || *b.ChoicesPerStep != 1 {
		t.Errorf("A choices %v invalid %v, B choices %v; want 2, 1, 1", *a.ChoicesPerStep, *a.InvalidChoicesPerStep, *b.ChoicesPerStep)
	}
	if *a.UpfrontTokens != snap.Catalog.Tokens || *b.UpfrontTokens != snap.Catalog.Tokens || *a.PerStepTokens != 0 || *b.PerStepTokens <= 0 {
		t.Errorf("tokens: A %v/%v, B %v/%v, catalog %d", *a.UpfrontTokens, *a.PerStepTokens, *b.UpfrontTokens, *b.PerStepTokens, snap.Catalog.Tokens)
	}
	if c.Offered || c.UpfrontTokens != nil || c.ChoicesPerStep != nil || c.Reason == "" {
		t.Errorf("no template was seen, yet dynamic = %+v", c)
	}
	if len(s.Kinds) != 2 || s.Kinds[0].State != "off" || s.Kinds[1].State != "on" {
		t.Errorf("kinds = %+v", s.Kinds)
	}
}

func TestInterfacesNotOfferedWithoutCatalogOrResources(t *testing.T) {
	in := checkstest.Input("http://api.test/", nil)
	s := hypermedia.InterfaceCosts(in, nil)
	if s == nil || len(s.Entries) != 3 || s.Kinds != nil {
		t.Fatalf("section = %+v", s)
	}
	for _, c := range s.Entries {
		if c.Offered || c.Reason == "" || c.UpfrontTokens != nil || c.CacheStablePrefix != nil {
			t.Errorf("%s: %+v, want not offered, with a reason and no figure", c.Interface, c)
		}
	}
}

func TestInterfacesCountNothingWhereNothingIsOffered(t *testing.T) {
	plain := checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/items/1").Status(200).
		Header("Content-Type", "application/json").Body(`{"id":1,"status":"open"}`).Build()
	in := checkstest.Input("http://api.test/", nil, plain)
	s := hypermedia.InterfaceCosts(in, nil)
	if s == nil || s.Resources != 0 {
		t.Fatalf("section = %+v", s)
	}
	// No catalog, no reference, no template: the tokenizer was never asked.
	if s.Tokenizer != "" {
		t.Errorf("tokenizer = %q, want nothing counted", s.Tokenizer)
	}
	for _, c := range s.Entries {
		if c.Offered || c.UpfrontTokens != nil || c.ChoicesPerStep != nil {
			t.Errorf("%s: %+v, want not offered", c.Interface, c)
		}
	}
}

// A HAL-FORMS resource whose templates are a GET "Reload" of itself, the
// convention's default template, and two writes: C has two choices, as A,
// which leaves the read-only tool out, has two.
func TestInterfacesDynamicChoicesLeaveReadOnlyTemplatesOut(t *testing.T) {
	formsLight := func(id, state string) *exchange.Exchange {
		return checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/lights/"+id).Status(200).
			Header("Content-Type", "application/prs.hal-forms+json").
			Body(`{"state":"` + state + `","_links":{"self":{"href":"/lights/` + id + `"}},"_templates":{` +
				`"default":{"title":"Reload","method":"GET","properties":[]},` +
				`"turnOn":{"method":"POST","target":"/lights/` + id + `/on","properties":[]},` +
				`"turnOff":{"method":"POST","target":"/lights/` + id + `/off","properties":[]}}}`).Build()
	}
	_, snap := smallDomain()
	in := checkstest.Input("http://api.test/", nil, formsLight("1", "on"), formsLight("2", "off"))
	s := hypermedia.InterfaceCosts(in, snap)
	a, c := s.Interface(finding.InterfaceStatic), s.Interface(finding.InterfaceDynamic)
	if !c.Offered || c.ChoicesPerStep == nil || *c.ChoicesPerStep != 2 || *a.ChoicesPerStep != 2 {
		t.Errorf("C = %+v, A choices %v; want 2 choices each, the Reload template left out", c, a.ChoicesPerStep)
	}
}
