package spec

import "testing"

// A finding about a member the text lacks points at the value that should
// hold it; one about a present value, at that value.
func TestPointerLocationFindsTheValueOrItsNearestParent(t *testing.T) {
	card := "{\n  \"name\": \"shop\",\n  \"skills\": [\n    {\"id\": \"a\"},\n    {\"id\": \"b\", \"tags\": [\"x\"]}\n  ],\n  \"a/b\": 1\n}\n"
	for _, tt := range []struct {
		pointer      string
		line, column int
	}{
		{"/name", 2, 11},
		{"/skills/1/tags", 5, 25},
		{"/skills/0/tags", 4, 5},
		{"/skills/7", 3, 13},
		{"/version", 1, 1},
		{"", 1, 1},
		{"/a~1b", 7, 10},
	} {
		loc := PointerLocation([]byte(card), "card.json", tt.pointer)
		if loc.File != "card.json" || loc.Pointer != tt.pointer || loc.Line != tt.line || loc.Column != tt.column {
			t.Errorf("%q: %+v, want line %d column %d", tt.pointer, loc, tt.line, tt.column)
		}
	}
	if loc := PointerLocation([]byte(`{"name": [`), "card.json", "/name"); loc.Line != 1 || loc.Column != 0 {
		t.Errorf("a text that does not parse: %+v, want its first line", loc)
	}
}
