package problemjson_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// typedDoc declares item operations whose path parameter is typed in each
// way a not-found probe must respect to reach the handler.
const typedDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},
"servers":[{"url":"/api"}],
"paths":{
 "/items":{"get":{"responses":{"200":{"description":"ok"}}}},
 "/items/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"200":{"description":"ok"},"422":{"description":"invalid"}}}},
 "/small/{n}":{"get":{"parameters":[{"name":"n","in":"path","required":true,"schema":{"type":"integer","maximum":100}}],"responses":{"200":{"description":"ok"}}}},
 "/users/{uid}":{"get":{"parameters":[{"name":"uid","in":"path","required":true,"schema":{"type":"string","format":"uuid"}}],"responses":{"200":{"description":"ok"}}}},
 "/colors/{c}":{"get":{"parameters":[{"name":"c","in":"path","required":true,"schema":{"type":"string","enum":["red","blue"]}}],"responses":{"200":{"description":"ok"}}}},
 "/codes/{code}":{"get":{"parameters":[{"name":"code","in":"path","required":true,"schema":{"type":"string","pattern":"^[0-9]+$"}}],"responses":{"200":{"description":"ok"}}}},
 "/slugs/{s}":{"get":{"parameters":[{"name":"s","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
 "/flags/{f}":{"get":{"parameters":[{"name":"f","in":"path","required":true,"schema":{"type":"boolean"}}],"responses":{"200":{"description":"ok"}}}},
 "/items/{id}/parts/{p}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}},{"name":"p","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"200":{"description":"ok"}}}},
 "/orders/{id}":{"delete":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"204":{"description":"gone"}}}}
}}`

func typedPlan(t *testing.T, samples ...*exchange.Exchange) []exchange.PlannedRequest {
	t.Helper()
	doc, err := spec.Load([]byte(typedDoc), "typed.json", "")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(base + "/api/")
	return problemjson.MediaType{}.Plan(&checks.PlanInput{Target: u, Crawled: samples, Samples: samples, Spec: doc})
}

func plannedURLs(plan []exchange.PlannedRequest, purpose string) []string {
	var out []string
	for _, p := range plan {
		if p.Purpose == purpose {
			out = append(out, p.URL)
		}
	}
	return out
}

// TestNotFoundProbesAreTypedByTheDocument: a not-found probe of an item
// whose path parameter the document types carries a value of that type, so
// that a validator does not answer it in the handler's place.
func TestNotFoundProbesAreTypedByTheDocument(t *testing.T) {
	item := crawled(base+"/api/items/1", "application/json", `{"id":1}`)
	got := typedPlan(t, item)
	if want := []string{base + "/api/items/999999999"}; !slices.Equal(plannedURLs(got, problemjson.PurposeNotFound), want) {
		t.Errorf("sibling %v, want %v", plannedURLs(got, problemjson.PurposeNotFound), want)
	}
	// One per GET operation whose one path parameter ends its template:
	// in template order; not the two-parameter one, not the DELETE, not
	// the boolean, and /items/{id} once, as the sibling.
	want := []string{
		base + "/api/codes/999999999",
		base + "/api/colors/red",
		base + "/api/slugs/agentready-missing-7f3c",
		base + "/api/small/100",
		base + "/api/users/7f3c7f3c-0000-4000-8000-00007f3c7f3c",
	}
	if ops := plannedURLs(got, problemjson.PurposeNotFoundOperation); !slices.Equal(ops, want) {
		t.Errorf("operation probes:\n%s\nwant:\n%s", strings.Join(ops, "\n"), strings.Join(want, "\n"))
	}
	heads := 0
	for _, p := range got {
		if p.Method == http.MethodHead {
			heads++
		}
	}
	// Seven not-found GETs (the unknown path, the sibling, five
	// operations); the first four also with HEAD.
	if heads != 4 {
		t.Errorf("%d HEAD probes, want 4", heads)
	}
}

// TestUntypedWithoutDocument: without a document, the sibling keeps the
// fixed missing identifier.
func TestUntypedWithoutDocument(t *testing.T) {
	got := planFor(base+"/", crawled(base+"/items/1", "application/json", `{"id":1}`))
	if want := []string{base + "/items/agentready-missing-7f3c"}; !slices.Equal(plannedURLs(got, problemjson.PurposeNotFound), want) {
		t.Errorf("sibling %v, want %v", plannedURLs(got, problemjson.PurposeNotFound), want)
	}
}

// TestOperationProbesAreBounded: a document with many item operations adds
// at most eight not-found probes.
func TestOperationProbesAreBounded(t *testing.T) {
	var paths []string
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		paths = append(paths, `"/`+name+`/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],"responses":{"200":{"description":"ok"}}}}`)
	}
	doc, err := spec.Load([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{`+strings.Join(paths, ",")+`}}`), "many.json", "")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(base + "/")
	s := crawled(base+"/", "application/json", `{}`)
	got := problemjson.MediaType{}.Plan(&checks.PlanInput{Target: u, Crawled: []*exchange.Exchange{s}, Samples: []*exchange.Exchange{s}, Spec: doc})
	if n := len(plannedURLs(got, problemjson.PurposeNotFoundOperation)); n != 8 {
		t.Errorf("%d operation probes, want 8", n)
	}
}

// TestRefusedNotFoundIsNoted: a not-found probe answered 400 or 422 was
// judged by a validator, and the report says so rather than let it pass
// as a handled missing item.
func TestRefusedNotFoundIsNoted(t *testing.T) {
	probe := func(purpose, rawURL string, status int) *exchange.Exchange {
		return checkstest.Exchange(purpose, http.MethodGet, rawURL).Status(status).Header("Content-Type", "application/json").Body(`{"detail":"invalid"}`).Build()
	}
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{
		probe(problemjson.PurposeNotFound, base+"/items/agentready-missing-7f3c", 422),
		probe(problemjson.PurposeNotFoundChild, base+"/users/agentready-missing-7f3c", 400),
		probe(problemjson.PurposeNotFoundOperation, base+"/orders/999999999", 404),
		probe(problemjson.PurposeNegativeLimit, base+"/items?limit=-1", 400),
	}}
	want := "problem-json: 2 not-found probes were refused as invalid requests, so what the app answers for a missing item was not seen there: /items/agentready-missing-7f3c (422), /users/agentready-missing-7f3c (400)"
	if notes := annotated(rec).Notes; !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
