package probe

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/urlx"
)

func TestDiscoveryFromEverySource(t *testing.T) {
	other, otherRec := serve(t, http.NotFoundHandler())
	root := fmt.Sprintf(`{
	  "_links": {
	    "self": {"href": "/"},
	    "next": {"href": "/hal-object"},
	    "item": [{"href": "relative"}, {"href": "/hal-array"}],
	    "ea:orders": {"href": "/curie-rel"},
	    "curies": [{"name": "ea", "href": "%[1]s/rels/{rel}", "templated": true}],
	    "search": {"href": "/search{?q,page}", "templated": true},
	    "user": {"href": "/users/{id}", "templated": true},
	    "foreign": {"href": "%[1]s/foreign"},
	    "mail": {"href": "mailto:someone@example.com"}
	  },
	  "_embedded": {"things": [{"_links": {"self": {"href": "/embedded/1"}}, "_embedded": {"deeper": {"_links": {"self": {"href": "/embedded/deeper"}}}}}]},
	  "_templates": {"default": {"method": "POST", "target": "/forms/target"}}
	}`, other.URL)
	srv, _ := serve(t, routes{
		"/": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Link", `</from-link>; rel="next", <`+other.URL+`/link-foreign>; rel=alternate`)
			w.Header().Add("Link", `</anchored>; rel=next; anchor="/elsewhere"`)
			halBody(root)(w, r)
		},
		"/hal-object": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Location", "/content-location")
			halBody(`{}`)(w, r)
		},
		"/relative": func(w http.ResponseWriter, _ *http.Request) {
			// 300 is not followed by the client: its Location is a link.
			w.Header().Set("Location", "/from-location")
			w.WriteHeader(http.StatusMultipleChoices)
		},
		"/hal-array": htmlBody(`<html><head><link rel="stylesheet" href="/html-link"></head>
			<body><a href="sub/page#frag">x</a><a href="` + other.URL + `/html-foreign">y</a></body></html>`),
		"/curie-rel":        halBody(`{}`),
		"/search":           halBody(`{}`),
		"/embedded/1":       halBody(`{}`),
		"/embedded/deeper":  halBody(`{}`),
		"/forms/target":     halBody(`{}`),
		"/from-link":        halBody(`{}`),
		"/content-location": halBody(`{}`),
		"/from-location":    halBody(`{}`),
		"/html-link":        halBody(`{}`),
		"/sub/page":         halBody(`{}`),
	})
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)

	want := []string{"/", "/content-location", "/curie-rel", "/embedded/1", "/embedded/deeper", "/forms/target",
		"/from-link", "/from-location", "/hal-array", "/hal-object", "/html-link", "/relative", "/search", "/sub/page"}
	if got := crawledPaths(res); !slices.Equal(got, want) {
		t.Errorf("crawled:\n got %v\nwant %v", got, want)
	}
	if n := len(otherRec.requests()); n != 0 {
		t.Errorf("other origin received %d requests, want none", n)
	}
	if got := res.Stats.Skipped[skipOffOrigin]; got != 3 {
		t.Errorf("off-origin skipped = %d, want 3 (HAL, Link header, HTML)", got)
	}
	if got := res.Stats.Skipped[skipTemplate]; got != 2 {
		t.Errorf("template skipped = %d, want 2 (curies and /users/{id})", got)
	}
	if got := res.Stats.Skipped[skipScheme]; got != 1 {
		t.Errorf("not-http skipped = %d, want 1", got)
	}
	if x := crawlOf(res, "/embedded/deeper"); x == nil || x.Source != "hal _embedded.things._embedded.deeper._links.self of /" || x.Depth != 1 {
		t.Errorf("embedded link exchange = %+v", x)
	}
	if x := crawlOf(res, "/sub/page"); x == nil || x.Source != "html <a href> of /hal-array" || x.Depth != 2 {
		t.Errorf("html link exchange = %+v", x)
	}
	if x := crawlOf(res, "/from-link"); x == nil || x.Source != "Link rel=next of /" {
		t.Errorf("Link header exchange = %+v", x)
	}
}

