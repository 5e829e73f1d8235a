package problemjson_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// throttled is a 429 or 503 to a crawl of /orders, with the Retry-After
// lines given.
func throttled(status int, retryAfter ...string) *exchange.Exchange {
	b := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, base+"/orders").Status(status).
		Header("Content-Type", "application/problem+json").Body(`{"title":"Slow down","status":429}`)
	for _, v := range retryAfter {
		b.Header("Retry-After", v)
	}
	return b.Build()
}

// servedAfterThrottling is a 200 to a crawl of /orders whose first
// answer was a 429 with the Retry-After lines given, before the scan's
// retry.
func servedAfterThrottling(retryAfter ...string) *exchange.Exchange {
	x := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, base+"/orders").Status(200).
		Header("Content-Type", "application/json").Body(`[]`).Build()
	first := &exchange.Response{Status: 429, Header: http.Header{"Content-Type": {"application/problem+json"}}}
	for _, v := range retryAfter {
		first.Header.Add("Retry-After", v)
	}
	x.Response.Replaced = exchange.KeepThrottled(first)
	return x
}

// throttleSpec declares a 429 on GET /orders, with Retry-After when
// declared is true.
func throttleSpec(declared bool) *spec.Document {
	r := spec.Response{Content: map[string]map[string]any{"application/problem+json": nil}}
	if declared {
		r.Headers = []string{"Retry-After"}
	}
	return &spec.Document{File: "openapi.yaml", Operations: []*spec.Operation{
		{Method: "GET", PathTemplate: "/orders", Location: finding.SourceLocation{File: "openapi.yaml", Line: 7},
			Responses: map[string]spec.Response{"200": {}, "429": r}},
	}}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		what     string
		x        *exchange.Exchange
		doc      *spec.Document
		severity finding.Severity // SeverityNone: it must not fire
	}{
		{"delay-seconds", throttled(429, "120"), nil, finding.SeverityNone},
		{"no delay at all", throttled(429, "0"), nil, finding.SeverityNone},
		{"an HTTP-date", throttled(503, "Fri, 31 Dec 1999 23:59:59 GMT"), nil, finding.SeverityNone},
		{"declared and sent", throttled(429, "30"), throttleSpec(true), finding.SeverityNone},
		{"a 429 without one", throttled(429), nil, finding.SeverityInfo},
		{"a 503 without one", throttled(503), nil, finding.SeverityInfo},
		{"a value in neither form", throttled(503, "soon"), nil, finding.SeverityInfo},
		{"a fraction of a second", throttled(429, "1.5"), nil, finding.SeverityInfo},
		{"a date in another format", throttled(429, "2026-12-05T08:00:00Z"), nil, finding.SeverityInfo},
		{"sent twice", throttled(429, "10", "10"), nil, finding.SeverityInfo},
		{"declared as a status without the header", throttled(429), throttleSpec(false), finding.SeverityInfo},
		{"declared with the header, not sent", throttled(429), throttleSpec(true), finding.SeverityWarning},
		{"throttled, then served when sent again", servedAfterThrottling(), nil, finding.SeverityInfo},
		{"throttled with a delay, then served", servedAfterThrottling("1"), nil, finding.SeverityNone},
		{"throttled against the document, then served", servedAfterThrottling(), throttleSpec(true), finding.SeverityWarning},
		{"an MCP POST throttled", checkstest.Exchange("mcp/tools-list", http.MethodPost, base+"/mcp").Status(429).Build(), nil, finding.SeverityInfo},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			in := input()
			in.Recording.Exchanges = append(in.Recording.Exchanges, tt.x)
			in.Spec = tt.doc
			got := runOne(t, problemjson.RetryAfter{}, in)
			if tt.severity == finding.SeverityNone {
				if len(got) > 0 {
					t.Fatalf("fired: %s", got[0].Message)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d findings, want 1", len(got))
			}
			f := got[0]
			if f.Severity != tt.severity || f.Evidence[0].Header != "Retry-After" {
				t.Errorf("severity %v header %q: %s", f.Severity, f.Evidence[0].Header, f.Message)
			}
			if tt.x.Response.Replaced != nil && !strings.Contains(f.Message, "answered otherwise when the scan sent it again") {
				t.Errorf("the message does not say the retry was answered: %s", f.Message)
			}
			if tt.severity == finding.SeverityWarning && (f.Location == nil || f.Location.Line != 7) {
				t.Errorf("a declared Retry-After is located at its operation: %+v", f.Location)
			}
		})
	}
}

func TestRetryAfterSkipsWithoutThrottling(t *testing.T) {
	_, err := problemjson.RetryAfter{}.Run(t.Context(), input(e(problemjson.PurposeNotFound, base+"/orders/"+problemjson.MissingID, 404, prob, notFound)))
	if _, skipped := checks.IsSkip(err); !skipped {
		t.Errorf("no 429 or 503: %v, want a skip", err)
	}
}

// An undeclared 429 is reported as any undeclared 4xx is, beside a
// missing Retry-After.
func TestUndeclared429(t *testing.T) {
	in := input()
	in.Recording.Exchanges = append(in.Recording.Exchanges, throttled(429))
	doc := throttleSpec(false)
	delete(doc.Operations[0].Responses, "429")
	in.Spec = doc
	_, ids := runAll(t, in)
	if !slices.Contains(ids, "problem-json-undeclared-status") || !slices.Contains(ids, "problem-json-retry-after") {
		t.Errorf("fired %v", ids)
	}
}
