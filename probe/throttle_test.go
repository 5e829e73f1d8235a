package probe

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// sleeps records the waits a run asked for instead of waiting them.
type sleeps struct {
	mu  sync.Mutex
	got []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.got = append(s.got, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// throttledSite links from / to three pages. Each path answers 429 with
// retryAfter to its first `times` requests, then its page.
func throttledSite(retryAfter string, times int) http.Handler {
	var mu sync.Mutex
	seen := map[string]int{}
	pages := routes{
		"/":  halBody(`{"_links": {"a": {"href": "/a"}, "b": {"href": "/b"}, "c": {"href": "/c"}}}`),
		"/a": halBody(`{}`), "/b": halBody(`{}`), "/c": halBody(`{}`),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		n := seen[r.URL.Path]
		mu.Unlock()
		if times < 0 || n <= times {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"title": "slow down"}`))
			return
		}
		pages.ServeHTTP(w, r)
	})
}

// TestThrottledRequestsAreRetried: a server that answers each path's first
// request 429 with Retry-After: 1 is waited out, one second per request,
// and every page is reached.
func TestThrottledRequestsAreRetried(t *testing.T) {
	srv, rec := serve(t, throttledSite("1", 1))
	var s sleeps
	res := run(t, Config{Start: mustParse(t, srv.URL), sleep: s.sleep}, nil)
	for x := range res.Recording.Crawled() {
		if x.Response == nil || x.Response.Status != http.StatusOK {
			t.Errorf("%s: %+v, want 200 after the retry", x.Request.URL, x.Response)
		}
		// The throttled answer is kept beside it, for the checks, and
		// only its status, Retry-After and Content-Type.
		want := &exchange.ThrottledAnswer{Status: http.StatusTooManyRequests,
			Header: http.Header{"Retry-After": {"1"}, "Content-Type": {"application/problem+json"}}}
		if !reflect.DeepEqual(x.Response.Replaced, want) {
			t.Errorf("%s: throttled answer kept %+v, want %+v", x.Request.URL, x.Response.Replaced, want)
		}
	}
	if got := crawledPaths(res); !slices.Equal(got, []string{"/", "/a", "/b", "/c"}) {
		t.Errorf("crawled %v", got)
	}
	if w := s.waits(); len(w) != 4 || slices.ContainsFunc(w, func(d time.Duration) bool { return d != time.Second }) {
		t.Errorf("waits %v, want 4 of 1s", w)
	}
	if n := len(rec.requests()); n != 8 {
		t.Errorf("%d requests sent, want 8 (each path twice)", n)
	}
	want := &finding.Throttling{Requests: 4, Throttled: 4}
	if *res.Throttling != *want {
		t.Errorf("throttling %+v, want %+v", res.Throttling, want)
	}
}

// TestThrottlingThatDoesNotEnd: a server that always answers 429 gets each
// request three times (two retries, backed off with jitter since it names
// no wait), and the answers stay 429 and count as still throttled.
func TestThrottlingThatDoesNotEnd(t *testing.T) {
	srv, rec := serve(t, throttledSite("", -1))
	var s sleeps
	res := run(t, Config{Start: mustParse(t, srv.URL), sleep: s.sleep}, nil)
	if n := len(rec.requests()); n != 3 {
		t.Errorf("%d requests sent, want 3", n)
	}
	w := s.waits()
	if len(w) != 2 || w[0] < throttleBackoff/2 || w[0] > throttleBackoff || w[1] < throttleBackoff || w[1] > 2*throttleBackoff {
		t.Errorf("waits %v, want one in [%s, %s] then one in [%s, %s]", w, throttleBackoff/2, throttleBackoff, throttleBackoff, 2*throttleBackoff)
	}
	if x := crawlOf(res, "/"); x == nil || x.Response.Status != http.StatusTooManyRequests || x.Response.Replaced != nil {
		t.Errorf("start page %+v, want the 429 kept as its answer, and no other", x)
	}
	want := &finding.Throttling{Requests: 1, Throttled: 1, StillThrottled: 1}
	if *res.Throttling != *want {
		t.Errorf("throttling %+v, want %+v", res.Throttling, want)
	}
}

// TestThrottleWaitTooLong: a Retry-After over 30 s is not waited out: the
// throttled answer is kept, with nothing sent again.
func TestThrottleWaitTooLong(t *testing.T) {
	srv, rec := serve(t, throttledSite("31", 1))
	var s sleeps
	res := run(t, Config{Start: mustParse(t, srv.URL), sleep: s.sleep}, nil)
	if n := len(rec.requests()); n != 1 || len(s.waits()) != 0 {
		t.Errorf("%d requests, waits %v; want 1 and none", n, s.waits())
	}
	if res.Throttling == nil || res.Throttling.StillThrottled != 1 {
		t.Errorf("throttling %+v", res.Throttling)
	}
}

// TestThrottleRealWaitIsCancelled: the real wait ends with the context, and
// the request stays throttled.
func TestThrottleRealWaitIsCancelled(t *testing.T) {
	srv, rec := serve(t, throttledSite("20", 1))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	begin := time.Now()
	res, err := Run(ctx, Config{Start: mustParse(t, srv.URL)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the run took %s after its context ended", d)
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("%d requests sent, want 1", n)
	}
	if res.Throttling == nil || res.Throttling.StillThrottled != 1 {
		t.Errorf("throttling %+v", res.Throttling)
	}
}

// TestThrottleRateLimitApplies: the retries go through the scan's rate
// limit like every request.
func TestThrottleRateLimitApplies(t *testing.T) {
	t.Parallel()
	srv, rec := serve(t, throttledSite("0", 1))
	begin := time.Now()
	run(t, Config{Start: mustParse(t, srv.URL), Rate: 10, sleep: (&sleeps{}).sleep}, nil)
	// 8 requests at 10 per second, the first free: at least 0.7 s.
	if n, d := len(rec.requests()), time.Since(begin); n != 8 || d < 650*time.Millisecond {
		t.Errorf("%d requests in %s, want 8 in at least 0.7s", n, d)
	}
}

func TestThrottleDelay(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	th := &throttle{now: func() time.Time { return now }, jitter: func(n int64) int64 { return n - 1 }}
	answer := func(status int, retryAfter string) *exchange.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &exchange.Response{Status: status, Header: h}
	}
	bg := context.Background()
	soon, cancel := context.WithDeadline(bg, now.Add(5*time.Second))
	defer cancel()
	for _, tt := range []struct {
		name       string
		ctx        context.Context
		retryAfter string
		retry      int
		want       time.Duration
		ok         bool
	}{
		{"delay-seconds", bg, "3", 0, 3 * time.Second, true},
		{"HTTP-date", bg, "Fri, 02 Jan 2026 03:04:17 GMT", 0, 12 * time.Second, true},
		{"obsolete RFC 850 date", bg, "Friday, 02-Jan-26 03:04:07 GMT", 0, 2 * time.Second, true},
		{"a date past is no wait", bg, "Thu, 01 Jan 2026 00:00:00 GMT", 0, 0, true},
		{"30 s is waited", bg, "30", 1, 30 * time.Second, true},
		{"over 30 s is not", bg, "31", 0, 0, false},
		{"a huge value is not", bg, "99999999999999999999999", 0, 0, false},
		{"retries spent", bg, "1", maxThrottleRetries, 0, false},
		{"past the phase deadline", soon, "5", 0, 0, false},
		{"within the phase deadline", soon, "4", 0, 4 * time.Second, true},
		{"invalid is absent: backoff", bg, "soon", 0, throttleBackoff, true},
		{"negative is invalid", bg, "-1", 0, throttleBackoff, true},
		{"absent: backoff doubled", bg, "", 1, 2 * throttleBackoff, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := th.delay(tt.ctx, answer(http.StatusTooManyRequests, tt.retryAfter), tt.retry)
			if d != tt.want || ok != tt.ok {
				t.Errorf("delay %s %v, want %s %v", d, ok, tt.want, tt.ok)
			}
		})
	}
}