func TestHeadersNeverSentCrossOrigin(t *testing.T) {
	other, otherRec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("stolen"))
	}))
	srv, rec := serve(t, routes{
		"/": halBody(fmt.Sprintf(`{"_links": {"a": {"href": "/steal"}, "b": {"href": "/hop"}, "c": {"href": "%s/direct"}}}`, other.URL)),
		"/steal": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/via-redirect", http.StatusFound)
		},
		"/hop": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/landing", http.StatusFound)
		},
		"/landing": halBody(`{}`),
	})
	cfg := Config{
		Start:   mustParse(t, srv.URL),
		Headers: http.Header{"Authorization": {"Bearer s3cret"}, "X-Tenant": {"t0ken"}},
	}
	res := run(t, cfg, nil)

	for _, r := range otherRec.requests() {
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Tenant") != "" {
			t.Errorf("other origin received credentials on %s", r.Path)
		}
	}
	if n := len(otherRec.requests()); n != 0 {
		t.Errorf("other origin received %d requests, want none", n)
	}
	for _, r := range rec.requests() {
		if r.Header.Get("Authorization") != "Bearer s3cret" || r.Header.Get("X-Tenant") != "t0ken" {
			t.Errorf("start origin request %s lacks the configured headers", r.Path)
		}
		if r.Header.Get("Referer") != "" {
			t.Errorf("request %s carries a Referer the recording does not show", r.Path)
		}
	}
	steal := crawlOf(res, "/steal")
	if steal == nil || steal.Response == nil || steal.Response.Status != http.StatusFound {
		t.Fatalf("off-origin redirect must be recorded as the 302 itself, got %+v", steal)
	}
	hop := crawlOf(res, "/hop")
	if hop == nil || hop.Response == nil || hop.Response.Status != http.StatusOK {
		t.Fatalf("on-origin redirect must be followed, got %+v", hop)
	}
	// Three crawl pages plus the hop to /landing; /landing itself is also
	// not linked, so it is fetched only through the redirect.
	if res.Stats.Pages != 3 || res.Stats.Requests != 4 {
		t.Errorf("pages=%d requests=%d, want 3 and 4", res.Stats.Pages, res.Stats.Requests)
	}
	if got := res.Stats.Skipped[skipOffOrigin]; got != 2 {
		t.Errorf("off-origin skipped = %d, want 2 (direct link and redirect Location)", got)
	}
}

func TestRequestHeadersOfCrawl(t *testing.T) {
	srv, rec := serve(t, routes{"/": halBody(`{}`)})
	run(t, Config{Start: mustParse(t, srv.URL), Version: "1.2.3"}, nil)
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	h := reqs[0].Header
	if h.Get("Accept") != CrawlAccept {
		t.Errorf("Accept = %q", h.Get("Accept"))
	}
	if want := "agentready/1.2.3 (+https://github.com/agentready/agentready)"; h.Get("User-Agent") != want {
		t.Errorf("User-Agent = %q, want %q", h.Get("User-Agent"), want)
	}
	if h.Get("Accept-Encoding") != "" {
		t.Errorf("Accept-Encoding = %q: the wire request must match the recorded one", h.Get("Accept-Encoding"))
	}
}

func TestQueryTrapIsBounded(t *testing.T) {
	srv, _ := serve(t, routes{
		"/": func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(r.URL.Query().Get("page"))
			halBody(fmt.Sprintf(`{"_links": {"next": {"href": "/?page=%d&a=1"}, "same": {"href": "/?a=1&page=%d#top"}}}`, n+1, n+1))(w, r)
		},
	})
	res := run(t, Config{Start: mustParse(t, srv.URL), MaxPages: 1000, MaxDepth: 1000}, nil)
	if got := res.Stats.Pages; got != 1+5 {
		t.Errorf("pages = %d, want the start plus 5 query variants; crawled %v", got, crawledPaths(res))
	}
	if res.Stats.Skipped[skipQueryVariants] != 1 {
		t.Errorf("query-variants skipped = %d, want 1", res.Stats.Skipped[skipQueryVariants])
	}
}

