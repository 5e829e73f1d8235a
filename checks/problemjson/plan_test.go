package problemjson_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

func crawled(rawURL, ctype, body string) *exchange.Exchange {
	return checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, rawURL).Status(200).Header("Content-Type", ctype).Body(body).Build()
}

func planFor(target string, samples ...*exchange.Exchange) []exchange.PlannedRequest {
	u, _ := url.Parse(target)
	return problemjson.MediaType{}.Plan(&checks.PlanInput{Target: u, Crawled: samples, Samples: samples})
}

func TestPlan(t *testing.T) {
	root := crawled(base+"/", "application/hal+json", `{"_links":{"self":{"href":"/"}}}`)
	halList := crawled(base+"/orders", "application/hal+json", `{"_links":{"next":{"href":"/orders?page=2"}},"_embedded":{"orders":[]}}`)
	halList2 := crawled(base+"/orders?page=2", "application/hal+json", `{"_embedded":{"orders":[]}}`)
	item := crawled(base+"/orders/1", "application/hal+json", `{"id":1}`)
	item2 := crawled(base+"/orders/2", "application/hal+json", `{"id":2}`)
	array := crawled(base+"/v1/users/", "application/json", `[{"id":1}]`)
	page := crawled(base+"/items?cursor=abc&limit=2", "application/json", `{"items":[],"links":{"next":"/items?cursor=def&limit=2"}}`)
	htmlPage := crawled(base+"/about", "text/html", `<p>x</p>`)

	// Samples arrive sorted by URL, as the probe hands them over. The first
	// four not-found URLs are asked with GET, then HEAD, the others with GET
	// only; a collection is asked for a member it does not have.
	got := planFor(base+"/", root, htmlPage, page, halList, halList2, item, item2, array)
	var lines []string
	for _, p := range got {
		lines = append(lines, p.Method+" "+p.Purpose+" "+p.URL+" <"+p.Header.Get("Accept")+"> from "+p.BasedOn)
	}
	want := []string{
		"GET problem-json/unknown-path http://api.test/agentready-missing-7f3c <application/hal+json, application/problem+json> from http://api.test/",
		"HEAD problem-json/not-found-head http://api.test/agentready-missing-7f3c <application/hal+json, application/problem+json> from http://api.test/",
		"GET problem-json/not-found-child http://api.test/items/agentready-missing-7f3c <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"HEAD problem-json/not-found-head http://api.test/items/agentready-missing-7f3c <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"GET problem-json/colon-cursor http://api.test/items?cursor=a%3Ab <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"GET problem-json/plain-colon-cursor http://api.test/items?cursor=a:b <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"GET problem-json/valueless-param http://api.test/items?debug&limit=1 <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"GET problem-json/limit-only http://api.test/items?limit=1 <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"GET problem-json/negative-limit http://api.test/items?limit=-1 <application/json, application/problem+json> from http://api.test/items?cursor=abc&limit=2",
		"GET problem-json/not-found-child http://api.test/orders/agentready-missing-7f3c <application/hal+json, application/problem+json> from http://api.test/orders",
		"HEAD problem-json/not-found-head http://api.test/orders/agentready-missing-7f3c <application/hal+json, application/problem+json> from http://api.test/orders",
		"GET problem-json/colon-cursor http://api.test/orders?page=a%3Ab <application/hal+json, application/problem+json> from http://api.test/orders",
		"GET problem-json/plain-colon-cursor http://api.test/orders?page=a:b <application/hal+json, application/problem+json> from http://api.test/orders",
		"GET problem-json/valueless-param http://api.test/orders?debug&limit=1 <application/hal+json, application/problem+json> from http://api.test/orders",
		"GET problem-json/limit-only http://api.test/orders?limit=1 <application/hal+json, application/problem+json> from http://api.test/orders",
		"GET problem-json/negative-limit http://api.test/orders?limit=-1 <application/hal+json, application/problem+json> from http://api.test/orders",
		"GET problem-json/not-found-sibling http://api.test/v1/agentready-missing-7f3c/ <application/json, application/problem+json> from http://api.test/v1/users/",
		"HEAD problem-json/not-found-head http://api.test/v1/agentready-missing-7f3c/ <application/json, application/problem+json> from http://api.test/v1/users/",
		"GET problem-json/not-found-child http://api.test/v1/users/agentready-missing-7f3c/ <application/json, application/problem+json> from http://api.test/v1/users/",
		"GET problem-json/colon-cursor http://api.test/v1/users/?cursor=a%3Ab <application/json, application/problem+json> from http://api.test/v1/users/",
		"GET problem-json/plain-colon-cursor http://api.test/v1/users/?cursor=a:b <application/json, application/problem+json> from http://api.test/v1/users/",
		"GET problem-json/valueless-param http://api.test/v1/users/?debug&limit=1 <application/json, application/problem+json> from http://api.test/v1/users/",
		"GET problem-json/limit-only http://api.test/v1/users/?limit=1 <application/json, application/problem+json> from http://api.test/v1/users/",
		"GET problem-json/negative-limit http://api.test/v1/users/?limit=-1 <application/json, application/problem+json> from http://api.test/v1/users/",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", join(lines), join(want))
	}
}

