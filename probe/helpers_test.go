package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"sync"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

// seenRequest is what a test server observed.
type seenRequest struct {
	Method string
	Path   string
	Query  string
	Header http.Header
}

// recorder wraps a handler and keeps every request it received.
type recorder struct {
	mu   sync.Mutex
	reqs []seenRequest
	next http.Handler
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone()})
	rec.mu.Unlock()
	rec.next.ServeHTTP(w, r)
}

func (rec *recorder) requests() []seenRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seenRequest(nil), rec.reqs...)
}

// serve starts a recording server for h and closes it with the test.
func serve(t testing.TB, h http.Handler) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{next: h}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

// routes maps exact paths to handlers; everything else is 404.
type routes map[string]http.HandlerFunc

func (rt routes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := rt[r.URL.Path]; ok {
		h(w, r)
		return
	}
	http.NotFound(w, r)
}

func halBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/hal+json")
		w.Write([]byte(body))
	}
}

func htmlBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}
}

func mustParse(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func run(t testing.TB, cfg Config, plan Planner) *Result {
	t.Helper()
	res, err := Run(context.Background(), cfg, plan)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// crawledPaths lists the paths (with query) of the crawl exchanges, sorted.
func crawledPaths(res *Result) []string {
	var out []string
	for x := range res.Recording.Crawled() {
		u, _ := url.Parse(x.Request.URL)
		p := u.EscapedPath()
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func crawlOf(res *Result, path string) *exchange.Exchange {
	for x := range res.Recording.Crawled() {
		if exchange.PathOf(x.Request.URL) == path {
			return x
		}
	}
	return nil
}
