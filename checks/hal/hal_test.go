package hal_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/hal"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

const base = "http://api.test"

func doc(path, body string) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", base+path).Status(200).
		Header("Content-Type", "application/hal+json").Body(body).Build()
}

// crawled is a crawl exchange that is not a HAL document.
func crawled(path string, status int) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", base+path).Status(status).Header("Content-Type", "text/plain").Build()
}

func TestDeadLinkIsReportedOnceWithItsSource(t *testing.T) {
	item := `{"_links":{"self":{"href":"/orders/1"},"related":{"href":"/customers/9"}}}`
	fs := run(t, doc("/orders/1", item), doc("/orders/2", strings.Replace(item, "/orders/1", "/orders/2", 1)), crawled("/customers/9", 404))
	if len(fs) != 1 {
		t.Fatalf("findings %v, want one", messages(fs))
	}
	f := fs[0]
	if f.Message != "relation related of /orders/1 links to /customers/9, which answered 404" || f.Subject != "related /customers/9" ||
		len(f.Evidence) != 2 || f.Evidence[1].URL != base+"/customers/9" || f.Evidence[1].Status != 404 {
		t.Errorf("finding %+v", f)
	}
}

func run(t *testing.T, xs ...*exchange.Exchange) []finding.Finding {
	t.Helper()
	in := checkstest.Input(base+"/", nil, xs...)
	var all []finding.Finding
	for _, c := range hal.All() {
		fs, _ := checkstest.Run(t, c, in)
		all = append(all, fs...)
	}
	return all
}

// conformant is the draft's own example (§6 with the §8.3 curies).
const conformant = `{
  "_links": {
    "self": { "href": "/orders" },
    "next": { "href": "/orders?page=2" },
    "find": { "href": "/orders{?id}", "templated": true },
    "curies": [{ "name": "acme", "href": "https://docs.acme.com/relations/{rel}", "templated": true }],
    "acme:widgets": { "href": "/widgets" }
  },
  "_embedded": {
    "orders": [
      { "_links": { "self": { "href": "/orders/123" }, "customer": { "href": "/customers/7809" } },
        "total": 30.00, "currency": "USD", "status": "shipped" }
    ]
  },
  "currentlyProcessing": 14
}`

