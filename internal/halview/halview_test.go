package halview

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/jsonorder"
)

func parse(t *testing.T, body string) *View {
	t.Helper()
	v := Parse([]byte(body), Limits)
	if v.Err != nil {
		t.Fatal(v.Err)
	}
	return v
}

func relNames(rels []Relation) []string {
	var out []string
	for _, rel := range rels {
		out = append(out, rel.Name)
	}
	return out
}

func TestRelationsAndLinks(t *testing.T) {
	v := parse(t, `{"_links":{
		"self":{"href":"/o/1"},
		"b":[{"href":"/b0","templated":"true"},"not a link",{"href":"/b2{?x}","templated":true,"type":"application/json","name":"two"}],
		"a":{"title":"no href"},
		"c":"/c"
	}}`)
	r := v.Root
	if got := relNames(r.Relations); !slices.Equal(got, []string{"self", "b", "a", "c"}) {
		t.Errorf("relations in document order: %v", got)
	}
	if got := relNames(r.SortedRelations()); !slices.Equal(got, []string{"a", "b", "c", "self"}) {
		t.Errorf("sorted relations: %v", got)
	}
	b := r.Relation("b")
	if b == nil || !b.IsArray() || len(b.Links) != 2 {
		t.Fatalf("relation b: %+v", b)
	}
	if l := b.Links[0]; l.Href != "/b0" || l.Templated || l.Value.Pointer != "/_links/b/0" {
		t.Errorf("templated as a string is not templated: %+v", l)
	}
	if l := b.Links[1]; l.Href != "/b2{?x}" || !l.Templated || l.Type != "application/json" || l.Name != "two" || l.Value.Pointer != "/_links/b/2" {
		t.Errorf("second link: %+v", l)
	}
	if a := r.Relation("a"); len(a.Links) != 1 || a.Links[0].Href != "" {
		t.Errorf("a link without href: %+v", a)
	}
	if c := r.Relation("c"); len(c.Links) != 0 || c.Value.Kind != jsonorder.String {
		t.Errorf("a string is no link: %+v", c)
	}
	if r.Relation("missing") != nil {
		t.Error("a missing relation was found")
	}
	if got := r.SelfHref(); got != "/o/1" {
		t.Errorf("SelfHref = %q", got)
	}
}

func TestSelfHrefOfASingleLinkOnly(t *testing.T) {
	for body, want := range map[string]string{
		`{"_links":{"self":[{"href":"/a"}]}}`: "",
		`{"_links":{"self":{"href":7}}}`:      "",
		`{"_links":{"self":"/a"}}`:            "",
		`{"_links":[]}`:                       "",
		`{}`:                                  "",
		`{"_links":{"self":{"href":"/a"}}}`:   "/a",
	} {
		if got := parse(t, body).Root.SelfHref(); got != want {
			t.Errorf("SelfHref of %s = %q, want %q", body, got, want)
		}
	}
}

func TestTemplates(t *testing.T) {
	r := parse(t, `{"_templates":{"z":{"method":"POST","target":"/z"},"default":{"method":7},"a":"x"}}`).Root
	var got []string
	for _, tpl := range r.Templates {
		got = append(got, tpl.Key+" "+tpl.Method+" "+tpl.Target)
	}
	if want := []string{"z POST /z", "default  ", "a  "}; !slices.Equal(got, want) {
		t.Errorf("templates %q, want %q", got, want)
	}
	if s := r.SortedTemplates(); s[0].Key != "a" || s[2].Key != "z" {
		t.Errorf("sorted templates %v", s)
	}
}

func TestEmbeddedAndCuries(t *testing.T) {
	r := parse(t, `{
		"_links":{"curies":[{"name":"o","href":"/r/{rel}","templated":true},{"href":"/nameless"}]},
		"_embedded":{
			"z":{"_links":{"curies":{"name":"p","href":"/p/{rel}"}}},
			"items":[{"id":1},"skip",{"id":3,"_embedded":{"deeper":{"id":4}}}]
		}
	}`).Root
	if got := r.CurieNames(); !slices.Equal(got, []string{"o"}) {
		t.Errorf("root curies %v", got)
	}
	if len(r.Embedded) != 2 || r.Embedded[0].Rel != "z" || r.SortedEmbedded()[0].Rel != "items" {
		t.Fatalf("embedded %+v", r.Embedded)
	}
	z := r.Embedded[0].Resources[0]
	if got := z.CurieNames(); !slices.Equal(got, []string{"o", "p"}) || z.Parent != r || z.Depth != 1 {
		t.Errorf("embedded curies %v, parent %p, depth %d", got, z.Parent, z.Depth)
	}
	items := r.Embedded[1].Resources
	if len(items) != 2 || items[1].Value.Pointer != "/_embedded/items/2" {
		t.Fatalf("items %+v", items)
	}
	if deeper := items[1].Embedded[0].Resources[0]; deeper.Depth != 2 || deeper.Value.Pointer != "/_embedded/items/2/_embedded/deeper" {
		t.Errorf("deeper: depth %d at %s", deeper.Depth, deeper.Value.Pointer)
	}
}

// TestEmbeddedDepthIsBounded: resources nested below MaxEmbeddedDepth are
// not read, whatever the document holds.
func TestEmbeddedDepthIsBounded(t *testing.T) {
	body := strings.Repeat(`{"_links":{"self":{"href":"/"}},"_embedded":{"e":`, 20) + `{}` + strings.Repeat(`}}`, 20)
	r := parse(t, body).Root
	depth := 0
	for len(r.Embedded) > 0 {
		r = r.Embedded[0].Resources[0]
		depth++
	}
	if depth != MaxEmbeddedDepth {
		t.Errorf("read %d levels of _embedded, want %d", depth, MaxEmbeddedDepth)
	}
	if r.Relation("self") == nil {
		t.Error("the deepest resource read lost its links")
	}
}

func TestNotAResource(t *testing.T) {
	for _, body := range []string{`[{"_links":{}}]`, `"x"`, `null`} {
		if v := parse(t, body); v.Root != nil {
			t.Errorf("%s has a root resource", body)
		}
	}
	v := Parse([]byte(`{"_links":`), Limits)
	if v.Err == nil || v.Root != nil {
		t.Errorf("truncated JSON: %+v", v)
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	if v := Parse([]byte(deep), Limits); !errors.Is(v.Err, jsonorder.ErrLimit) {
		t.Errorf("too deep: %v", v.Err)
	}
}

func TestResourceOf(t *testing.T) {
	doc := parse(t, `{"data":{"_links":{"next":{"href":"/2"}},"_embedded":{"e":{"_links":{}}}}}`).Doc
	r := ResourceOf(doc.Root.Get("data"))
	if r == nil || len(r.Relations) != 1 || r.Relations[0].Links[0].Href != "/2" {
		t.Fatalf("ResourceOf: %+v", r)
	}
	if len(r.Embedded) != 0 {
		t.Error("ResourceOf read embedded resources")
	}
	if ResourceOf(doc.Root.Get("missing")) != nil {
		t.Error("ResourceOf(nil) is a resource")
	}
}
