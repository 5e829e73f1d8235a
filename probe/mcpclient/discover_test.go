package mcpclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
)

func TestAdvertised(t *testing.T) {
	target, _ := url.Parse("http://api.test/")
	crawled := []*exchange.Exchange{
		checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/").Status(200).
			Header("Link", `</openapi.json>; rel="service-desc", </mcp>; rel="mcp", <http://evil.test/mcp>; rel="mcp"`).
			Header("Content-Type", "application/hal+json").
			Body(`{"_links":{"self":{"href":"/"},"ex:mcp-server":{"href":"/v2/mcp"},"orders":{"href":"/orders"}}}`).Build(),
		checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/orders").Status(200).
			Header("Link", `</tools>; rel="https://modelcontextprotocol.io/rel/server"`).Build(),
		// Scrubbed: the endpoint's real URL is not known, and is not tried.
		checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/tenant").Status(200).
			Header("Link", `</t/REDACTED/mcp>; rel="mcp"`).Build(),
	}
	got := Advertised(target, crawled)
	var urls []string
	for _, ep := range got {
		urls = append(urls, ep.URL)
	}
	want := []string{"http://api.test/mcp", "http://api.test/v2/mcp", "http://api.test/tools"}
	if !slices.Equal(urls, want) {
		t.Errorf("advertised %v, want %v", urls, want)
	}
	if got[0].Source != `Link rel=mcp on /` || got[1].Source != "HAL _links.ex:mcp-server on /" {
		t.Errorf("sources %q, %q", got[0].Source, got[1].Source)
	}
}

// TestAdvertisedPastThePrefilter: pages are decoded only when they may
// name MCP; a relation spelled in another case or with JSON escapes still
// does.
func TestAdvertisedPastThePrefilter(t *testing.T) {
	target, _ := url.Parse("http://api.test/")
	page := func(path, body string) *exchange.Exchange {
		return checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test"+path).Status(200).
			Header("Content-Type", "application/hal+json").Body(body).Build()
	}
	crawled := []*exchange.Exchange{
		page("/a", `{"_links":{"self":{"href":"/a"},"next":{"href":"/b"}}}`),
		page("/b", `{"_links":{"ex:MCP":{"href":"/upper"}}}`),
		page("/c", `{"_links":{"\u006dcp":{"href":"/escaped"}}}`),
		page("/d", `{"_links":{"ModelContextProtocol-server":{"href":"/named"}}}`),
	}
	var urls []string
	for _, ep := range Advertised(target, crawled) {
		urls = append(urls, ep.URL)
	}
	want := []string{"http://api.test/upper", "http://api.test/escaped", "http://api.test/named"}
	if !slices.Equal(urls, want) {
		t.Errorf("advertised %v, want %v", urls, want)
	}
}

// TestAdvertisedOnTheTargetsOrigin: the default port written out is still
// the target's origin, another port is not.
func TestAdvertisedOnTheTargetsOrigin(t *testing.T) {
	target, _ := url.Parse("http://api.test/")
	crawled := []*exchange.Exchange{
		checkstest.Exchange(exchange.PurposeCrawl, "GET", "http://api.test/").Status(200).
			Header("Link", `<http://API.test:80/mcp>; rel="mcp", <http://api.test:8080/mcp>; rel="mcp", <https://api.test/mcp>; rel="mcp"`).Build(),
	}
	var urls []string
	for _, ep := range Advertised(target, crawled) {
		urls = append(urls, ep.URL)
	}
	if want := []string{"http://API.test:80/mcp"}; !slices.Equal(urls, want) {
		t.Errorf("advertised %v, want %v", urls, want)
	}
}

func TestMentions(t *testing.T) {
	doc := "# Shop\n\n- [MCP server](https://api.test/agents/mcp): tools\n- [Orders](/orders)\n- [Model Context Protocol endpoint](/rpc)\n" +
		`{"url":"https://api.test/mcp"}`
	got := mentions([]byte(doc))
	want := []string{"https://api.test/agents/mcp", "/rpc", "https://api.test/agents/mcp", "https://api.test/mcp"}
	if !slices.Equal(got, want) {
		t.Errorf("mentions %v, want %v", got, want)
	}
}

func TestDiscoverOrder(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/llms.txt", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("# Shop\n\n- [MCP](/agent/mcp)\n- [Elsewhere](https://other.test/mcp)\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/")

	eps, fetched := Discover(context.Background(), Config{}, target, "", nil)
	if len(eps) != 1 || eps[0].URL != srv.URL+"/agent/mcp" || eps[0].Source != "/llms.txt" {
		t.Errorf("endpoints %+v", eps)
	}
	if len(fetched) != 2 || fetched[0].Purpose != PurposeDiscovery || fetched[0].Request.Method != "GET" {
		t.Errorf("fetched %+v", fetched)
	}

	eps, _ = Discover(context.Background(), Config{}, target, "http://other.test/x", nil)
	if eps[0].Source != "--mcp" {
		t.Errorf("the named endpoint does not come first: %+v", eps)
	}

	bare := httptest.NewServer(http.NotFoundHandler())
	defer bare.Close()
	target, _ = url.Parse(bare.URL + "/")
	eps, _ = Discover(context.Background(), Config{}, target, "", nil)
	if len(eps) != 1 || eps[0].URL != bare.URL+"/mcp" || !eps[0].Conventional() {
		t.Errorf("fallback %+v", eps)
	}
}

func TestVerdictOnlyClosesItsSession(t *testing.T) {
	srv, rec := serve(t, legacySDK())
	v, err := Verdict(context.Background(), Config{}, mcp.Endpoint{URL: srv.URL})
	if err != nil || v.Verdict.Era != mcp.EraLegacy {
		t.Fatalf("verdict %+v, %v", v.Verdict, err)
	}
	if got := rec.seen(); !slices.Equal(got, []string{"server/discover", "initialize", "DELETE"}) {
		t.Errorf("methods %v", got)
	}
}
