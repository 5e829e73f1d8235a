package scan_test

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/finding"
)

// The demo offers all three interfaces, and on an order both the references
// and the templates leave fewer operations to choose among than the catalog;
// a second scan gives the same figures.
func TestDemoInterfacesNarrowTheOrderChoices(t *testing.T) {
	t.Parallel()
	s := shared(t, conformantScanned).rep.Interfaces
	if s == nil {
		t.Fatal("the demo's report has no interfaces section")
	}
	for _, c := range s.Entries {
		if !c.Offered || c.UpfrontTokens == nil || c.ChoicesPerStep == nil {
			t.Errorf("%s: %+v, want offered with figures", c.Interface, c)
		}
	}
	orders := 0
	for _, k := range s.Kinds {
		if k.Kind != "/orders/{id}" || k.State == "delivered" || k.State == "cancelled" {
			continue
		}
		orders++
		a := k.Entries[0]
		for _, c := range k.Entries[1:] {
			if c.ChoicesPerStep != nil && *c.ChoicesPerStep >= *a.ChoicesPerStep {
				t.Errorf("order %s: %s leaves %v choices, static %v", k.State, c.Interface, *c.ChoicesPerStep, *a.ChoicesPerStep)
			}
		}
		if *a.InvalidChoicesPerStep == 0 {
			t.Errorf("order %s: the catalog leaves no invalid choice", k.State)
		}
	}
	if orders == 0 {
		t.Error("no order in a state with transitions was priced")
	}
	srv := httptest.NewServer(demo.New())
	defer srv.Close()
	if second := scanApp(t, srv); !reflect.DeepEqual(s, second.Interfaces) {
		t.Errorf("two scans differ:\n%+v\n%+v", s, second.Interfaces)
	}
	if s.Tokenizer != "o200k_base" || s.Catalog != "mcp" || *s.Interface(finding.InterfaceStatic).ChoicesPerStep <= *s.Interface(finding.InterfaceReferenced).ChoicesPerStep {
		t.Errorf("tokenizer %q catalog %q, or B does not narrow A overall", s.Tokenizer, s.Catalog)
	}
}
