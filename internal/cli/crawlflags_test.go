package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// crawlSite serves a page whose links lead to ever new query variants of
// itself and to /private, which its robots.txt disallows for agentready.
// It counts the requests /private gets.
func crawlSite(t *testing.T) (string, *atomic.Int32) {
	var private atomic.Int32
	url := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "User-agent: agentready\nDisallow: /private\n")
		case strings.HasPrefix(r.URL.Path, "/private"):
			private.Add(1)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{}`)
		case r.URL.Path == "/":
			n, _ := strconv.Atoi(r.URL.Query().Get("page"))
			w.Header().Set("Content-Type", "application/hal+json")
			fmt.Fprintf(w, `{"_links": {"next": {"href": "/?page=%d"}, "private": {"href": "/private"}}}`, n+1)
		default:
			http.NotFound(w, r)
		}
	}))
	return url, &private
}

// scanJSON scans with args and returns the JSON report.
func scanJSON(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	r := run(t, append([]string{"scan", "-q", "--fail-on", "none", "--no-openapi-discovery", "--max-depth", "20", "-o", "json=" + out}, args...)...)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMaxQueryVariantsFlagAndConfig(t *testing.T) {
	target, _ := crawlSite(t)
	if rep := scanJSON(t, target); !strings.Contains(rep, `"pages": 7`) || !strings.Contains(rep, `"query-variants": 1`) {
		t.Errorf("default: want 7 pages (start, 5 variants, /private) and 1 variant skipped:\n%.600s", rep[strings.Index(rep, `"stats"`):])
	}
	// The start plus 2 variants; the third is skipped.
	for name, args := range map[string][]string{
		"flag":   {"--max-query-variants", "2", target},
		"config": {"--config", writeConfig(t, "limits:\n  max-query-variants: 2\n"), target},
	} {
		rep := scanJSON(t, args...)
		if !strings.Contains(rep, `"pages": 4`) || !strings.Contains(rep, `"query-variants": 1`) {
			t.Errorf("%s: want 4 pages (start, 2 variants, /private) and 1 variant skipped:\n%.600s", name, rep[strings.Index(rep, `"stats"`):])
		}
	}
	for _, args := range [][]string{{"--max-query-variants", "0", target}, {"--config", writeConfig(t, "limits:\n  max-query-variants: 0\n"), target}} {
		if r := run(t, append([]string{"scan", "-q"}, args...)...); r.code != ExitUsage || !strings.Contains(r.stderr, "max-query-variants") {
			t.Errorf("%v: exit %d, stderr %q; want %d naming max-query-variants", args, r.code, r.stderr, ExitUsage)
		}
	}
}

func TestRespectRobotsFlagAndConfig(t *testing.T) {
	target, private := crawlSite(t)
	scanJSON(t, target)
	if private.Load() == 0 {
		t.Fatal("without --respect-robots the crawl did not reach /private")
	}
	for name, args := range map[string][]string{
		"flag":   {"--respect-robots", target},
		"config": {"--config", writeConfig(t, "respect-robots: true\n"), target},
	} {
		private.Store(0)
		rep := scanJSON(t, args...)
		if n := private.Load(); n != 0 {
			t.Errorf("%s: /private got %d requests", name, n)
		}
		if !strings.Contains(rep, "--respect-robots: read /robots.txt (HTTP 200); not sent because it disallows them for agentready: 1 URL(s) the crawl found") {
			t.Errorf("%s: the report does not say what robots.txt kept out", name)
		}
	}
}
