package hypermedia_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
)

// TestOffersStayOnTheOrigin: a target written with the default port is on
// the response's origin; another port or scheme is not.
func TestOffersStayOnTheOrigin(t *testing.T) {
	x := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, "http://api.test/").Status(http.StatusOK).
		Header("Content-Type", "application/json").
		Body(`{"_links":{"self":{"href":"/"},"a":{"href":"http://API.test:80/a"},"b":{"href":"http://api.test:8080/b"},"c":{"href":"https://api.test/c"}}}`).Build()
	var got []string
	for _, o := range hypermedia.Offers([]*exchange.Exchange{x}) {
		got = append(got, o.Name+" "+o.Target)
	}
	if want := []string{"a http://API.test:80/a"}; !slices.Equal(got, want) {
		t.Errorf("offers %v, want %v", got, want)
	}
}

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
	if got := hypermedia.Offers([]*exchange.Exchange{x}); len(got) == 0 {
		t.Fatal("no offer read")
	}
	if first, again := x.Response.ReadHAL(), x.Response.ReadHAL(); first == again {
		t.Error("the page keeps its decoded tree after Offers")
	}
}
