package negotiation_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/checks/vary"
	"github.com/agentready/agentready/internal/exchange"
)

const image = "http://api.test/image"

// crawlAccept is an Accept like the crawl's, which ends in */*.
const crawlAccept = "application/hal+json, application/json;q=0.9, */*;q=0.5"

// refusedImage is an image resource that refuses the crawl's Accept and */*
// with 415, and picks PNG or WebP by Accept without Vary.
func refusedImage() map[string]resp {
	refusal := resp{415, "application/json", nil, `{"error":"Unsupported Media Type"}`}
	png := resp{200, "image/png", nil, "PNG"}
	return map[string]resp{
		exchange.PurposeCrawl:            refusal,
		conneg.PurposeNone:               png,
		conneg.PurposeWildcard:           refusal,
		conneg.PurposeUnsupported:        refusal,
		conneg.TypePurpose("image/png"):  png,
		conneg.TypePurpose("image/webp"): {200, "image/webp", nil, "RIFF"},
	}
}

func runAll(t *testing.T, in *checks.Input) []string {
	t.Helper()
	var got []string
	for _, c := range append(negotiation.All(), vary.All()...) {
		fs, _ := checkstest.Run(t, c, in)
		got = append(got, checkstest.IDs(fs)...)
	}
	slices.Sort(got)
	return got
}

func refusedInput(answers map[string]resp) *checks.Input {
	xs := resource(image, answers)
	for _, x := range xs {
		if x.Purpose == exchange.PurposeCrawl {
			x.Request.Header.Set("Accept", crawlAccept)
		}
	}
	return checkstest.Input("http://api.test/", nil, xs...)
}

func TestRefusedResourceIsJudged(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(map[string]resp)
		want   []string
	}{
		{"415 to */* and to the crawl, types chosen without Vary", func(map[string]resp) {},
			[]string{"negotiation-unsupported-type", "negotiation-wildcard", "vary-accept"}},
		{"406 to an unsupported type is fine; Vary: Accept is too", func(a map[string]resp) {
			a[conneg.PurposeUnsupported] = resp{406, "application/json", map[string]string{"Vary": "Accept"}, "{}"}
			for _, p := range []string{conneg.PurposeNone, conneg.TypePurpose("image/png"), conneg.TypePurpose("image/webp")} {
				r := a[p]
				r.hdr = map[string]string{"Vary": "Accept"}
				a[p] = r
			}
		}, []string{"negotiation-wildcard"}},
		{"nothing served: no proof of a representation, nothing judged", func(a map[string]resp) {
			a[conneg.PurposeNone] = a[exchange.PurposeCrawl]
			delete(a, conneg.TypePurpose("image/png"))
			delete(a, conneg.TypePurpose("image/webp"))
		}, nil},
		{"*/* served: only the crawl's Accept was refused", func(a map[string]resp) {
			a[conneg.PurposeWildcard] = a[conneg.PurposeNone]
		}, []string{"negotiation-unsupported-type", "negotiation-wildcard", "vary-accept"}},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			a := refusedImage()
			tt.mutate(a)
			if got := runAll(t, refusedInput(a)); !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRefusedResourcePlan(t *testing.T) {
	crawl := func(u string, status int, ctype string) *exchange.Exchange {
		return checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, u).ReqHeader("Accept", crawlAccept).
			Status(status).Header("Content-Type", ctype).Build()
	}
	in := &checks.PlanInput{Crawled: []*exchange.Exchange{
		crawl(image, 415, "application/json"),
		crawl(image+"/png", 200, "image/png"),
		crawl(image+"/webp", 200, "image/webp"),
		crawl("http://api.test/imagery", 200, "image/gif"),
		crawl("http://api.test/flaky", 500, "text/plain"),
	}}
	var got []string
	for _, p := range conneg.Plan(in) {
		got = append(got, p.Purpose+" "+p.URL+" "+p.Header.Get("Accept"))
	}
	want := []string{
		"negotiation/no-accept " + image + " ",
		"negotiation/wildcard " + image + " */*",
		"negotiation/unsupported " + image + " " + conneg.UnsupportedType,
		"negotiation/type/image/png " + image + " image/png",
		"negotiation/type/image/webp " + image + " image/webp",
		"crawl#2 http://api.test/flaky " + crawlAccept,
		"crawl#3 http://api.test/flaky " + crawlAccept,
	}
	if !slices.Equal(got, want) {
		t.Errorf("planned\n%q\nwant\n%q", got, want)
	}
}
