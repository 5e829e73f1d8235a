package negotiation_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

const allowDoc = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{
 "/orders":{"get":{"responses":{"200":{"description":"ok"}}},"post":{"responses":{"201":{"description":"made"}}}},
 "/orders/{id}":{"get":{"responses":{"200":{"description":"ok"}}}}
}}`

type allowCase struct {
	what string
	// method, path and Allow of the one 405 the scan met ("" Allow: none).
	method, path, allow string
	doc                 bool
	want                []string
	skip                bool
}

func allowCases() []allowCase {
	return []allowCase{
		{what: "405 leaves out a declared method", method: http.MethodHead, path: "/orders", allow: "GET",
			doc: true, want: []string{"HEAD answered 405 with Allow: GET, which leaves out POST that the document declares on /orders"}},
		{what: "Allow lists every declared method, in any case", method: http.MethodHead, path: "/orders", allow: "get, Post, OPTIONS", doc: true},
		{what: "HEAD is never required", method: http.MethodHead, path: "/orders/agentready-missing-7f3c", allow: "GET", doc: true},
		{what: "a path the document does not describe", method: http.MethodHead, path: "/other", allow: "GET", doc: true, skip: true},
		{what: "no document", method: http.MethodHead, path: "/orders", allow: "GET", skip: true},
		{what: "405 without Allow is allow-on-405's", method: http.MethodHead, path: "/orders", doc: true, skip: true},
	}
}

func (tt allowCase) input(t *testing.T) *checks.Input {
	crawl := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, "http://api.test/orders").Status(200).
		Header("Content-Type", "application/json").Body(`[]`).Build()
	b := checkstest.Exchange("negotiation/head", tt.method, "http://api.test"+tt.path).Status(405)
	if tt.allow != "" {
		b = b.Header("Allow", tt.allow)
	}
	in := checkstest.Input("http://api.test/", []string{"http://api.test/orders"}, crawl, b.Build())
	if tt.doc {
		doc, err := spec.Load([]byte(allowDoc), "openapi.json", "openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		in.Spec = doc
	}
	return in
}

func TestAllowDeclared(t *testing.T) {
	for _, tt := range allowCases() {
		t.Run(tt.what, func(t *testing.T) {
			fs, reason := checkstest.Run(t, negotiation.AllowDeclared{}, tt.input(t))
			var got []string
			for _, f := range fs {
				got = append(got, f.Message)
			}
			if !slices.Equal(got, tt.want) || (reason != "") != tt.skip {
				t.Errorf("messages %q, skip %q; want %q, skip %v", got, reason, tt.want, tt.skip)
			}
			if len(fs) == 1 && (fs[0].Location == nil || fs[0].Location.Line == 0) {
				t.Errorf("location %+v, want the declared operation's", fs[0].Location)
			}
		})
	}
}

// allowDeclaredFiredBy runs the table case of AllowDeclared named name.
func allowDeclaredFiredBy(t *testing.T, name string) ([]string, bool) {
	for _, tt := range allowCases() {
		if tt.what == name {
			fs, _ := checkstest.Run(t, negotiation.AllowDeclared{}, tt.input(t))
			return checkstest.IDs(fs), true
		}
	}
	return nil, false
}