func TestHALRules(t *testing.T) {
	tests := []struct {
		name    string
		docs    []*exchange.Exchange
		want    []string
		pointer string // of the first finding
	}{
		{"draft example", []*exchange.Exchange{doc("/orders", conformant)}, nil, ""},
		{"root array", []*exchange.Exchange{doc("/", `[{"_links":{}}]`)}, []string{"hal-root-object"}, ""},
		{"not JSON", []*exchange.Exchange{doc("/", `<html>`)}, []string{"hal-root-object"}, ""},
		{"link is a string", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"next":"/p2"}}`)}, []string{"hal-links-shape"}, "/_links/next"},
		{"array of strings", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"item":["/a"]}}`)}, []string{"hal-links-shape"}, "/_links/item/0"},
		{"_links is an array", []*exchange.Exchange{doc("/", `{"_links":[]}`)}, []string{"hal-links-shape"}, "/_links"},
		{"no href", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"next":{"title":"Next"}}}`)}, []string{"hal-link-href"}, "/_links/next"},
		{"templated string", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"find":{"href":"/o{?id}","templated":"true"}}}`)}, []string{"hal-templated-not-boolean"}, "/_links/find/templated"},
		{"brace without templated", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"find":{"href":"/o{?id}"}}}`)}, []string{"hal-href-template-undeclared"}, "/_links/find/href"},
		{"invalid template", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"find":{"href":"/o{=id}","templated":true}}}`)}, []string{"hal-invalid-template"}, "/_links/find/href"},
		{"unclosed template", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"find":{"href":"/o{?id","templated":true}}}`)}, []string{"hal-invalid-template"}, "/_links/find/href"},
		{"undefined curie", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"ord:pay":{"href":"/pay"}}}`)}, []string{"hal-curie-undefined"}, "/_links/ord:pay"},
		{"URI relations are not curies", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"https://rels.example/pay":{"href":"/pay"},"urn:x:pay":{"href":"/p"},"tag:a.b,2020:x":{"href":"/t"}}}`)}, nil, ""},
		{"embedded inherits curies", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"curies":[{"name":"o","href":"/r/{rel}","templated":true}]},"_embedded":{"x":{"_links":{"self":{"href":"/x"},"o:y":{"href":"/y"}}}}}`)}, nil, ""},
		{"curie without rel", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"curies":[{"name":"o","href":"/r/","templated":true}],"o:a":{"href":"/a"}}}`)}, []string{"hal-curie-malformed"}, "/_links/curies/0/href"},
		{"curie not templated", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"curies":[{"name":"o","href":"/r/{rel}"}],"o:a":{"href":"/a"}}}`)}, []string{"hal-curie-malformed"}, "/_links/curies/0"},
		{"no self", []*exchange.Exchange{doc("/", `{"_links":{"next":{"href":"/2"}}}`)}, []string{"hal-self-link"}, "/_links"},
		{"embedded without self", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"}},"_embedded":{"items":[{"id":1}]}}`)}, []string{"hal-self-link"}, "/_embedded/items/0"},
		{"cardinality switch", []*exchange.Exchange{
			doc("/a", `{"_links":{"self":{"href":"/a"},"item":{"href":"/1"}}}`),
			doc("/b", `{"_links":{"self":{"href":"/b"},"item":[{"href":"/1"},{"href":"/2"}]}}`),
		}, []string{"hal-relation-cardinality"}, "/_links/item"},
		{"one off-origin link", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"a":{"href":"/a"},"b":{"href":"http://orders.internal:8080/b"}}}`)}, []string{"hal-off-origin-link"}, "/_links/b/href"},
		{"the default port is the same origin", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"a":{"href":"/a"},"b":{"href":"http://API.test:80/b"}}}`)}, nil, ""},
		{"documentation links may leave", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"help":{"href":"https://docs.example/"}}}`)}, nil, ""},
		{"deprecation", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"old":{"href":"/old","deprecation":"https://dev.example/deprecations/old"}}}`)}, []string{"hal-deprecated-link"}, "/_links/old/deprecation"},
		{"dead link", []*exchange.Exchange{doc("/orders", conformant), crawled("/orders?page=2", 404)}, []string{"hal-dead-links"}, "/_links/next/href"},
		{"gone link", []*exchange.Exchange{doc("/orders", conformant), crawled("/orders/123", 410)}, []string{"hal-dead-links"}, "/_embedded/orders/0/_links/self/href"},
		{"link to a protected resource", []*exchange.Exchange{doc("/orders", conformant), crawled("/orders?page=2", 401)}, nil, ""},
		// At info: see TestDeadLinksOfOtherRelationsAreJudgedWithTheDocument.
		{"unregistered relation may name an action", []*exchange.Exchange{doc("/orders", conformant), crawled("/customers/7809", 404), crawled("/widgets", 404)}, []string{"hal-dead-links"}, ""},
		{"templated link the crawl expanded", []*exchange.Exchange{doc("/orders", conformant), crawled("/orders", 200), crawled("/orders?id=", 404)}, nil, ""},
		{"no templated link is judged", []*exchange.Exchange{
			doc("/", `{"_links":{"self":{"href":"/"},"find":{"href":"/o{?id}","templated":true},"search":{"href":"/s?q={q}","templated":true}}}`),
			crawled("/o", 404), crawled("/s?q=", 404),
		}, nil, ""},
		{"dead status link is the discovery family's", []*exchange.Exchange{
			doc("/", `{"_links":{"self":{"href":"/"},"status":{"href":"/health"}}}`), crawled("/health", 404),
		}, nil, ""},
		{"escaped pointer", []*exchange.Exchange{doc("/", `{"_links":{"self":{"href":"/"},"a/b~c":{}}}`)}, []string{"hal-link-href"}, "/_links/a~1b~0c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := run(t, tt.docs...)
			got := checkstest.IDs(fs)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("fired %v, want %v; %v", got, tt.want, messages(fs))
			}
			if tt.pointer != "" && fs[0].Evidence[0].JSONPointer != tt.pointer {
				t.Errorf("pointer %q, want %q", fs[0].Evidence[0].JSONPointer, tt.pointer)
			}
		})
	}
}

