package probe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

func TestLinksPerPageKeepsTheFirstInReadingOrder(t *testing.T) {
	leaf := halBody(`{}`)
	srv, _ := serve(t, routes{
		"/": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `</h1>; rel="item", </h2>; rel="item"`)
			// Relations are read in name order, the links of one relation in
			// document order: b's links come after a's although written first.
			halBody(`{"_links": {
				"b": [{"href": "/b1"}, {"href": "/b2"}],
				"a": [{"href": "/a1"}, {"href": "/a2"}, {"nohref": true}, "not an object", {"href": "/a3"}]
			}}`)(w, r)
		},
		"/h1": leaf, "/h2": leaf, "/a1": leaf, "/a2": leaf, "/a3": leaf, "/b1": leaf, "/b2": leaf,
	})
	res := run(t, Config{Start: mustParse(t, srv.URL), MaxLinksPerPage: 4}, nil)
	if got, want := crawledPaths(res), []string{"/", "/a1", "/a2", "/h1", "/h2"}; !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	// Eight link objects were offered (the one without href counts, the
	// string does not); four were taken.
	want := "took 4 of 8 links from GET /, cut by the per-page bound (--max-links-per-page)"
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
	if n := res.Stats.Skipped[skipLinksPerPage]; n != 4 {
		t.Errorf("skipped %d links for the bound, want 4", n)
	}
	if slices.Contains(res.Recording.Samples, crawlOf(res, "/").Request.URL) {
		t.Error("a page cut by the bound was sampled")
	}
	if len(crawlOf(res, "/a1").Response.Body) == 0 {
		t.Error("a page under the bound lost its body")
	}
}

func TestLinkFloodIsCutPerPage(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.Handler{"hal": hostile.LinkFlood(), "html": hostile.HTMLLinkFlood()} {
		t.Run(name, func(t *testing.T) {
			srv, _ := serve(t, h)
			res := run(t, Config{Start: mustParse(t, srv.URL), MaxPages: 3, Budget: time.Minute}, nil)
			// The flood repeats its Link header (capped at linkheader.MaxLinks)
			// and carries its links in the body.
			want := fmt.Sprintf("took 1000 of %d links from GET /", 1000+hostile.FloodLinks)
			if name == "hal" {
				want = fmt.Sprintf("took 1000 of %d links from GET /", 1000+hostile.FloodLinks+1) // and self
			}
			if len(res.Notes) == 0 || !strings.HasPrefix(res.Notes[0], want+" and 2 more pages") {
				t.Errorf("notes %q, want a first one starting %q", res.Notes, want)
			}
			for x := range res.Recording.Crawled() {
				if len(x.Response.Body) > 0 || !x.Response.Dropped {
					t.Errorf("%s kept its %d-byte body", x.Request.URL, len(x.Response.Body))
				}
			}
		})
	}
}

