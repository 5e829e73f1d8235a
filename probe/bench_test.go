package probe

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCrawl crawls 10,000 small HAL resources: a root listing 100 pages,
// each linking to 100 items.
func BenchmarkCrawl(b *testing.B) {
	const pages, perPage = 100, 100
	root := halList("page", pages, func(i int) string { return "/pages/" + strconv.Itoa(i) })
	srv, _ := serve(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/":
			halBody(root)(w, r)
		case strings.HasPrefix(p, "/pages/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(p, "/pages/"))
			halBody(halList("item", perPage, func(i int) string { return fmt.Sprintf("/items/%d", n*perPage+i) }))(w, r)
		case strings.HasPrefix(p, "/items/"):
			halBody(`{"id": "`+strings.TrimPrefix(p, "/items/")+`", "_links": {"self": {"href": "`+p+`"}, "up": {"href": "/"}}}`)(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	want := 1 + pages + pages*perPage
	// With headers, every exchange is scrubbed of their values.
	for name, h := range map[string]http.Header{
		"no-headers": nil,
		"headers":    {"Authorization": {"Bearer s3cr3t-token/with+slash"}, "X-Tenant": {"tenant-0123456789"}},
	} {
		b.Run(name, func(b *testing.B) {
			cfg := Config{Start: mustParse(b, srv.URL), MaxPages: 20000, Concurrency: 8, Headers: h}
			for b.Loop() {
				res := run(b, cfg, nil)
				if res.Stats.Pages != want {
					b.Fatalf("pages = %d, want %d", res.Stats.Pages, want)
				}
			}
			b.ReportMetric(float64(want*b.N)/b.Elapsed().Seconds(), "resources/s")
		})
	}
}

func halList(rel string, n int, href func(int) string) string {
	links := make([]string, n)
	for i := range links {
		links[i] = `{"href": "` + href(i) + `"}`
	}
	return `{"_links": {"self": {"href": "/"}, "` + rel + `": [` + strings.Join(links, ",") + `]}}`
}