func TestMaxPages(t *testing.T) {
	var links []string
	for i := range 50 {
		links = append(links, fmt.Sprintf(`{"href": "/items/%02d"}`, i))
	}
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			halBody(`{"_links": {"item": [`+strings.Join(links, ",")+`]}}`)(w, r)
			return
		}
		halBody(`{}`)(w, r)
	}))
	res := run(t, Config{Start: mustParse(t, srv.URL), MaxPages: 10, Concurrency: 8}, nil)
	if res.Stats.Pages != 10 || len(rec.requests()) != 10 {
		t.Errorf("pages = %d, server saw %d, want 10", res.Stats.Pages, len(rec.requests()))
	}
	if res.Stats.Skipped[skipMaxPages] != 41 {
		t.Errorf("max-pages skipped = %d, want 41", res.Stats.Skipped[skipMaxPages])
	}
	// The pages kept are the first ones linked, whatever the timing.
	if got := crawledPaths(res); got[len(got)-1] != "/items/08" {
		t.Errorf("crawled %v", got)
	}
}

func TestMaxDepth(t *testing.T) {
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		halBody(`{"_links": {"next": {"href": "`+r.URL.Path+`x"}}}`)(w, r)
	}))
	res := run(t, Config{Start: mustParse(t, srv.URL+"/d"), MaxDepth: 3}, nil)
	want := []string{"/d", "/dx", "/dxx", "/dxxx"}
	if got := crawledPaths(res); !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	if res.Stats.Skipped[skipMaxDepth] != 1 {
		t.Errorf("max-depth skipped = %d, want 1", res.Stats.Skipped[skipMaxDepth])
	}
}

func TestIncludeExclude(t *testing.T) {
	srv, _ := serve(t, routes{
		"/":          halBody(`{"_links": {"i": [{"href": "/api/a"}, {"href": "/api/b"}, {"href": "/api/c/d"}, {"href": "/admin/x"}, {"href": "/other"}]}}`),
		"/api/a":     halBody(`{}`),
		"/api/b":     halBody(`{}`),
		"/api/c/d":   halBody(`{}`),
		"/admin/x":   halBody(`{}`),
		"/other":     halBody(`{}`),
		"/api/other": halBody(`{}`),
	})
	res := run(t, Config{Start: mustParse(t, srv.URL), Include: []string{"/api/**"}, Exclude: []string{"/api/b"}}, nil)
	want := []string{"/", "/api/a", "/api/c/d"}
	if got := crawledPaths(res); !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	if res.Stats.Skipped[skipExcluded] != 3 {
		t.Errorf("excluded = %d, want 3", res.Stats.Skipped[skipExcluded])
	}
}

