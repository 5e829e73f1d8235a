package discovery

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

// TestUnparsableTwin holds the bounds on what Markdown is parsed: each
// hostile shape is refused just past its bound and read at it.
func TestUnparsableTwin(t *testing.T) {
	defs := func(n int) string { return strings.Repeat("[a]: /x\n", n) }
	tests := []struct {
		what, body, want string
	}{
		{"a documentation page", "# Guide\n\n1. [a](/a)\n   - [b][b]\n\n> quoted\n\n[b]: /b\n", ""},
		{"16 nested blocks", strings.Repeat("> ", 8) + strings.Repeat("- ", 4) + strings.Repeat("1. ", 4) + "x\n", ""},
		{"17 nested blocks", strings.Repeat("> ", 8) + strings.Repeat("- ", 4) + strings.Repeat("1) ", 5) + "x\n", "opens 17 nested blocks"},
		{"128 columns of indentation", strings.Repeat(" ", 124) + "\tx\n", ""},
		{"129 columns of indentation", strings.Repeat(" ", 129) + "x\n", "indented 129 columns"},
		{"2000 reference definitions", defs(2000), ""},
		{"2001 reference definitions", defs(2001), "too many for their paragraphs"},
		{"1000 reference definitions in a paragraph of 4000 lines", defs(1000) + strings.Repeat("x\n", 3000), ""},
		{"1000 reference definitions in a paragraph of 4001 lines", defs(1000) + strings.Repeat("x\n", 3001), "too many for their paragraphs"},
		{"2000 definitions in paragraphs of their own", strings.Repeat("[a]: /x\n\n", 2000) + "x\n", ""},
		{"512 KiB", strings.Repeat("x", 512<<10), ""},
		{"over 512 KiB", strings.Repeat("x", 512<<10+1), "over 512 KiB"},
		{"emphasis and numbers are no nesting", strings.Repeat("*a* 2024. ", 100) + "\n", ""},
	}
	for _, tt := range tests {
		if got := unparsableTwin([]byte(tt.body)); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.what, got, tt.want)
		}
	}
}

// BenchmarkReadMarkdownTwin reads the slowest Markdown the bounds admit,
// for each shape that makes a CommonMark parser superlinear.
func BenchmarkReadMarkdownTwin(b *testing.B) {
	const n = maxTwinMarkdown
	fill := func(unit string) string { return strings.Repeat(unit, n/len(unit)) }
	for _, tt := range []struct{ name, body string }{
		{"nested lists", fill(strings.Repeat("- ", maxTwinNesting) + "x\n")},
		{"reference definitions", strings.Repeat("[a]: /x\n", 2000)},
		{"definitions and their paragraph", strings.Repeat("[a]: /x\n", 15) + fill("x\n")[:n-8*15]},
		{"open brackets", fill("[")},
		{"links", fill("[a](/x) ")},
	} {
		if why := unparsableTwin([]byte(tt.body)); why != "" {
			b.Fatalf("%s: refused (%s), so not what the bounds admit", tt.name, why)
		}
		x := &exchange.Exchange{Request: exchange.Request{Method: "GET", URL: "http://api.test/guide.md"},
			Response: &exchange.Response{Status: 200, Header: http.Header{"Content-Type": {"text/markdown"}}, Body: []byte(tt.body)}}
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				readMarkdownTwin(x)
			}
		})
	}
}
