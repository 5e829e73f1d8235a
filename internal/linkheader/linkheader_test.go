package linkheader

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []Link
	}{
		{"service links", []string{`</openapi.json>; rel="service-desc"; type="application/openapi+json", </docs>; rel=service-doc`},
			[]Link{
				{Target: "/openapi.json", Rels: []string{"service-desc"}, Params: map[string]string{"rel": "service-desc", "type": "application/openapi+json"}},
				{Target: "/docs", Rels: []string{"service-doc"}, Params: map[string]string{"rel": "service-doc"}},
			}},
		{"commas inside target and quotes", []string{`</a,b>; title="x, y"; rel=next`},
			[]Link{{Target: "/a,b", Rels: []string{"next"}, Params: map[string]string{"title": "x, y", "rel": "next"}}}},
		{"anchors are kept", []string{`</x>; rel=item; anchor="/y"`},
			[]Link{{Target: "/x", Rels: []string{"item"}, Params: map[string]string{"rel": "item", "anchor": "/y"}}}},
		{"first rel wins, case folded", []string{`</x>; REL="Alternate https://e.test/R"; rel=next`},
			[]Link{{Target: "/x", Rels: []string{"alternate", "https://e.test/R"}, Params: map[string]string{"rel": "Alternate https://e.test/R"}}}},
		{"garbage skipped, rest kept", []string{`junk, </ok>; rel=up, </bad> x; rel=up, </fine>; rel=down`},
			[]Link{
				{Target: "/ok", Rels: []string{"up"}, Params: map[string]string{"rel": "up"}},
				{Target: "/fine", Rels: []string{"down"}, Params: map[string]string{"rel": "down"}},
			}},
		{"unterminated", []string{`</x; rel=up`}, nil},
		{"empty", []string{"", " , ,"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse(tt.lines); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %#v\nwant %#v", tt.lines, got, tt.want)
			}
		})
	}
}

func TestWithRel(t *testing.T) {
	links := Parse([]string{`</a>; rel="service-desc", </b>; rel="service-desc"; anchor="/x", </c>; rel="Service-Desc alternate"`})
	var got []string
	for _, l := range WithRel(links, "service-desc") {
		got = append(got, l.Target)
	}
	if want := []string{"/a", "/c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("WithRel = %v, want %v", got, want)
	}
}

func TestParseIsBounded(t *testing.T) {
	huge := strings.Repeat(`</x>; rel=a; p=1, `, 1<<16)
	if got := len(Parse([]string{huge, huge})); got != MaxLinks {
		t.Errorf("parsed %d links, want the bound %d", got, MaxLinks)
	}
	params := "</x>" + strings.Repeat("; p=1", 10)
	for i := range 200 {
		params += "; q" + strings.Repeat("x", i) + "=1"
	}
	if got := len(Parse([]string{params})[0].Params); got != MaxParams {
		t.Errorf("kept %d params, want %d", got, MaxParams)
	}
}

func TestTenMegabytes(t *testing.T) {
	for _, body := range []string{strings.Repeat("<", 10<<20), strings.Repeat(`"`, 10<<20), "<" + strings.Repeat("a", 10<<20) + ">; rel=" + strings.Repeat(`"\`, 1<<20)} {
		_ = Parse([]string{body})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`</a>; rel=next`, `<a>;;;,,<b>; rel="x\"y"`, `<`, `"<>"`, `</x>; anchor=#; rel=a b c`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		links := Parse([]string{s, s})
		if len(links) > MaxLinks {
			t.Fatalf("%d links exceed the bound", len(links))
		}
		for _, l := range links {
			if len(l.Params) > MaxParams || len(l.Target) > len(s) {
				t.Fatalf("unbounded link %+v", l)
			}
		}
	})
}