// TestLeastSetKeepsTheSameWhateverTheOrder offers the same items in many
// orders: what is kept must be the least items that fit, every time.
func TestLeastSetKeepsTheSameWhateverTheOrder(t *testing.T) {
	weights := map[string]int64{}
	var items []string
	for i := range 40 {
		s := fmt.Sprintf("u%02d", i)
		items = append(items, s)
		weights[s] = int64(1 + i%7)
	}
	// The longest prefix of u00, u01, ... whose weights add up to at most 50.
	var want []string
	total := int64(0)
	for _, s := range items {
		if total+weights[s] > 50 {
			break
		}
		total += weights[s]
		want = append(want, s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		set := leastSet[string]{less: func(a, b string) bool { return a < b }, weight: func(s string) int64 { return weights[s] }, limit: 50}
		released := map[string]bool{}
		for _, i := range r.Perm(len(items)) {
			kept, evicted := set.admit(items[i])
			if !kept {
				released[items[i]] = true
			}
			for _, e := range evicted {
				released[e] = true
			}
		}
		if !slices.Equal(set.items, want) {
			t.Fatalf("kept %v, want %v", set.items, want)
		}
		if len(released) != len(items)-len(want) || set.refused != len(released) {
			t.Fatalf("released %d (refused %d), want %d", len(released), set.refused, len(items)-len(want))
		}
	}
}

// TestSamplerTracksTheLeastShapes crawls more shapes than are sampled, in
// shuffled orders: the shapes kept and the pages left out are the same.
func TestSamplerTracksTheLeastShapes(t *testing.T) {
	var pages []*exchange.Exchange
	for i := range maxShapes + 50 {
		// A word segment makes each page its own path shape.
		pages = append(pages, &exchange.Exchange{
			Request:  exchange.Request{Method: http.MethodGet, URL: fmt.Sprintf("http://a.test/s%c%c%c", 'a'+i/676%26, 'a'+i/26%26, 'a'+i%26)},
			Response: &exchange.Response{Status: http.StatusOK, Body: []byte("{}")},
		})
	}
	r := rand.New(rand.NewPCG(3, 4))
	var first []string
	for round := range 5 {
		s := newSampler(3, 64, newBodyKeeper(), unreadHeader(nil))
		for _, i := range r.Perm(len(pages)) {
			s.offer(pages[i])
		}
		samples, stats := s.result()
		if len(stats) != maxShapes || s.unsampled != 50 {
			t.Fatalf("%d shapes sampled, %d pages unsampled; want %d and 50", len(stats), s.unsampled, maxShapes)
		}
		var urls []string
		for _, x := range samples {
			urls = append(urls, x.Request.URL)
		}
		if round == 0 {
			first = urls
		} else if !slices.Equal(urls, first) {
			t.Fatal("the samples depend on the order pages arrived in")
		}
		if !strings.Contains(s.note(), "50 crawled pages were not sampled") {
			t.Errorf("note %q", s.note())
		}
	}
	if first[len(first)-1] != pages[maxShapes-1].Request.URL {
		t.Errorf("the last shape sampled is %s, want the %dth in lexical order", first[len(first)-1], maxShapes)
	}
}

// TestBodiesKeptForTheLeastURLsOfEachShapeAndType offers pages of one
// shape, served as two media types, in shuffled orders: each type keeps
// the bodies of its least URLs, whatever the order, the samples among them,
// and every page still counts as seen.
func TestBodiesKeptForTheLeastURLsOfEachShapeAndType(t *testing.T) {
	const perType, read = 40, 8
	var pages []*exchange.Exchange
	for i := range 2 * perType {
		mt := []string{"application/hal+json", "application/json"}[i%2]
		pages = append(pages, &exchange.Exchange{
			Purpose:  exchange.PurposeCrawl,
			Request:  exchange.Request{Method: http.MethodGet, URL: fmt.Sprintf("http://a.test/items/%03d", i)},
			Response: &exchange.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {mt}}},
		})
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 5 {
		for _, x := range pages {
			x.Response.Body, x.Response.Dropped = []byte(`{"id": 1}`), false
		}
		s := newSampler(3, read, newBodyKeeper(), unreadHeader(nil))
		for _, i := range r.Perm(len(pages)) {
			s.offer(pages[i])
		}
		for i, x := range pages {
			// Pages alternate types: the least 8 of each are the first 16.
			if kept := i < 2*read; kept == x.Response.Dropped || kept != (x.Response.Body != nil) {
				t.Fatalf("%s: dropped %v, want kept %v", x.Request.URL, x.Response.Dropped, kept)
			}
		}
		samples, stats := s.result()
		if len(samples) != 3 || samples[0] != pages[0] || samples[2] != pages[2] || stats[0].Seen != len(pages) {
			t.Fatalf("samples %d, first %s, seen %d", len(samples), samples[0].Request.URL, stats[0].Seen)
		}
		want := fmt.Sprintf("%d crawled pages were read for their links alone", len(pages)-2*read)
		if !strings.HasPrefix(s.unreadNote(), want) {
			t.Fatalf("note %q, want it to start with %q", s.unreadNote(), want)
		}
	}
}

// TestBodiesPerShape: a sample is always read, and by default so are the 64
// pages after the samples.
func TestBodiesPerShape(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want int
	}{
		{Config{}, 3 + 64},
		{Config{SamplesPerShape: 5}, 5 + 64},
		{Config{SamplesPerShape: 5, BodiesPerShape: 2}, 5},
		{Config{BodiesPerShape: 10}, 10},
		{Config{BodiesPerShape: 10, readEveryPage: true}, math.MaxInt},
	} {
		if got := c.cfg.withDefaults().BodiesPerShape; got != c.want {
			t.Errorf("%+v: BodiesPerShape %d, want %d", c.cfg, got, c.want)
		}
	}
}