// TestMalformedPatternIsRefused: a mistyped exclude matches nothing, so it
// must stop the scan rather than let the crawl into what it meant to name.
func TestMalformedPatternIsRefused(t *testing.T) {
	srv, hits := serve(t, routes{"/": halBody(`{}`)})
	for _, cfg := range []Config{{Exclude: []string{"/admin/[x"}}, {Include: []string{"[/**"}}} {
		cfg.Start = mustParse(t, srv.URL)
		if _, err := Run(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "pattern") {
			t.Errorf("%+v: err %v, want a pattern error", cfg, err)
		}
	}
	if n := len(hits.requests()); n != 0 {
		t.Errorf("%d request(s) sent", n)
	}
	for p, ok := range map[string]bool{"/api/**": true, "/users/?": true, "[": false, "/a/[b-": false, `/x\`: false} {
		if err := urlx.CheckPattern(p); (err == nil) != ok {
			t.Errorf("urlx.CheckPattern(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}

func TestMatchPattern(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"/api/**", "/api", true},
		{"/api/**", "/api/a/b", true},
		{"/api/**", "/apix", false},
		{"/**", "/anything/at/all", true},
		{"/api/*", "/api/a", true},
		{"/api/*", "/api/a/b", true},
		{"/admin*", "/administrators/list", true},
		{"/admin*", "/adm", false},
		{"/users/?", "/users/7", true},
		{"/users/?", "/users/77", false},
		{"/exact", "/exact", true},
		{"/exact", "/exact/more", false},
		{"[", "/x", false},
	}
	for _, tt := range tests {
		if got := urlx.MatchPath(tt.pattern, tt.path); got != tt.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://Example.COM:80/a?b=2&a=1#frag", "http://example.com/a?a=1&b=2"},
		{"https://example.com:443", "https://example.com/"},
		{"https://example.com:8443/x?", "https://example.com:8443/x"},
		{"http://example.com/p?a=2&b=1&a=1&&", "http://example.com/p?a=2&a=1&b=1"},
		{"http://user:pw@example.com/", "http://example.com/"},
		{"http://example.com/%7Efoo", "http://example.com/%7Efoo"},
	}
	for _, tt := range tests {
		if got := normalize(mustParse(t, tt.in)).String(); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpandTemplate(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"/search{?q,page}", "/search", true},
		{"/items?x=1{&page}", "/items?x=1", true},
		{"/users/{id}", "", false},
		{"/users/{id}{?fields}", "", false},
		{"/plain", "/plain", true},
		{"/{{{", "", false},
		{"/a}", "", false},
	}
	for _, tt := range tests {
		got, ok := expandTemplate(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("expandTemplate(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCancellationReturnsPartialResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, _ := serve(t, routes{
		"/": halBody(`{"_links": {"slow": {"href": "/slow"}}}`),
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			cancel()
			<-r.Context().Done()
		},
	})
	res, err := Run(ctx, Config{Start: mustParse(t, srv.URL)}, nil)
	if err != nil {
		t.Fatalf("cancellation must not be an error: %v", err)
	}
	if !res.Stats.Interrupted || res.Stats.BudgetCut != nil || !slices.Equal(crawledPaths(res), []string{"/"}) {
		t.Errorf("interrupted=%v budget cut=%q crawled=%v", res.Stats.Interrupted, res.Stats.BudgetCut, crawledPaths(res))
	}
	if !slices.Equal(res.Notes, []string{"scan interrupted after 1 pages"}) {
		t.Errorf("notes = %q", res.Notes)
	}
}

// TestRunTakesItsTimeFromTheContext: the time a run has is its context's
// deadline, whatever Config.Budget says, and the crawl takes 3/4 of that
// time. A session hands each identity's run such a context and leaves the
// field as the user gave it.
func TestRunTakesItsTimeFromTheContext(t *testing.T) {
	srv, _ := serve(t, routes{
		"/":     halBody(`{"_links": {"slow": {"href": "/slow"}}}`),
		"/slow": func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
	})
	cfg := Config{Start: mustParse(t, srv.URL), Budget: time.Hour, Timeout: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Notes, []string{"the crawl stopped after 1 pages, at the end of its share of the budget (300ms)"}) {
		t.Errorf("notes %q; want the crawl's share to be 3/4 of the context's 400ms", res.Notes)
	}
}

func TestBudgetExhaustion(t *testing.T) {
	srv, _ := serve(t, routes{
		"/":     halBody(`{"_links": {"slow": {"href": "/slow"}}}`),
		"/slow": func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
	})
	cfg := Config{Start: mustParse(t, srv.URL), Budget: 300 * time.Millisecond, Timeout: time.Hour}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The budget is not an interruption: the scan ran as long as asked.
	if res.Stats.Interrupted || !slices.Equal(res.Stats.BudgetCut, []string{finding.CutCrawl}) ||
		!slices.Equal(res.Notes, []string{"the crawl stopped after 1 pages, at the end of its share of the budget (225ms)"}) {
		t.Errorf("interrupted=%v budget cut=%q notes=%q", res.Stats.Interrupted, res.Stats.BudgetCut, res.Notes)
	}
}

func TestStartRedirectingElsewhereIsNoted(t *testing.T) {
	other, otherRec := serve(t, routes{"/": halBody(`{}`)})
	srv, _ := serve(t, http.RedirectHandler(other.URL+"/", http.StatusMovedPermanently))
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)
	if len(otherRec.requests()) != 0 {
		t.Error("followed a redirect to another origin")
	}
	want := "the start URL redirects to another origin (" + other.URL + "/); scan that URL to follow it"
	if !slices.Equal(res.Notes, []string{want}) {
		t.Errorf("notes = %q", res.Notes)
	}
	if res.Stats.Pages != 1 || res.Recording.Exchanges[0].Response.Status != http.StatusMovedPermanently {
		t.Errorf("stats %+v", res.Stats)
	}
}

// A level's pages are visited in the order they were queued, whichever
// answers first: here the first queued answer last, and the pages they
// link to, their sources and the next level's order are those of a server
// that answers in order.
func TestLevelIsVisitedInQueueOrderWhateverAnswersFirst(t *testing.T) {
	outlineOf := func(slowFirst bool) []string {
		srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var links []string
			switch {
			case r.URL.Path == "/":
				for i := range 8 {
					links = append(links, fmt.Sprintf(`{"href": "/section/%d"}`, i))
				}
			case strings.HasPrefix(r.URL.Path, "/section/"):
				n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/section/"))
				if slowFirst {
					time.Sleep(time.Duration(8-n) * 15 * time.Millisecond)
				}
				// Every section links to the shared page and to its own.
				links = append(links, `{"href": "/shared"}`, fmt.Sprintf(`{"href": "/page/%d"}`, n))
			}
			halBody(`{"_links": {"item": [`+strings.Join(links, ",")+`]}}`)(w, r)
		}))
		res := run(t, Config{Start: mustParse(t, srv.URL+"/"), Concurrency: 8}, nil)
		var out []string
		for x := range res.Recording.Crawled() {
			out = append(out, fmt.Sprintf("%s d=%d %q", exchange.PathOf(x.Request.URL), x.Depth, x.Source))
		}
		return out
	}
	inOrder, slowFirst := outlineOf(false), outlineOf(true)
	if !slices.Equal(inOrder, slowFirst) {
		t.Errorf("recorded differently when the first pages answer last:\n in order: %v\nslow first: %v", inOrder, slowFirst)
	}
	if !slices.Contains(inOrder, `/shared d=2 "hal _links.item of /section/0"`) {
		t.Errorf("the shared page was not credited to the first section: %v", inOrder)
	}
}

// A start page that answers 404 to the crawl's Accept and 200 without
// Accept is crawled from that answer, and the 404 is kept, BasedOn the start
// URL, for the checks; one that answers 404 to every Accept is left as it
// is, its retries unrecorded; and a user's own Accept is never replaced.
func TestStartPageThatRefusesTheCrawlsAcceptIsRetried(t *testing.T) {
	// rootFor serves the start page to the Accept values given ("" for a
	// request without one) and answers 404 to any other.
	rootFor := func(accepts ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if !slices.Contains(accepts, r.Header.Get("Accept")) {
				http.NotFound(w, r)
				return
			}
			halBody(`{"_links":{"item":{"href":"/orders/1"}}}`)(w, r)
		}
	}
	for _, tt := range []struct {
		what     string
		routes   routes
		header   http.Header
		pages    []string
		crawled  string // the start page's Accept, once retried
		requests int    // to the start page
	}{
		{"exists for */*", routes{"/": rootFor("*/*", ""), "/orders/1": halBody(`{}`)}, nil, []string{"/", "/orders/1"}, "*/*", 2},
		{"exists without Accept", routes{"/": rootFor(""), "/orders/1": halBody(`{}`)}, nil, []string{"/", "/orders/1"}, "", 3},
		{"missing for every Accept", routes{}, nil, []string{"/"}, CrawlAccept, 3},
		{"the user's Accept", routes{"/": rootFor("")}, http.Header{"Accept": {"application/json"}}, []string{"/"}, "application/json", 1},
	} {
		t.Run(tt.what, func(t *testing.T) {
			srv, rec := serve(t, tt.routes)
			res := run(t, Config{Start: mustParse(t, srv.URL), Headers: tt.header}, nil)
			if got := crawledPaths(res); !slices.Equal(got, tt.pages) {
				t.Errorf("crawled %v, want %v", got, tt.pages)
			}
			if got := crawlOf(res, "/").Request.Header.Get("Accept"); got != tt.crawled {
				t.Errorf("the start page was crawled with Accept %q, want %q", got, tt.crawled)
			}
			var refused []*exchange.Exchange
			for x := range res.Recording.WithPurpose(exchange.PurposeCrawlRefused) {
				refused = append(refused, x)
			}
			wantRefused := len(tt.pages) > 1
			if wantRefused != (len(refused) == 1) || len(refused) > 1 {
				t.Fatalf("kept %d refused answers, want one: %v", len(refused), wantRefused)
			}
			if wantRefused {
				x := refused[0]
				if x.Response.Status != http.StatusNotFound || x.BasedOn != srv.URL+"/" || x.Request.Header.Get("Accept") != CrawlAccept {
					t.Errorf("refused answer %d to %q, based on %q", x.Response.Status, x.Request.Header.Get("Accept"), x.BasedOn)
				}
			}
			starts := 0
			for _, r := range rec.requests() {
				if r.Path == "/" {
					starts++
				}
			}
			if starts != tt.requests {
				t.Errorf("the start page was requested %d times, want %d", starts, tt.requests)
			}
		})
	}
}

// A linked page that answers 404 or 406 to the crawl's Accept and 2xx to
// another is crawled from that answer, its refusal kept BasedOn its URL as
// the start page's is; one missing for every Accept stays as it was, its
// retries unrecorded; and only the first URLs queued of a path shape are
// asked again, so that a shape of many missing pages costs a few requests.
func TestLinkedPageThatRefusesTheCrawlsAcceptIsRetried(t *testing.T) {
	// refusing answers status to the crawl's Accept and serves body to any
	// other.
	refusing := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Accept") == CrawlAccept {
				w.WriteHeader(status)
				return
			}
			halBody(body)(w, r)
		}
	}
	rt := routes{
		"/": halBody(`{"_links": {"item": [{"href": "/orders/1"}, {"href": "/orders/2"}, {"href": "/gone/1"}, {"href": "/gone/2"},
			{"href": "/gone/3"}, {"href": "/gone/4"}, {"href": "/gone/5"}, {"href": "/forbidden"}]}}`),
		"/orders/1":       refusing(http.StatusNotFound, `{"_links": {"next": {"href": "/orders/1/lines"}}}`),
		"/orders/2":       refusing(http.StatusNotAcceptable, `{}`),
		"/forbidden":      refusing(http.StatusForbidden, `{}`),
		"/orders/1/lines": halBody(`{}`),
	}
	srv, rec := serve(t, rt)
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)

	want := []string{"/", "/forbidden", "/gone/1", "/gone/2", "/gone/3", "/gone/4", "/gone/5", "/orders/1", "/orders/1/lines", "/orders/2"}
	if got := crawledPaths(res); !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	for path, accept := range map[string]string{"/orders/1": "*/*", "/orders/2": "*/*", "/gone/1": CrawlAccept, "/forbidden": CrawlAccept} {
		if got := crawlOf(res, path).Request.Header.Get("Accept"); got != accept {
			t.Errorf("%s was crawled with Accept %q, want %q", path, got, accept)
		}
	}
	refused := map[string]int{}
	for x := range res.Recording.WithPurpose(exchange.PurposeCrawlRefused) {
		if x.BasedOn != x.Request.URL || x.Request.Header.Get("Accept") != CrawlAccept {
			t.Errorf("refused answer to %q based on %q", x.Request.Header.Get("Accept"), x.BasedOn)
		}
		refused[exchange.PathOf(x.Request.URL)] = x.Response.Status
	}
	if want := map[string]int{"/orders/1": 404, "/orders/2": 406}; !maps.Equal(refused, want) {
		t.Errorf("refused answers kept %v, want %v", refused, want)
	}
	sent := map[string]int{}
	for _, r := range rec.requests() {
		sent[r.Path]++
	}
	// /gone/{id}: the first three queued are asked three times, the rest
	// once; a 403 is about access, and is not asked again.
	for path, n := range map[string]int{"/gone/1": 3, "/gone/3": 3, "/gone/4": 1, "/gone/5": 1, "/forbidden": 1, "/orders/1": 2} {
		if sent[path] != n {
			t.Errorf("%s was requested %d times, want %d", path, sent[path], n)
		}
	}
}
