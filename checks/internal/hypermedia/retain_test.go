package hypermedia

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/agentready/agentready/checks"
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

// The state matrix, the interfaces section and the carried HAL-FORMS
// documents read every crawled page; a tree kept on each of them would make
// memory grow with the crawl.
func TestPageReadsKeepNoTreeOnThePages(t *testing.T) {
	open := halPage("http://api.test/orders/1", `{"status":"open","_links":{"self":{"href":"/orders/1"},"cancel":{"href":"/orders/1/cancel"}}}`)
	closed := halPage("http://api.test/orders/2", `{"status":"closed","_links":{"self":{"href":"/orders/2"}}}`)
	target, _ := url.Parse("http://api.test/")
	in := checks.NewInput(target, &exchange.Recording{Exchanges: []*exchange.Exchange{open, closed}})
	if got := stateMatrices(in); len(got) != 1 {
		t.Fatalf("state matrices = %+v, want one", got)
	}
	if got := InterfaceCosts(in, nil); got.Resources != 0 || len(factsOf(in).visits.pages) != 2 {
		t.Fatalf("interfaces = %+v, visits %d; want two visits, no step", got, len(factsOf(in).visits.pages))
	}
	if got := Carried(in); len(got) != 0 {
		t.Fatalf("carried = %v, want none", got)
	}
	for _, x := range []*exchange.Exchange{open, closed} {
		if first, again := x.Response.ReadHAL(), x.Response.ReadHAL(); first == again {
			t.Errorf("%s keeps its decoded tree after the page readers", x.Request.URL)
		}
	}
}
