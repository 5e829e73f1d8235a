package probe

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/linkheader"
)

func TestParseLinkHeader(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []Link
	}{
		{
			name:   "single",
			values: []string{`<https://example.com/next>; rel="next"`},
			want:   []Link{{URI: "https://example.com/next", Rels: []string{"next"}, Params: map[string]string{"rel": "next"}}},
		},
		{
			name:   "comma inside the target and inside a quoted string",
			values: []string{`</a,b>; rel=next; title="x, y", </c>; rel=prev`},
			want: []Link{
				{URI: "/a,b", Rels: []string{"next"}, Params: map[string]string{"rel": "next", "title": "x, y"}},
				{URI: "/c", Rels: []string{"prev"}, Params: map[string]string{"rel": "prev"}},
			},
		},
		{
			name:   "several header lines",
			values: []string{`</1>; rel=first`, `</2>; rel=last`},
			want: []Link{
				{URI: "/1", Rels: []string{"first"}, Params: map[string]string{"rel": "first"}},
				{URI: "/2", Rels: []string{"last"}, Params: map[string]string{"rel": "last"}},
			},
		},
		{
			name:   "several rels, case folded, extension rel kept",
			values: []string{`</x>; REL="Next  Alternate https://example.com/Rel"`},
			want: []Link{{URI: "/x", Rels: []string{"next", "alternate", "https://example.com/Rel"},
				Params: map[string]string{"rel": "Next  Alternate https://example.com/Rel"}}},
		},
		{
			name:   "first rel wins",
			values: []string{`</x>; rel=next; rel=prev`},
			want:   []Link{{URI: "/x", Rels: []string{"next"}, Params: map[string]string{"rel": "next"}}},
		},
		{
			name:   "anchored links are ignored",
			values: []string{`</x>; rel=next; anchor="#foo", </y>; rel=prev`},
			want:   []Link{{URI: "/y", Rels: []string{"prev"}, Params: map[string]string{"rel": "prev"}}},
		},
		{
			name:   "escaped quote and semicolon in quoted value",
			values: []string{`</x>; title="a \"b\"; c"; rel=up`},
			want:   []Link{{URI: "/x", Rels: []string{"up"}, Params: map[string]string{"title": `a "b"; c`, "rel": "up"}}},
		},
		{
			name:   "param without value and whitespace around equals",
			values: []string{"</x> ;crossorigin ; rel = next"},
			want:   []Link{{URI: "/x", Rels: []string{"next"}, Params: map[string]string{"crossorigin": "", "rel": "next"}}},
		},
		{
			name:   "garbage between links is skipped",
			values: []string{`nonsense; rel=x, </ok>; rel=ok, </bad> junk, </ok2>`},
			want: []Link{
				{URI: "/ok", Rels: []string{"ok"}, Params: map[string]string{"rel": "ok"}},
				{URI: "/ok2", Params: map[string]string{}},
			},
		},
		{
			name:   "unterminated target stops the line",
			values: []string{`</ok>; rel=a, </never`, `</next-line>`},
			want: []Link{
				{URI: "/ok", Rels: []string{"a"}, Params: map[string]string{"rel": "a"}},
				{URI: "/next-line", Params: map[string]string{}},
			},
		},
		{name: "empty", values: []string{"", " , ,"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseLinkHeader(tt.values); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestParseLinkHeaderBoundsHostileInput(t *testing.T) {
	huge := strings.Repeat(`</x>; rel=next, `, 10<<20/16)
	if got := len(ParseLinkHeader([]string{huge})); got != linkheader.MaxLinks {
		t.Errorf("links = %d, want the cap %d", got, linkheader.MaxLinks)
	}
	// Unbalanced quotes and brackets must not make parsing quadratic or stall.
	for _, s := range []string{strings.Repeat(`"`, 10<<20), strings.Repeat(`<`, 10<<20), strings.Repeat(`;`, 10<<20), strings.Repeat(`<a>;"`, 2<<20)} {
		ParseLinkHeader([]string{s})
	}
}

func FuzzParseLinkHeader(f *testing.F) {
	for _, seed := range []string{
		`</a>; rel="next"`,
		`</a,b>; rel=next; title="x, y", </c>; rel=prev`,
		`</x>; anchor="#a"; rel=next`,
		`<`, `"`, `</x>; title="\`, `;;;,,,<>`,
		"</\xff>; rel=\"\x1b[31m\"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		links := ParseLinkHeader([]string{s, s})
		if len(links) > linkheader.MaxLinks {
			t.Fatalf("%d links exceed the cap", len(links))
		}
		for _, l := range links {
			if _, anchored := l.Params["anchor"]; anchored {
				t.Fatalf("anchored link returned: %+v", l)
			}
			if len(l.URI) > len(s) {
				t.Fatalf("URI longer than the input")
			}
		}
	})
}
