package coverage

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

func crawled(rawURL string, status int, contentType, body string) *exchange.Exchange {
	x := &exchange.Exchange{Purpose: exchange.PurposeCrawl, Request: exchange.Request{Method: http.MethodGet, URL: rawURL}}
	if status != 0 {
		x.Response = &exchange.Response{Status: status, Header: http.Header{"Content-Type": {contentType}}, Body: []byte(body)}
	}
	return x
}

func TestCoverageCountsPagesAndAPIResources(t *testing.T) {
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{
		crawled("http://h/", 200, "text/html", "<html></html>"),
		crawled("http://h/items", 200, "application/json", "[]"),
		crawled("http://h/items", 200, "application/json", "[]"), // one resource, two pages
		crawled("http://h/feed", 200, "application/atom+xml", "<feed/>"),
		crawled("http://h/robots.txt", 200, "text/plain", ""),
		crawled("http://h/.well-known/api-catalog", 200, "application/linkset+json", "{}"),
		crawled("http://h/openapi.json", 200, "application/json", "{}"),
		crawled("http://h/gone", 404, "application/problem+json", "{}"),
		crawled("http://h/down", 0, "", ""),
		{Purpose: "vary/probe", Request: exchange.Request{Method: http.MethodGet, URL: "http://h/x"},
			Response: &exchange.Response{Status: 200, Header: http.Header{"Content-Type": {"application/hal+json"}}}},
	}}
	c := Of(rec, mustURL(t, "http://h/"), nil, false, nil, nil)
	want := map[string]int{"2xx": 7, "4xx": 1, "none": 1}
	for k, n := range want {
		if c.Pages[k] != n {
			t.Errorf("pages %v, want %v", c.Pages, want)
		}
	}
	if c.APIResources != 2 {
		t.Errorf("API resources %d, want 2 (/items, /feed): HTML and discovery documents are left out", c.APIResources)
	}
	if !c.Has(finding.SurfaceHypermedia) || c.Has(finding.SurfaceOpenAPI) || c.Has(finding.SurfaceMCP) {
		t.Errorf("surfaces %v, want hypermedia only (a probe's HAL answer counts)", c.Surfaces)
	}
	if c.Cause != "" || c.Fraction != nil {
		t.Errorf("cause %q, fraction %v: reached, and no document", c.Cause, c.Fraction)
	}
}

func TestCoverageFractionFromOperations(t *testing.T) {
	ops := &finding.OperationCoverage{Declared: 8, Reached: 2}
	c := Of(&exchange.Recording{}, mustURL(t, "http://h/"), nil, false, ops, nil)
	if c.Fraction == nil || *c.Fraction != 0.25 || c.Percent() != 25 || c.Operations != ops {
		t.Errorf("fraction %v, operations %+v", c.Fraction, c.Operations)
	}
	if !c.Reached() || c.Cause != "" {
		t.Errorf("a reached operation is the API reached: cause %q", c.Cause)
	}
}

func TestCauseFromOperationsThatNeedCredentials(t *testing.T) {
	ops := &finding.OperationCoverage{Declared: 2, Items: []finding.OperationReach{
		{Method: "GET", Path: "/a", Reason: finding.ReasonCredentials},
		{Method: "GET", Path: "/b", Reason: finding.ReasonCredentials},
	}}
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{crawled("http://h/", 404, "text/plain", "")}}
	c := Of(rec, mustURL(t, "http://h/"), nil, false, ops, nil)
	if !strings.HasPrefix(c.Cause, "2 GET operations need credentials: ") {
		t.Errorf("cause %q", c.Cause)
	}
}