// TestCollectionsBeyondHAL: envelopes with items, data or results arrays, a
// next or next_cursor member, or a Link header with rel="next" are
// collections, and their cursor parameter is that of their next link.
func TestCollectionsBeyondHAL(t *testing.T) {
	linked := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, base+"/events").Status(200).
		Header("Content-Type", "application/json").Header("Link", `</events?after=5>; rel="next"`).Body(`{"ok":true}`).Build()
	samples := []*exchange.Exchange{
		linked,
		crawled(base+"/feed", "application/json", `{"results":[{"id":1}],"next":"/feed?offset=20"}`),
		crawled(base+"/messages", "application/json", `{"data":[{"id":"m:1"}],"next_cursor":"m:2"}`),
		crawled(base+"/stream", "application/json", `{"cursor":"s:1","next_cursor":null}`),
		crawled(base+"/user", "application/json", `{"id":1,"name":"x"}`),
	}
	var colon []string
	for _, p := range planFor(base+"/", samples...) {
		if p.Purpose == problemjson.PurposeColonCursor {
			colon = append(colon, p.URL)
		}
	}
	want := []string{base + "/events?after=a%3Ab", base + "/feed?offset=a%3Ab", base + "/messages?cursor=a%3Ab", base + "/stream?cursor=a%3Ab"}
	if !slices.Equal(colon, want) {
		t.Errorf("colon probes %q, want %q", colon, want)
	}
}

func join(xs []string) string {
	out := ""
	for _, x := range xs {
		out += "  " + x + "\n"
	}
	return out
}

func TestPlanIsBoundedPerShape(t *testing.T) {
	var samples []*exchange.Exchange
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		samples = append(samples, crawled(base+"/orders/"+id, "application/json", `{"_embedded":{"lines":[]}}`))
	}
	// Unknown path, sibling and missing child, each with GET and HEAD; five
	// query probes.
	if got := planFor(base+"/", samples...); len(got) != 11 {
		t.Errorf("planned %d requests for one path shape, want 11", len(got))
	}
}

func TestNoPlanForWebSites(t *testing.T) {
	if got := planFor(base+"/", crawled(base+"/", "text/html", "<p>x</p>")); len(got) != 0 {
		t.Errorf("planned %v for an HTML site", got)
	}
}

func TestProbeSummary(t *testing.T) {
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{
		{Purpose: exchange.PurposeCrawl},
		{Purpose: problemjson.PurposeNotFound}, {Purpose: problemjson.PurposeNotFound}, {Purpose: problemjson.PurposeUnknownPath},
	}}
	want := []string{"problem-json: 3 safe error probes sent (GET): 2 not-found-sibling, 1 unknown-path"}
	if got := annotated(rec).Notes; !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got := annotated(&exchange.Recording{}).Notes; len(got) != 0 {
		t.Errorf("notes without probes %q", got)
	}
}

// annotated is the report as the family's parts annotate it.
func annotated(rec *exchange.Recording) *finding.Report {
	rep := &finding.Report{}
	in := checks.NewInput(nil, rec)
	for _, p := range checks.PartsOf(problemjson.All()) {
		if a, ok := p.(checks.Annotator); ok {
			a.Annotate(in, rep)
		}
	}
	return rep
}
