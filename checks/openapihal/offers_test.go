package openapihal

import (
	"testing"
	"unsafe"

	"github.com/agentready/agentready/internal/exchange"
)

// The analysis holds every offer of a crawl: what offers of different pages
// have alike is held once, and a path that is its href is one string.
func TestOffersShareWhatTheyHaveAlike(t *testing.T) {
	page := func(id string) *exchange.Exchange {
		return hal(exchange.PurposeCrawl, target+"orders/"+id,
			`{"_links":{"self":{"href":"/orders/`+id+`"},"order:pay":{"href":"/orders/`+id+`/payment"},"curies":[{"name":"order","href":"/rels/{rel}","templated":true}]}}`)
	}
	a := analyze(input(orders(), nil, page("1"), page("2")))
	if len(a.offers) != 4 {
		t.Fatalf("offers = %+v, want 4", a.offers)
	}
	byRel := map[string][]offer{}
	for _, o := range a.offers {
		byRel[o.rel] = append(byRel[o.rel], o)
	}
	for rel, os := range byRel {
		if len(os) != 2 || os[0].offerKind != os[1].offerKind {
			t.Errorf("%s: the two pages' offers hold a kind each", rel)
		}
		for _, o := range os {
			if o.path != o.href || unsafe.StringData(o.path) != unsafe.StringData(o.href) {
				t.Errorf("%s: path %q is held apart from href %q", rel, o.path, o.href)
			}
		}
	}
	if pay := byRel["order:pay"]; len(pay) == 0 || !pay[0].curies["order"] {
		t.Errorf("order:pay lost its CURIE scope: %+v", pay)
	}
}