func TestMCPEndpointIsAReachedAPI(t *testing.T) {
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{crawled("http://h/", 404, "text/plain", "")}}
	c := Of(rec, mustURL(t, "http://h/"), nil, true, nil, nil)
	if !c.Reached() || c.Cause != "" || !c.Has(finding.SurfaceMCP) {
		t.Errorf("coverage %+v", c)
	}
	c = Of(rec, mustURL(t, "http://h/"), nil, false, nil, nil)
	if c.Reached() || !strings.HasPrefix(c.Cause, "every page answered 4xx: ") {
		t.Errorf("without the endpoint: %+v", c)
	}
	if c = Of(&exchange.Recording{Exchanges: []*exchange.Exchange{crawled("http://h/", 0, "", "")}}, mustURL(t, "http://h/"), nil, false, nil, nil); !strings.HasPrefix(c.Cause, "no page answered") {
		t.Errorf("nothing answered: cause %q", c.Cause)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestNextActionsAreTheStatefulSurface(t *testing.T) {
	rec := &exchange.Recording{Exchanges: []*exchange.Exchange{
		crawled("http://h/orders/1", 200, "application/json", `{"id":1}`),
		crawled("http://h/gone", 404, "application/problem+json", `{"next_actions":[]}`),
	}}
	if c := Of(rec, mustURL(t, "http://h/"), nil, false, nil, nil); c.Has(finding.SurfaceStatefulActions) {
		t.Errorf("surfaces %v: no 2xx response carried next_actions", c.Surfaces)
	}
	rec.Exchanges = append(rec.Exchanges, crawled("http://h/checkouts/1", 200, "application/json", `{"node":"ITEMS","next_actions":[]}`))
	if c := Of(rec, mustURL(t, "http://h/"), nil, false, nil, nil); !c.Has(finding.SurfaceStatefulActions) || !c.Has(finding.SurfaceHypermedia) {
		t.Errorf("surfaces %v, want stateful-actions (and hypermedia, which next actions also are)", c.Surfaces)
	}
}

// TestCoverageCountsThrottling: the probe's counts are kept, the crawl's
// GETs still throttled are counted from the recording (a 503 only with a
// Retry-After), and more than half of them throttled is the cause of no
// grade, even with API resources reached.
func TestCoverageCountsThrottling(t *testing.T) {
	throttled := func(rawURL string, status int, retryAfter string) *exchange.Exchange {
		x := crawled(rawURL, status, "application/problem+json", "{}")
		if retryAfter != "" {
			x.Response.Header.Set("Retry-After", retryAfter)
		}
		return x
	}
	sent := &finding.Throttling{Requests: 40, Throttled: 12, StillThrottled: 3}
	for _, tt := range []struct {
		name  string
		pages []*exchange.Exchange
		want  finding.Throttling
		cause string
	}{
		{"half is not more than half", []*exchange.Exchange{
			crawled("http://h/a", 200, "application/json", "{}"), crawled("http://h/b", 200, "application/json", "{}"),
			throttled("http://h/c", 429, ""), throttled("http://h/d", 503, "5"),
			throttled("http://h/e", 503, ""), // an ordinary server error
		}, finding.Throttling{Requests: 40, Throttled: 12, StillThrottled: 3, CrawlGETs: 5, CrawlThrottled: 2}, ""},
		{"more than half", []*exchange.Exchange{
			crawled("http://h/a", 200, "application/json", "{}"),
			throttled("http://h/c", 429, "120"), throttled("http://h/d", 429, ""),
		}, finding.Throttling{Requests: 40, Throttled: 12, StillThrottled: 3, CrawlGETs: 3, CrawlThrottled: 2},
			"the server throttled more than half of the crawl's GET requests (2 of 3); lower --rate or --concurrency"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := Of(&exchange.Recording{Exchanges: tt.pages}, mustURL(t, "http://h/"), nil, false, nil, sent)
			if c.Throttling == nil || *c.Throttling != tt.want {
				t.Errorf("throttling %+v, want %+v", c.Throttling, tt.want)
			}
			if c.Cause != tt.cause || c.Throttled() != (tt.cause != "") || !c.Reached() {
				t.Errorf("cause %q, throttled %v, reached %v; want cause %q", c.Cause, c.Throttled(), c.Reached(), tt.cause)
			}
		})
	}
	if c := Of(&exchange.Recording{}, mustURL(t, "http://h/"), nil, false, nil, nil); c.Throttling != nil {
		t.Errorf("nothing throttled: %+v", c.Throttling)
	}
}

// A 401 to credentials the crawl sent names them refused, with the
// challenge's error and description, sanitized and bounded; a 401 to a
// request without any keeps the advice to pass some.
func TestCauseNamesRefusedCredentials(t *testing.T) {
	refusedWith := func(challenge string, sent bool) string {
		x := crawled("http://h/", 401, "application/problem+json", "{}")
		x.Response.Header.Set("WWW-Authenticate", challenge)
		x.Request.Header = http.Header{"User-Agent": {"agentready"}}
		if sent {
			x.Request.Header.Set("X-Api-Key", exchange.Redacted)
		}
		return Of(&exchange.Recording{Exchanges: []*exchange.Exchange{x}}, mustURL(t, "http://h/"), nil, false, nil, nil).Cause
	}
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name, challenge string
		sent            bool
		want, wantNot   string
	}{
		{"expired", `Bearer realm="api", error="invalid_token", error_description="The access token expired"`, true,
			`1 of 1 pages answered 401 or 403: the server refused the credentials sent (Bearer error="invalid_token": "The access token expired"); renew them`, "pass them with -H"},
		{"a token, unquoted", `Bearer error=invalid_token`, true, `(Bearer error="invalid_token"); renew them`, ": \""},
		{"no error", `Bearer realm="api"`, true, "the server refused the credentials sent, without an error in its WWW-Authenticate challenge; renew them", "pass them with -H"},
		{"hostile", "Bearer error=\"\x1b]0;pwned\x07bad\", error_description=\"" + long + "\"", true, "the server refused the credentials sent (Bearer error=", "\x1b"},
		{"none sent", `Bearer realm="api", error="invalid_token", error_description="The access token expired"`, false,
			"the API needs credentials; pass them with -H", "refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := refusedWith(tc.challenge, tc.sent)
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.wantNot) {
				t.Errorf("cause %q; want %q and not %q", got, tc.want, tc.wantNot)
			}
			if len(got) > 600 {
				t.Errorf("cause of %d bytes: the server's words are not bounded", len(got))
			}
		})
	}
}
