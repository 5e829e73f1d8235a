package probe

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
)

// robotsSite links from / to one path robots.txt disallows for agentready,
// one it disallows for * only (which agentready's own group overrides), and
// one it allows; status is what /robots.txt answers.
func robotsSite(status int) routes {
	page := halBody(`{"_links": {"self": {"href": "/"}}}`)
	return routes{
		"/": halBody(`{"_links": {"a": {"href": "/private/a"}, "b": {"href": "/elsewhere/b"}, "c": {"href": "/public/c"}}}`),
		"/robots.txt": func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			fmt.Fprint(w, "User-agent: *\nDisallow: /elsewhere/\n\nUser-agent: AgentReady\nDisallow: /private/\n")
		},
		"/private/a": page, "/elsewhere/b": page, "/public/c": page,
	}
}

// probeEach plans one HEAD of every crawled page.
func probeEach(crawled, _ []*exchange.Exchange) []exchange.PlannedRequest {
	var out []exchange.PlannedRequest
	for _, x := range crawled {
		out = append(out, exchange.PlannedRequest{Method: http.MethodHead, URL: x.Request.URL, Purpose: "test"})
	}
	return out
}

func robotsRequests(rec *recorder) int {
	n := 0
	for _, r := range rec.requests() {
		if r.Path == "/robots.txt" {
			n++
		}
	}
	return n
}

func TestRobotsIgnoredByDefault(t *testing.T) {
	srv, rec := serve(t, robotsSite(http.StatusOK))
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)
	if got, want := crawledPaths(res), []string{"/", "/elsewhere/b", "/private/a", "/public/c"}; !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	if n := robotsRequests(rec); n != 0 {
		t.Errorf("/robots.txt fetched %d times without --respect-robots", n)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, "respect-robots") {
			t.Errorf("note %q without --respect-robots", n)
		}
	}
}

func TestRespectRobotsSkipsDisallowedPaths(t *testing.T) {
	srv, rec := serve(t, robotsSite(http.StatusOK))
	res := run(t, Config{Start: mustParse(t, srv.URL), RespectRobots: true}, probeEach)
	// agentready's own group replaces the * group (RFC 9309 §2.2.1).
	if got, want := crawledPaths(res), []string{"/", "/elsewhere/b", "/public/c"}; !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	for _, r := range rec.requests() {
		if strings.HasPrefix(r.Path, "/private/") {
			t.Errorf("%s %s was sent, though robots.txt disallows it", r.Method, r.Path)
		}
	}
	if res.Stats.Skipped[skipRobots] != 1 {
		t.Errorf("skipped %v, want 1 URL for robots", res.Stats.Skipped)
	}
	want := "--respect-robots: read /robots.txt (HTTP 200); not sent because it disallows them for agentready: 1 URL(s) the crawl found, 0 planned request(s)"
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
}

func TestRespectRobotsDropsDisallowedProbes(t *testing.T) {
	srv, rec := serve(t, robotsSite(http.StatusOK))
	plan := func(crawled, samples []*exchange.Exchange) []exchange.PlannedRequest {
		return append(probeEach(crawled, samples), exchange.PlannedRequest{Method: http.MethodGet, URL: srv.URL + "/private/x", Purpose: "test"})
	}
	res := run(t, Config{Start: mustParse(t, srv.URL), RespectRobots: true}, plan)
	if res.Stats.Skipped[skipProbeRobots] != 1 {
		t.Errorf("skipped %v, want 1 planned request for robots", res.Stats.Skipped)
	}
	for _, r := range rec.requests() {
		if r.Path == "/private/x" {
			t.Error("a planned request robots.txt disallows was sent")
		}
	}
}

// TestRespectRobotsReadsStatusAsRFC9309: a 4xx means no rules; a 5xx means
// a complete disallow, though the start URL the user named is still fetched.
func TestRespectRobotsReadsStatusAsRFC9309(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   []string
	}{
		{http.StatusNotFound, []string{"/", "/elsewhere/b", "/private/a", "/public/c"}},
		{http.StatusServiceUnavailable, []string{"/"}},
		// Still throttled after retrying, it is unreachable, not absent.
		{http.StatusTooManyRequests, []string{"/"}},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			srv, rec := serve(t, robotsSite(tt.status))
			res := run(t, Config{Start: mustParse(t, srv.URL), RespectRobots: true, sleep: (&sleeps{}).sleep}, nil)
			if got := crawledPaths(res); !slices.Equal(got, tt.want) {
				t.Errorf("crawled %v, want %v", got, tt.want)
			}
			if tt.status == http.StatusTooManyRequests {
				if n := robotsRequests(rec); n != 1+maxThrottleRetries {
					t.Errorf("/robots.txt requested %d times, want %d: retried like any request", n, 1+maxThrottleRetries)
				}
				if !slices.ContainsFunc(res.Notes, func(n string) bool {
					return strings.Contains(n, "/robots.txt answered 429 and stayed throttled after retrying, which counts as disallowing everything")
				}) {
					t.Errorf("notes %q", res.Notes)
				}
			}
		})
	}
}

// TestRespectRobotsRetriesAThrottledFile: a robots.txt throttled once is
// waited out and its rules read.
func TestRespectRobotsRetriesAThrottledFile(t *testing.T) {
	site := robotsSite(http.StatusOK)
	file, throttled := site["/robots.txt"], false
	site["/robots.txt"] = func(w http.ResponseWriter, r *http.Request) {
		if !throttled {
			throttled = true
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		file(w, r)
	}
	srv, _ := serve(t, site)
	var s sleeps
	res := run(t, Config{Start: mustParse(t, srv.URL), RespectRobots: true, sleep: s.sleep}, nil)
	if got, want := crawledPaths(res), []string{"/", "/elsewhere/b", "/public/c"}; !slices.Equal(got, want) {
		t.Errorf("crawled %v, want %v", got, want)
	}
	if w := s.waits(); !slices.Equal(w, []time.Duration{time.Second}) {
		t.Errorf("waits %v, want the 1s asked for", w)
	}
}
