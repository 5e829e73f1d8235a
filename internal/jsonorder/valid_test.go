package jsonorder

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodedAlike says how decodeValid and decodeTokens differ on a valid
// document, or "" when they give the same Document or the same error.
func decodedAlike(data []byte, lim Limits) string {
	lim = lim.withDefaults()
	fast, fastErr := decodeValid(data, lim)
	slow, slowErr := decodeTokens(data, lim)
	if fmt.Sprint(fastErr) != fmt.Sprint(slowErr) {
		return fmt.Sprintf("error %v, token by token %v", fastErr, slowErr)
	}
	if !reflect.DeepEqual(fast, slow) {
		return fmt.Sprintf("document %+v, token by token %+v", fast, slow)
	}
	return ""
}

func TestValidDocumentsDecodeAsTokenByToken(t *testing.T) {
	deep := strings.Repeat(`{"a":[`, 40) + `1` + strings.Repeat(`]}`, 40)
	docs := []string{
		`null`, `true`, ` false `, `0`, `-1.5e+10`, `1E-2`, `12345678901234567890`, `""`,
		`"plain"`, `"\u00e9\n\t\"\\\/"`, `"\ud83d\ude00"`, `"\ud800 lone"`, "\"caf\xc3\xa9\"", "\"bad \xff utf-8\"",
		`[]`, `{}`, ` [ 1 , [ ] , { } , "x" ] `, `{"a":1,"a":2,"b":{"a":3}}`,
		`{"_links":{"self":{"href":"/w/1"},"item":[{"href":"/w/2"},{"href":"/w/3","templated":true}]}}`,
		`{"a/b":{"c~d":[null,{"":0}]}}`, `{"\u0061":1,"a":2}`, deep,
		`{` + strings.Repeat(`"k":1,`, 40) + `"k":2}`,
		`{` + func() string {
			var b strings.Builder
			for i := range 30 {
				fmt.Fprintf(&b, `"k%d":%d,`, i, i)
			}
			return b.String()
		}() + `"k3":0,"k29":1,"k0":2}`,
	}
	limits := []Limits{
		{},
		{MaxDepth: 3},
		{MaxDepth: 3, PruneDeeper: true},
		{MaxDepth: 2, PruneDeeper: true, MaxValues: 20},
		{MaxValues: 5},
		{MaxString: 4},
		{MaxPointerBytes: 20},
	}
	for _, doc := range docs {
		if !json.Valid([]byte(doc)) {
			t.Fatalf("%q is not valid JSON", doc)
		}
		for _, lim := range limits {
			if diff := decodedAlike([]byte(doc), lim); diff != "" {
				t.Errorf("%q within %+v: %s", doc, lim, diff)
			}
		}
	}
}

// FuzzValidDecoder checks the fast decoder against the token decoder on
// every valid input.
func FuzzValidDecoder(f *testing.F) {
	for _, s := range []string{`{}`, `[1,{"a":"\u00e9"}]`, `{"a":[1,{"b":null}],"a":"dup"}`, `[[[[[[1]]]]]]`, `{"_links":{"self":{"href":"/"}}}`} {
		f.Add([]byte(s), 3, true, 50)
	}
	f.Fuzz(func(t *testing.T, data []byte, depth int, prune bool, values int) {
		if !json.Valid(data) || depth < 1 || depth > 64 || values < 1 {
			return
		}
		if diff := decodedAlike(data, Limits{MaxDepth: depth, PruneDeeper: prune, MaxValues: values, MaxString: 64}); diff != "" {
			t.Fatalf("%q: %s", data, diff)
		}
	})
}
