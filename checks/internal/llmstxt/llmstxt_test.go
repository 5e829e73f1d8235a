package llmstxt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/longtest"
)

const good = `# Demo API

> Orders that move from pending to paid.

Some prose with an [inline](/about) link.

## API

- [listOrders](/orders): Find orders
- [OpenAPI](/openapi.json)
* [Order 1](</orders/1> "title")

` + "```" + `
## not a heading
- [code](/code)
` + "```" + `

## Optional

- [Docs](https://e.test/docs.md): long read
- just text
- [broken(/x)
`

func TestParse(t *testing.T) {
	f := Parse([]byte(good))
	if f.Title != "Demo API" || f.TitleLine != 1 || f.Summary != "Orders that move from pending to paid." {
		t.Errorf("title %q line %d summary %q", f.Title, f.TitleLine, f.Summary)
	}
	if len(f.Sections) != 2 || f.Sections[0].Title != "API" || !f.Sections[1].Optional() {
		t.Fatalf("sections %+v", f.Sections)
	}
	want := []Link{
		{Name: "listOrders", URL: "/orders", Notes: "Find orders", Line: 9},
		{Name: "OpenAPI", URL: "/openapi.json", Line: 10},
		{Name: "Order 1", URL: "/orders/1", Line: 11},
		{Name: "Docs", URL: "https://e.test/docs.md", Notes: "long read", Line: 20},
	}
	if got := f.Links(); !reflect.DeepEqual(got, want) {
		t.Errorf("links\n got %+v\nwant %+v", got, want)
	}
	wantBad := []Item{{Text: "just text", Line: 21}, {Text: "[broken(/x)", Line: 22}}
	if got := f.Sections[1].BadItems; !reflect.DeepEqual(got, wantBad) {
		t.Errorf("bad items %+v", got)
	}
}

func TestNoTitle(t *testing.T) {
	for _, body := range []string{"", "## API\n# Late title\n", "Just prose\n", "#NoSpace\n"} {
		if f := Parse([]byte(body)); f.TitleLine != 0 {
			t.Errorf("%q: title %q found", body, f.Title)
		}
	}
}

func TestInlineLinks(t *testing.T) {
	got := InlineLinks([]byte(good))
	var urls []string
	for _, l := range got {
		urls = append(urls, l.URL)
	}
	want := []string{"/about", "/orders", "/openapi.json", "/orders/1", "https://e.test/docs.md"}
	if !reflect.DeepEqual(urls, want) {
		t.Errorf("inline links %v, want %v", urls, want)
	}
}

func TestBounds(t *testing.T) {
	longtest.Skip(t, "parses llms.txt files of 10 MB")
	many := "# T\n## S\n" + strings.Repeat("- [a](/a)\n- bad\n", 5000)
	f := Parse([]byte(many))
	if len(f.Links()) != MaxLinks || len(f.Sections[0].BadItems) != MaxBadItems {
		t.Errorf("kept %d links, %d bad items", len(f.Links()), len(f.Sections[0].BadItems))
	}
	if n := len(InlineLinks([]byte(strings.Repeat("[a](/b) ", 1<<20)))); n != MaxLinks {
		t.Errorf("inline links %d, want %d", n, MaxLinks)
	}
	for _, body := range []string{strings.Repeat("[", 10<<20), strings.Repeat("- [x](", 2<<20), strings.Repeat("\r", 10<<20)} {
		Parse([]byte(body))
		InlineLinks([]byte(body))
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("# \n> \n## \n- [](\n- [a](b): \n```\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p := Parse(body)
		if len(p.Links()) > MaxLinks {
			t.Fatalf("%d links", len(p.Links()))
		}
		for _, s := range p.Sections {
			if len(s.BadItems) > MaxBadItems {
				t.Fatalf("%d bad items", len(s.BadItems))
			}
		}
		if len(InlineLinks(body)) > MaxLinks {
			t.Fatal("inline links unbounded")
		}
	})
}
