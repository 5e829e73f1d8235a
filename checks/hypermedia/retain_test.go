package hypermedia

import (
	"net/http"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

func halPage(url, body string) *exchange.Exchange {
	return &exchange.Exchange{
		Purpose: exchange.PurposeCrawl,
		Request: exchange.Request{Method: http.MethodGet, URL: url},
		Response: &exchange.Response{Status: http.StatusOK, Body: []byte(body), BodySize: int64(len(body)),
			Header: http.Header{"Content-Type": {"application/hal+json"}}},
	}
}

// The state matrix reads every crawled page; a tree kept on each of them
// would make memory grow with the crawl.
func TestStateMatricesKeepNoTreeOnThePages(t *testing.T) {
	open := halPage("http://api.test/orders/1", `{"status":"open","_links":{"self":{"href":"/orders/1"},"cancel":{"href":"/orders/1/cancel"}}}`)
	closed := halPage("http://api.test/orders/2", `{"status":"closed","_links":{"self":{"href":"/orders/2"}}}`)
	got := stateMatrices(&exchange.Recording{Exchanges: []*exchange.Exchange{open, closed}})
	if len(got) != 1 {
		t.Fatalf("state matrices = %+v, want one", got)
	}
	for _, x := range []*exchange.Exchange{open, closed} {
		if first, again := x.Response.ReadHAL(), x.Response.ReadHAL(); first == again {
			t.Errorf("%s keeps its decoded tree after the state matrix", x.Request.URL)
		}
	}
}
