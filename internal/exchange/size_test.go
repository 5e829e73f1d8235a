package exchange

import (
	"testing"
	"unsafe"
)

// A crawl keeps a Response per page: its size is part of the memory a scan
// needs per resource (see README: Performance).
func TestExchangeStaysSmall(t *testing.T) {
	if got := unsafe.Sizeof(Exchange{}); got > 224 {
		t.Errorf("Exchange is %d bytes, want at most 224", got)
	}
}

func TestResponseStaysSmall(t *testing.T) {
	if got := unsafe.Sizeof(Response{}); got > 144 {
		t.Errorf("Response is %d bytes, want at most 144", got)
	}
}

func TestResponsesShareTheirMediaType(t *testing.T) {
	a := &Response{Header: map[string][]string{"Content-Type": {"application/hal+json; charset=utf-8"}}}
	b := &Response{Header: map[string][]string{"Content-Type": {"application/hal+json; charset=utf-8"}}}
	if a.MediaType() != "application/hal+json" || b.MediaType() != "application/hal+json" {
		t.Fatalf("media types %q, %q", a.MediaType(), b.MediaType())
	}
	if a.mediaType.Load() != b.mediaType.Load() {
		t.Error("two responses of one Content-Type hold a media type each")
	}
	b.Header["Content-Type"] = []string{"text/html"}
	if got := b.MediaType(); got != "text/html" {
		t.Errorf("after the header changed, media type %q", got)
	}
}
