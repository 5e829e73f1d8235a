package negotiation_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
)

// TestOptionsRenderersArePlanned: a resource whose answer to OPTIONS lists
// the types it renders (Django REST framework's renders, or produces) is
// asked, in the follow-up round, for each listed type the first round did
// not ask for, at most four; a body that lists nothing usable adds nothing.
func TestOptionsRenderersArePlanned(t *testing.T) {
	for _, tt := range []struct {
		what    string
		options resp
		want    []string
	}{
		{"renders adds the type no round asked for",
			resp{200, "application/json", nil, `{"name": "Order", "renders": ["application/json", "text/html", "text/csv"], "parses": ["application/json"]}`},
			[]string{"text/csv"}},
		{"produces, with parameters and repeats",
			resp{200, "application/vnd.meta+json", nil, `{"produces": ["text/csv; charset=utf-8", "TEXT/CSV", "application/yaml"]}`},
			[]string{"text/csv", "application/yaml"}},
		{"at most four",
			resp{200, "application/json", nil, `{"renders": ["a/one", "a/two", "a/three", "a/four", "a/five"]}`},
			[]string{"a/one", "a/two", "a/three", "a/four"}},
		{"no list", resp{200, "application/json", nil, `{"renders": "text/csv"}`}, nil},
		{"a list of anything but types",
			resp{200, "application/json", nil, `{"renders": [1, null, {"type": "text/csv"}, "text/*", "*/*", "no type", "text/csv x", "text/c\"sv", "a/b\r\nX-Injected: 1", "application/problem+json", ""]}`},
			nil},
		{"not JSON", resp{200, "text/plain", nil, `{"renders": ["text/csv"]}`}, nil},
		{"garbage", resp{200, "application/json", nil, `{"renders": ["text/csv"`}, nil},
		{"a failed OPTIONS", resp{405, "application/json", nil, `{"renders": ["text/csv"]}`}, nil},
		{"no body", resp{204, "", map[string]string{"Allow": "GET, OPTIONS"}, ""}, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			a := conformant()
			a[conneg.PurposeOptions] = tt.options
			// The first round asked for HTML alone; JSON is the
			// alternate it asked for anyway.
			a[conneg.TypePurpose("text/html")] = resp{406, "application/problem+json", nil, `{}`}
			var crawled, probes []*exchange.Exchange
			for _, x := range resource(u, a) {
				if x.Purpose == exchange.PurposeCrawl {
					crawled = append(crawled, x)
				} else {
					probes = append(probes, x)
				}
			}
			in := &checks.PlanInput{Crawled: crawled, Samples: crawled, Probes: probes}
			var got []string
			for _, p := range conneg.PlanRendered(conneg.FollowUpView(in), in.Samples) {
				mt, ok := strings.CutPrefix(p.Purpose, "negotiation/renders/")
				if !ok || p.Header.Get("Accept") != mt || p.URL != u || p.BasedOn != u || p.Method != "GET" {
					t.Errorf("planned %+v", p)
				}
				got = append(got, mt)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("asked for %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTypesServedBeneathAreAskedFirst: a resource is asked for the types
// the crawl was served beneath it (/image/jpeg beneath /image) before the
// fixed set of common types fills the bound, so that an image resource is
// asked for other images, not only for JSON, HTML and text.
func TestTypesServedBeneathAreAskedFirst(t *testing.T) {
	base := "http://api.test/image"
	crawled := []*exchange.Exchange{
		answer(base, exchange.PurposeCrawl, resp{200, "image/png", nil, "png"}),
		answer(base+"/jpeg", exchange.PurposeCrawl, resp{200, "image/jpeg", nil, "jpeg"}),
		answer(base+"/webp", exchange.PurposeCrawl, resp{200, "image/webp", nil, "webp"}),
	}
	in := &checks.PlanInput{Crawled: crawled, Samples: crawled[:1]}
	asked := map[string]bool{}
	for _, p := range conneg.Plan(in) {
		if p.URL == base {
			asked[p.Purpose] = true
		}
	}
	for _, mt := range []string{"image/jpeg", "image/webp"} {
		if !asked[conneg.TypePurpose(mt)] {
			t.Errorf("%s was not asked for %s, served beneath it; asked: %v", base, mt, slices.Sorted(maps.Keys(asked)))
		}
	}
}