// TestUnreadPagesKeepTheirLinksAndType crawls ten items of one shape from
// the greatest of them, each with its own ETag: the start page and the
// least four keep everything; the others keep their status, Content-Type
// and Link, unless every page is read.
func TestUnreadPagesKeepTheirLinksAndType(t *testing.T) {
	rt := routes{}
	for i := range 10 {
		rt[fmt.Sprintf("/items/%d", i)] = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"`+r.URL.Path+`"`)
			w.Header().Set("Link", `</items>; rel="collection"`)
			halBody(`{"_links": {"a": {"href": "/items/0"}, "b": {"href": "/items/1"}, "c": {"href": "/items/2"}, "d": {"href": "/items/3"},
				"e": {"href": "/items/4"}, "f": {"href": "/items/5"}, "g": {"href": "/items/6"}, "h": {"href": "/items/7"}, "i": {"href": "/items/8"}}}`)(w, r)
		}
	}
	srv, _ := serve(t, rt)
	for _, every := range []bool{false, true} {
		res := run(t, Config{Start: mustParse(t, srv.URL+"/items/9"), BodiesPerShape: 4, readEveryPage: every}, nil)
		for i := range 10 {
			x := crawlOf(res, fmt.Sprintf("/items/%d", i))
			read := i < 4 || i == 9 || every
			if r := x.Response; read == r.Dropped || read == r.Unread || read != (len(r.Body) > 0) {
				t.Errorf("/items/%d: dropped %v, unread %v, want read %v", i, r.Dropped, r.Unread, read)
			}
			h := x.Response.Header
			if h.Get("Content-Type") != "application/hal+json" || len(x.Response.Links()) != 1 || x.Response.Status != http.StatusOK {
				t.Errorf("/items/%d: %d %v, want 200 with its type and Link", i, x.Response.Status, h)
			}
			if (h.Get("Etag") != "") != read {
				t.Errorf("/items/%d (every page read: %v): header %v, want the ETag kept: %v", i, every, h, read)
			}
		}
		noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "5 crawled pages were read for their links alone") })
		if noted == every {
			t.Errorf("every page read %v: notes %q", every, res.Notes)
		}
	}
}

func TestLargeBodiesKeptWithinTheirBound(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	srv, _ := serve(t, routes{
		"/":    halBody(`{"_links": {"item": [{"href": "/a/x"}, {"href": "/b/x"}, {"href": "/c/x"}, {"href": "/d/x"}]}}`),
		"/a/x": halBody(`{"pad": "` + big + `"}`), "/b/x": halBody(`{"pad": "` + big + `"}`),
		"/c/x": halBody(`{"pad": "` + big + `"}`), "/d/x": halBody(`{"pad": "` + big + `"}`),
	})
	res := run(t, Config{Start: mustParse(t, srv.URL), MaxBody: 4 << 20}, nil)
	// 8 MiB holds two bodies of 3 MiB: those of the least URLs.
	for path, whole := range map[string]bool{"/a/x": true, "/b/x": true, "/c/x": false, "/d/x": false} {
		if x := crawlOf(res, path); (len(x.Response.Body) == len(big)+11) != whole || x.Response.Dropped == whole {
			t.Errorf("%s: body of %d bytes, dropped %v; want whole %v", path, len(x.Response.Body), x.Response.Dropped, whole)
		}
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "2 response bodies over 16 KiB were released unjudged")
	}) {
		t.Errorf("notes %q", res.Notes)
	}
}

// TestPlannedProbesKeepTheirShare: a crawl that never ends on its own stops
// at its share of the budget, and the planned probes are still sent.
func TestPlannedProbesKeepTheirShare(t *testing.T) {
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			return
		}
		// Every page links to two deeper ones, slowly: the crawl never runs
		// out of pages before its share of the budget.
		time.Sleep(50 * time.Millisecond)
		p := strings.TrimSuffix(r.URL.Path, "/")
		halBody(fmt.Sprintf(`{"_links": {"l": {"href": "%s/l"}, "r": {"href": "%s/r"}}}`, p, p))(w, r)
	}))
	plan := func(_, samples []*exchange.Exchange) []exchange.PlannedRequest {
		return []exchange.PlannedRequest{{Purpose: "p/head", Method: http.MethodHead, URL: samples[0].Request.URL, BasedOn: samples[0].Request.URL}}
	}
	res := run(t, Config{Start: mustParse(t, srv.URL), Budget: 2 * time.Second, MaxPages: 100_000, MaxDepth: 100, Concurrency: 1}, plan)
	heads := slices.IndexFunc(rec.requests(), func(r seenRequest) bool { return r.Method == http.MethodHead })
	if heads < 0 || res.Stats.Probes != 1 {
		t.Errorf("the planned probe was not sent (probes %d)", res.Stats.Probes)
	}
	want := fmt.Sprintf("the crawl stopped after %d pages, at the end of its share of the budget (1.5s)", res.Stats.Pages)
	if res.Stats.Interrupted || !slices.Equal(res.Stats.BudgetCut, []string{finding.CutCrawl}) || !slices.Contains(res.Notes, want) {
		t.Errorf("interrupted %v, budget cut %q, notes %q; want the crawl cut and %q", res.Stats.Interrupted, res.Stats.BudgetCut, res.Notes, want)
	}
}

// TestActiveProbesCutByTheEnd: a request cut by the end of the scan is not
// recorded as the app's answer, and the rest are counted as not sent.
func TestActiveProbesCutByTheEnd(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	reqs := []exchange.PlannedRequest{
		{Purpose: "a/1", Method: http.MethodDelete, URL: srv.URL + "/fast"},
		{Purpose: "a/2", Method: http.MethodDelete, URL: srv.URL + "/slow"},
		{Purpose: "a/3", Method: http.MethodDelete, URL: srv.URL + "/fast"},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	sent, unsent, notes := SendActive(ctx, Config{Start: mustParse(t, srv.URL), Timeout: time.Minute}, reqs)
	if len(sent) != 1 || sent[0].Purpose != "a/1" || unsent != 2 || len(notes) != 0 {
		t.Errorf("sent %d, unsent %d, notes %q; want the first sent and two not", len(sent), unsent, notes)
	}
}

// Every small body of a crawl is kept: the buffer holding one must not be
// much larger than the body, whatever length the server declared.
func TestReadCappedKeepsBodiesWithoutSlack(t *testing.T) {
	body := strings.Repeat("x", 200) // a typical item's size: io.ReadAll holds it in 512 bytes
	for _, c := range []struct {
		name     string
		declared int64
	}{
		{"declared", 200},
		{"unknown length", -1},
		{"declared larger than sent", 60000},
		{"declared smaller than sent", 10},
	} {
		got, size, truncated, err := readCapped(strings.NewReader(body), 1<<20, c.declared)
		if err != nil || truncated || string(got) != body || size != 200 {
			t.Errorf("%s: read %d bytes (size %d, truncated %v, err %v)", c.name, len(got), size, truncated, err)
		}
		if cap(got) > len(got)+len(got)/8 {
			t.Errorf("%s: %d bytes held in a buffer of %d", c.name, len(got), cap(got))
		}
	}
	got, size, truncated, _ := readCapped(strings.NewReader(body), 100, -1)
	if len(got) != 100 || size != 101 || !truncated {
		t.Errorf("at a cap of 100: %d bytes, size %d, truncated %v", len(got), size, truncated)
	}
}

// TestStreamsAreCrawledNotProbed: an event stream that never ends is read no
// further than its headers, and never sampled, so no probe waits on it.
func TestStreamsAreCrawledNotProbed(t *testing.T) {
	srv, rec := serve(t, routes{
		"/":     halBody(`{"_links": {"events": {"href": "/events"}, "item": {"href": "/item"}}}`),
		"/item": halBody(`{}`),
		"/events": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: 1\n\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	})
	again := func(_, samples []*exchange.Exchange) []exchange.PlannedRequest {
		var out []exchange.PlannedRequest
		for _, s := range samples {
			out = append(out, exchange.PlannedRequest{Purpose: "test/again", Method: http.MethodGet, URL: s.Request.URL, BasedOn: s.Request.URL})
		}
		return out
	}
	res := run(t, Config{Start: mustParse(t, srv.URL), Timeout: 2 * time.Second, Budget: time.Minute}, again)
	events := 0
	for _, r := range rec.requests() {
		if r.Path == "/events" {
			events++
		}
	}
	if events != 1 {
		t.Errorf("the stream was requested %d times, want once, by the crawl", events)
	}
	x := crawlOf(res, "/events")
	if x == nil || x.Response == nil || x.Response.Status != http.StatusOK || !x.Response.Truncated || x.Err != "" {
		t.Fatalf("the stream's crawl: %+v", x)
	}
	if slices.Contains(res.Recording.Samples, x.Request.URL) || !slices.Contains(res.Recording.Samples, crawlOf(res, "/item").Request.URL) {
		t.Errorf("samples %v: want /item and not the stream", res.Recording.Samples)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "1 crawled pages were streams") }) {
		t.Errorf("notes %q say nothing of the stream", res.Notes)
	}
}
