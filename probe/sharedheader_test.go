package probe

import (
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"github.com/agentready/agentready/internal/exchange"
)

func TestSharedHeadersRecordOneScrubbedCopyPerHeader(t *testing.T) {
	const secret = "tenant-7f3a9c2e51"
	secrets := exchange.NewSecrets(http.Header{"X-Tenant": {secret}})
	redact := map[string]bool{"X-Tenant": true}
	var s sharedHeaders
	sent := http.Header{"X-Tenant": {secret}, "Accept": {"application/json"}, "X-Echo": {"id=" + secret}}

	a := s.recorded(sent, redact, secrets)
	b := s.recorded(sent.Clone(), redact, secrets)
	if reflect.ValueOf(a).UnsafePointer() != reflect.ValueOf(b).UnsafePointer() {
		t.Error("the same header sent twice was recorded as two copies")
	}
	if got := a.Get("X-Tenant"); got != exchange.Redacted {
		t.Errorf("X-Tenant recorded as %q", got)
	}
	if got := a.Get("X-Echo"); got != "id="+exchange.Redacted {
		t.Errorf("X-Echo recorded as %q, want the secret scrubbed", got)
	}
	if sent.Get("X-Tenant") != secret {
		t.Error("recording changed the header sent")
	}
	other := s.recorded(http.Header{"Accept": {"text/html"}}, redact, secrets)
	if other.Get("Accept") != "text/html" {
		t.Errorf("a different header recorded as %v", other)
	}
}

func TestCrawledPagesWithTheSameResponseHeaderShareOneMap(t *testing.T) {
	page := func(body string, extra ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/hal+json")
			w.Header().Set("Date", "Wed, 02 Dec 2026 05:00:00 GMT")
			for i := 0; i+1 < len(extra); i += 2 {
				w.Header().Set(extra[i], extra[i+1])
			}
			w.Write([]byte(body))
		}
	}
	srv, _ := serve(t, routes{
		"/":  page(`{"_links":{"self":{"href":"/"},"a":{"href":"/a"},"b":{"href":"/b"},"c":{"href":"/c"}}}`),
		"/a": page(`{"_links":{"self":{"href":"/a"}}}`),
		"/b": page(`{"_links":{"self":{"href":"/b"}}}`),
		"/c": page(`{"_links":{"self":{"href":"/c"}}}`, "Etag", `"c1"`),
	})
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)
	a, b, c := crawlOf(res, "/a"), crawlOf(res, "/b"), crawlOf(res, "/c")
	if a == nil || b == nil || c == nil {
		t.Fatalf("crawled %v", crawledPaths(res))
	}
	same := func(x, y http.Header) bool {
		return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	if !same(a.Response.Header, b.Response.Header) {
		t.Error("two pages that received the same header hold a map each")
	}
	if same(a.Response.Header, c.Response.Header) || c.Response.Header.Get("Etag") != `"c1"` {
		t.Errorf("a page with another header reads %v", c.Response.Header)
	}
	if got := a.Response.Header.Get("Content-Type"); got != "application/hal+json" {
		t.Errorf("shared header reads Content-Type %q", got)
	}
}

func TestResponseHeadersShareOnlyEqualHeaders(t *testing.T) {
	s := newResponseHeaders()
	first := http.Header{"Vary": {"Accept"}, "Allow": {"GET", "HEAD"}}
	if got := s.shared(first); !reflect.DeepEqual(got, first) {
		t.Fatalf("first header became %v", got)
	}
	if got := s.shared(first.Clone()); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(first).UnsafePointer() {
		t.Error("an equal header was not shared")
	}
	for _, h := range []http.Header{
		{"Vary": {"Accept"}, "Allow": {"HEAD", "GET"}},
		{"Vary": {"Accept"}, "Allow": {"GET", "HEAD"}, "Etag": {`"1"`}},
		{"Vary": {"Accept"}, "Allow": {"GET"}},
		{"Vary": {"Accept"}, "Allow": nil},
		{"Vary": {"Accept"}},
	} {
		if got := s.shared(h); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(h).UnsafePointer() {
			t.Errorf("%v was given %v", h, got)
		}
	}
	var none *responseHeaders
	if got := none.shared(first.Clone()); reflect.ValueOf(got).UnsafePointer() == reflect.ValueOf(first).UnsafePointer() {
		t.Error("a client without a table shared a header")
	}
}

func TestResponseHeadersHoldABoundedNumber(t *testing.T) {
	s := newResponseHeaders()
	for i := range maxSharedResponseHeaders + 10 {
		s.shared(http.Header{"Etag": {strconv.Itoa(i)}})
	}
	if s.held != maxSharedResponseHeaders {
		t.Errorf("held %d headers, want %d", s.held, maxSharedResponseHeaders)
	}
	late := http.Header{"Etag": {strconv.Itoa(maxSharedResponseHeaders + 5)}}
	if got := s.shared(late); reflect.ValueOf(got).UnsafePointer() != reflect.ValueOf(late).UnsafePointer() {
		t.Error("a header seen past the bound was shared")
	}
}

func TestPagesFoundTheSameWayOnOnePageShareTheirSource(t *testing.T) {
	srv, _ := serve(t, routes{
		"/":  halBody(`{"_links":{"self":{"href":"/"},"item":[{"href":"/a"},{"href":"/b"}]}}`),
		"/a": halBody(`{"_links":{"self":{"href":"/a"}}}`),
		"/b": halBody(`{"_links":{"self":{"href":"/b"}}}`),
	})
	res := run(t, Config{Start: mustParse(t, srv.URL)}, nil)
	a, b := crawlOf(res, "/a"), crawlOf(res, "/b")
	if a == nil || b == nil {
		t.Fatalf("crawled %v", crawledPaths(res))
	}
	if a.Source != "hal _links.item of /" || b.Source != a.Source {
		t.Fatalf("sources %q, %q", a.Source, b.Source)
	}
	if unsafe.StringData(a.Source) != unsafe.StringData(b.Source) {
		t.Error("two links of one page found the same way hold a source each")
	}
}
