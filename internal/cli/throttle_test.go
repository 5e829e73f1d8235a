package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// throttlingAPI answers its start page, and 429 to every other path with a
// Retry-After longer than the scan waits: most of the crawl stays
// throttled.
func throttlingAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/hal+json")
		fmt.Fprint(w, `{"_links": {"self": {"href": "/"}, "a": {"href": "/a"}, "b": {"href": "/b"}, "c": {"href": "/c"}}}`)
	})
}

// TestThrottledCrawlExits3: a crawl the server throttled for more than half
// of its GET requests has no grade, exits 3 with the cause, and says how
// many requests were throttled; a replay of its recording says the same.
func TestThrottledCrawlExits3(t *testing.T) {
	dir := t.TempDir()
	recording, scanned, replayed := filepath.Join(dir, "scan.har"), filepath.Join(dir, "scan.json"), filepath.Join(dir, "replay.json")
	r := run(t, "scan", "--no-openapi-discovery", "--record", recording, "-o", "json="+scanned, serveHandler(t, throttlingAPI()))
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, ExitIncomplete, r.stdout, r.stderr)
	}
	const cause = "the server throttled more than half of the crawl's GET requests (3 of 4); lower --rate or --concurrency"
	first := strings.Join(strings.SplitN(r.stdout, "\n", 11)[:10], "\n")
	for _, want := range []string{"Grade N/A  (the server throttled the crawl)", "Cause: the server throttled more than half of the crawl's GET requests (3 of 4)", "requests throttled, ", "still throttled after retrying (3 of the crawl's 4 GET requests)"} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	if !strings.Contains(r.stderr, cause) {
		t.Errorf("stderr %q", r.stderr)
	}
	again := run(t, "scan", "--replay", recording, "-q", "-o", "json="+replayed)
	if again.code != ExitIncomplete || !strings.Contains(again.stderr, cause) {
		t.Errorf("replay: exit %d, stderr %q", again.code, again.stderr)
	}
	a, errA := os.ReadFile(scanned)
	b, errB := os.ReadFile(replayed)
	if errA != nil || errB != nil || !strings.Contains(string(a), `"crawlThrottled": 3`) {
		t.Fatalf("reports: %v %v\n%s", errA, errB, a)
	}
	if strip := func(s string) string { return s[strings.Index(s, `"score"`):] }; strip(string(a)) != strip(string(b)) {
		t.Errorf("the replay's report differs from the scan's")
	}
}
