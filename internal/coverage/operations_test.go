package coverage

import (
	"net/http"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// coverageSpec declares one GET operation per situation, under a servers
// path, plus a POST that coverage must leave out.
const coverageSpec = `openapi: 3.1.0
info: {title: t, version: "1"}
servers: [{url: "https://api.example.com/v1"}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Key}
paths:
  /orders:
    get: {operationId: listOrders, responses: {"200": {description: ok}}}
    post: {operationId: createOrder, responses: {"201": {description: ok}}}
  /orders/{id}:
    get:
      operationId: getOrder
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /search:
    get:
      operationId: search
      parameters: [{name: q, in: query, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /admin:
    get: {operationId: admin, responses: {"200": {description: ok}}}
  /secret:
    get: {operationId: secret, security: [{key: []}], responses: {"200": {description: ok}}}
  /broken:
    get: {operationId: broken, responses: {"200": {description: ok}}}
  /later:
    get: {operationId: later, responses: {"200": {description: ok}}}
`

func coverageDoc(t *testing.T) *spec.Document {
	t.Helper()
	doc, err := spec.Load([]byte(coverageSpec), "openapi.yaml", "openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func answered(purpose, method, rawURL string, status int, header http.Header) *exchange.Exchange {
	x := &exchange.Exchange{Purpose: purpose, Request: exchange.Request{Method: method, URL: rawURL, Header: header}}
	if status > 0 {
		x.Response = &exchange.Response{Status: status}
	}
	return x
}

func reachOf(t *testing.T, cov *finding.OperationCoverage, path string) finding.OperationReach {
	t.Helper()
	for _, it := range cov.Items {
		if it.Path == path {
			return it
		}
	}
	t.Fatalf("no item for %s in %+v", path, cov.Items)
	return finding.OperationReach{}
}

func TestOperationCoverageReasons(t *testing.T) {
	const origin = "http://127.0.0.1:1"
	crawl := func(path string, status int) *exchange.Exchange {
		return answered(exchange.PurposeCrawl, http.MethodGet, origin+path, status, nil)
	}
	tests := []struct {
		name      string
		exchanges []*exchange.Exchange
		facts     Facts
		path      string
		want      finding.OperationReach
	}{
		{"reached with the best answer", []*exchange.Exchange{crawl("/orders/9", 404), crawl("/orders/1", 200), crawl("/orders/2", 500)},
			Facts{Explored: true}, "/orders/{id}",
			finding.OperationReach{Reached: true, Status: 200, URL: origin + "/orders/1"}},
		{"reached under the servers path", []*exchange.Exchange{crawl("/v1/orders", 200)},
			Facts{Explored: true, BasePath: "/v1"}, "/orders",
			finding.OperationReach{Reached: true, Status: 200, URL: origin + "/v1/orders"}},
		{"reached under a base path the document does not declare", []*exchange.Exchange{crawl("/api/orders", 200)},
			Facts{Explored: true, BasePath: "/api"}, "/orders",
			finding.OperationReach{Reached: true, Status: 200, URL: origin + "/api/orders"}},
		{"needs a path parameter", nil,
			Facts{Explored: true, Unfilled: map[string]string{"GET /orders/{id}": finding.ReasonPathParameter}}, "/orders/{id}",
			finding.OperationReach{Reason: finding.ReasonPathParameter}},
		{"needs a path parameter, not explored", nil, Facts{}, "/orders/{id}",
			finding.OperationReach{Reason: finding.ReasonPathParameter}},
		{"needs a required parameter", nil,
			Facts{Explored: true, Unfilled: map[string]string{"GET /search": finding.ReasonRequiredParameter}}, "/search",
			finding.OperationReach{Reason: finding.ReasonRequiredParameter}},
		{"needs a required parameter, not explored", nil, Facts{}, "/search",
			finding.OperationReach{Reason: finding.ReasonRequiredParameter}},
		{"needs credentials: 403", []*exchange.Exchange{crawl("/admin", 403)}, Facts{Explored: true}, "/admin",
			finding.OperationReach{Status: 403, URL: origin + "/admin", Reason: finding.ReasonCredentials}},
		{"needs credentials: declared, none sent", []*exchange.Exchange{crawl("/secret", 404)}, Facts{Explored: true}, "/secret",
			finding.OperationReach{Status: 404, URL: origin + "/secret", Reason: finding.ReasonCredentials}},
		{"credential sent, error answered", []*exchange.Exchange{answered(exchange.PurposeCrawl, http.MethodGet, origin+"/secret", 500,
			http.Header{"X-Key": {exchange.Redacted}})}, Facts{Explored: true}, "/secret",
			finding.OperationReach{Status: 500, URL: origin + "/secret", Reason: finding.ReasonAnsweredError}},
		{"base path mismatch", []*exchange.Exchange{answered(probe.PurposeBasePath, http.MethodGet, origin+"/v1/orders", 404, nil), crawl("/v1/orders", 404)},
			Facts{Explored: true, BasePath: "/v1", BaseMismatch: true}, "/orders",
			finding.OperationReach{Status: 404, URL: origin + "/v1/orders", Reason: finding.ReasonBasePath}},
		{"answered error", []*exchange.Exchange{crawl("/broken", 404), crawl("/broken?x=1", 500)}, Facts{Explored: true}, "/broken",
			finding.OperationReach{Status: 500, URL: origin + "/broken?x=1", Reason: finding.ReasonAnsweredError}},
		{"priced", []*exchange.Exchange{crawl("/broken", 402)}, Facts{Explored: true}, "/broken",
			finding.OperationReach{Status: 402, URL: origin + "/broken", Reason: finding.ReasonPayment}},
		{"not reached in budget", []*exchange.Exchange{crawl("/orders", 200)}, Facts{Explored: true}, "/later",
			finding.OperationReach{Reason: finding.ReasonBudget}},
		{"an error probe is not a request for the operation",
			[]*exchange.Exchange{answered("problem-json/not-found-sibling", http.MethodGet, origin+"/orders/agentready-missing", 404, nil)},
			Facts{Explored: true}, "/orders/{id}",
			finding.OperationReach{Reason: finding.ReasonBudget}},
		{"HEAD is not GET", []*exchange.Exchange{answered(exchange.PurposeCrawl, http.MethodHead, origin+"/later", 200, nil)},
			Facts{Explored: true}, "/later",
			finding.OperationReach{Reason: finding.ReasonBudget}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := coverageDoc(t)
			cov := Operations(doc, &exchange.Recording{Exchanges: tt.exchanges}, tt.facts)
			if cov.Declared != 7 {
				t.Errorf("declared %d, want the 7 GET operations", cov.Declared)
			}
			got := reachOf(t, cov, tt.path)
			tt.want.Method, tt.want.Path = http.MethodGet, tt.path
			tt.want.OperationID = got.OperationID
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			reached := 0
			for _, it := range cov.Items {
				if it.Reached {
					reached++
				}
			}
			if cov.Reached != reached {
				t.Errorf("Reached %d, items reached %d", cov.Reached, reached)
			}
		})
	}
}
