package leakage_test

import (
	"net/http"
	"testing"

	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/internal/exchange"
)

// Offers reads every page of a crawl; a tree kept on each of them would
// make memory grow with the crawl.
func TestOffersKeepNoTreeOnThePages(t *testing.T) {
	body := `{"_links":{"self":{"href":"/orders/1"}},"_templates":{"default":{"method":"DELETE"}}}`
	x := &exchange.Exchange{
		Purpose: exchange.PurposeCrawl,
		Request: exchange.Request{Method: http.MethodGet, URL: "http://api.test/orders/1"},
		Response: &exchange.Response{Status: http.StatusOK, Body: []byte(body), BodySize: int64(len(body)),
			Header: http.Header{"Content-Type": {"application/prs.hal-forms+json"}}},
	}
	if got := leakage.Offers([]*exchange.Exchange{x}); len(got) == 0 {
		t.Fatal("no offer read")
	}
	if first, again := x.Response.ReadHAL(), x.Response.ReadHAL(); first == again {
		t.Error("the page keeps its decoded tree after Offers")
	}
}