// TestDeadLinksOfOtherRelationsAreJudgedWithTheDocument: a dead link of a
// relation not known to be read (no registered relation, no GET in the
// document) is reported at info, since it may name a POST-only target; a
// .well-known target and a relation whose target the document reads stay
// at warning.
func TestDeadLinksOfOtherRelationsAreJudgedWithTheDocument(t *testing.T) {
	order := doc("/orders/1", `{"_links":{"self":{"href":"/orders/1"},"customer":{"href":"/customers/9"},"pay":{"href":"/orders/1/payment"},"acme:agent":{"href":"/.well-known/agent.json"}}}`)
	xs := []*exchange.Exchange{order, crawled("/customers/9", 404), crawled("/orders/1/payment", 404), crawled("/.well-known/agent.json", 410)}
	for _, tt := range []struct {
		what string
		ops  []*spec.Operation
		want []string
	}{
		{"a GET at one target, only a POST at the other", []*spec.Operation{{Method: "GET", PathTemplate: "/customers/{id}"}, {Method: "POST", PathTemplate: "/orders/{id}/payment"}},
			[]string{"customer /customers/9 warning", "pay /orders/1/payment info", "acme:agent /.well-known/agent.json warning"}},
		{"no operation at either target", []*spec.Operation{{Method: "GET", PathTemplate: "/orders/{id}"}},
			[]string{"customer /customers/9 warning", "pay /orders/1/payment warning", "acme:agent /.well-known/agent.json warning"}},
		{"no document", nil,
			[]string{"customer /customers/9 info", "pay /orders/1/payment info", "acme:agent /.well-known/agent.json warning"}},
	} {
		t.Run(tt.what, func(t *testing.T) {
			in := checkstest.Input(base+"/", nil, xs...)
			if tt.ops != nil {
				in.Spec = &spec.Document{Operations: tt.ops}
			}
			fs, _ := checkstest.Run(t, hal.DeadLinks{}, in)
			var got []string
			for _, f := range fs {
				got = append(got, f.Subject+" "+f.Severity.String())
				if f.Severity == finding.SeverityInfo && !strings.Contains(f.Message, "may be a POST-only target") {
					t.Errorf("info finding %q does not say why", f.Message)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("subjects %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDeprecationMessageNamesTheURL(t *testing.T) {
	fs := run(t, doc("/", `{"_links":{"self":{"href":"/"},"old":{"href":"/old","deprecation":"https://dev.example/dep"}}}`))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "https://dev.example/dep") {
		t.Errorf("findings %v", messages(fs))
	}
}

func TestSkipsWithoutHAL(t *testing.T) {
	x := checkstest.Exchange(exchange.PurposeCrawl, "GET", base+"/").Status(200).Header("Content-Type", "application/json").Body(`{}`).Build()
	in := checkstest.Input(base+"/", nil, x)
	for _, c := range hal.All() {
		if _, reason := checkstest.Run(t, c, in); reason == "" {
			t.Errorf("%s did not skip", c.Meta().ID)
		}
	}
}

func TestHostileBodiesAreBounded(t *testing.T) {
	deep := strings.Repeat(`{"_embedded":{"x":`, 5000) + "{}" + strings.Repeat("}}", 5000)
	huge := `{"_links":{"self":{"href":"/` + strings.Repeat("a", 1<<20) + `"}}}`
	dups := `{"_links":{"self":{"href":"/"}},"_links":{"next":"bad"}}`
	fs := run(t, doc("/deep", deep), doc("/huge", huge), doc("/dups", dups))
	if got := checkstest.IDs(fs); len(got) != 0 {
		t.Errorf("bounded documents produced %v", got)
	}
}

func TestRegistryAcceptsFamily(t *testing.T) {
	if _, err := checks.NewRegistry(hal.All()...); err != nil {
		t.Fatal(err)
	}
}

func messages(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.CheckID+": "+f.Message+" @"+f.Evidence[0].JSONPointer)
	}
	return out
}

// FuzzHALDocument feeds arbitrary bodies through every HAL check: none may
// panic, and every finding must carry a pointer that starts at the root.
func FuzzHALDocument(f *testing.F) {
	f.Add(conformant)
	f.Add(`{"_links":{"a":[{"href":"{"}],"curies":{"name":1}},"_embedded":{"e":[[]]}}`)
	f.Fuzz(func(t *testing.T, body string) {
		in := checkstest.Input(base+"/", nil, doc("/", body))
		for _, c := range hal.All() {
			fs, _ := checkstest.Run(t, c, in)
			for _, fd := range fs {
				if p := fd.Evidence[0].JSONPointer; p != "" && p[0] != '/' {
					t.Fatalf("pointer %q", p)
				}
			}
		}
	})
}
