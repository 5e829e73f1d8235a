package probe

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

var rawJSONSeeds = []string{
	`{}`, `[]`, `null`, `"x"`, `12.5e3`, `true`,
	` { "a" : 1 , "b":[1, {"c":"}"}], "a": "later wins" } `,
	`{"_links":{"self":{"href":"/a"},"item":[{"href":"/b"},{"href":"/c\"d"}]}}`,
	`{"k\u00e9y":"v\/al\u0041","\ud83d\ude00":"😀"}`,
	"{\"bad\xff\":\"in\xfevalid\"}",
	`[ 1 , "two" , [3] , {"four":4} , null ]`,
	`{"nested":{"deep":[[[{"x":"]}"}]]]}, "after": "y"}`,
	`{"esc":"back\\slash\\","q":"\"","n":-0.5E-2}`,
}

// What link extraction splits must be what encoding/json gives, on any
// valid document.
func FuzzValidSplitsMatchEncodingJSON(f *testing.F) {
	for _, s := range rawJSONSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		var wantMembers map[string]json.RawMessage
		if json.Unmarshal(doc, &wantMembers) == nil && wantMembers != nil {
			got := validMembers(doc)
			if !maps.EqualFunc(got, wantMembers, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
				t.Errorf("members of %q = %q, want %q", doc, got, wantMembers)
			}
		} else if got := validMembers(doc); got != nil {
			t.Errorf("members of %q = %q, want none", doc, got)
		}
		var wantElems []json.RawMessage
		if json.Unmarshal(doc, &wantElems) == nil && wantElems != nil {
			got := validElements(doc)
			if !slices.EqualFunc(got, wantElems, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
				t.Errorf("elements of %q = %q, want %q", doc, got, wantElems)
			}
		} else if got := validElements(doc); got != nil {
			t.Errorf("elements of %q = %q, want none", doc, got)
		}
		var wantString string
		wantOK := json.Unmarshal(doc, &wantString) == nil && bytes.TrimSpace(doc)[0] == '"'
		if got, ok := stringValue(doc); ok != wantOK || got != wantString {
			t.Errorf("string of %q = %q %v, want %q %v", doc, got, ok, wantString, wantOK)
		}
	})
}
