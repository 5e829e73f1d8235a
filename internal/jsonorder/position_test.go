package jsonorder

import (
	"strings"
	"testing"
)

// A finding about a member the text lacks points at the value that should
// hold it; one about a present value, at that value.
func TestPositionsFindTheValueOrItsNearestParent(t *testing.T) {
	card := "{\n  \"name\": \"shop\",\n  \"skills\": [\n    {\"id\": \"a\"},\n    {\"id\": \"b\", \"tags\": [\"x\"]}\n  ],\n  \"a/b\": 1,\n  \"name\": \"again\"\n}\n"
	want := map[string]Position{
		"/name":          {2, 11},
		"/skills/1/tags": {5, 25},
		"/skills/0/tags": {4, 5},
		"/skills/7":      {3, 13},
		"/version":       {1, 1},
		"":               {1, 1},
		"/a~1b":          {7, 10},
	}
	var pointers []string
	for p := range want {
		pointers = append(pointers, p)
	}
	got := Positions([]byte(card), pointers)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%q: %+v, want %+v", p, got[p], w)
		}
	}
	if got := Positions([]byte(`{"name": [`), []string{"/name/0"}); got["/name/0"] != (Position{1, 10}) {
		t.Errorf("a text cut short: %+v, want the deepest value read", got)
	}
	if got := Positions([]byte("# not JSON"), []string{"/name"}); got["/name"] != (Position{1, 1}) {
		t.Errorf("no JSON: %+v, want the first line", got)
	}
}

// One pass over a large document, descending only where a pointer leads.
func TestPositionsInALargeDocument(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"skills": [`)
	for i := range 200_000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"id": "s", "name": "n", "description": "d"}`)
	}
	b.WriteString("]}")
	got := Positions([]byte(b.String()), []string{"/skills/0/tags", "/skills/199999/tags"})
	if got["/skills/0/tags"] != (Position{1, 13}) || got["/skills/199999/tags"] != (Position{200_000, 1}) {
		t.Errorf("%+v", got)
	}
}
