package jsonorder

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestDecodeKeepsOrderAndPointers(t *testing.T) {
	doc, err := Decode([]byte(`{"z":1,"a/b":{"m~n":[true,null,"x"]},"a":2.0}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range doc.Root.Members {
		keys = append(keys, m.Key)
	}
	if got := strings.Join(keys, ","); got != "z,a/b,a" {
		t.Errorf("member order %s, want z,a/b,a", got)
	}
	x := doc.Root.Get("a/b").Get("m~n").Items[2]
	if x.Pointer != "/a~1b/m~0n/2" || x.Text != "x" {
		t.Errorf("pointer %q text %q", x.Pointer, x.Text)
	}
	if n := doc.Root.Get("a"); n.Kind != Number || n.Text != "2.0" {
		t.Errorf("number kept as %v %q, want the literal 2.0", n.Kind, n.Text)
	}
	if doc.Root.Get("missing").Get("deeper") != nil {
		t.Error("Get on absent member is not nil")
	}
}

func TestDuplicateKeysAreReportedAndFirstWins(t *testing.T) {
	doc, err := Decode([]byte(`{"_templates":{"a":{"method":"GET"},"a":{"method":"POST"}}}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Duplicates) != 1 || doc.Duplicates[0] != "/_templates/a" {
		t.Errorf("duplicates %v", doc.Duplicates)
	}
	if m, _ := doc.Root.Get("_templates").Get("a").Get("method").Str(); m != "GET" {
		t.Errorf("Get returned %q, want the first occurrence", m)
	}
}

func TestHostileDocumentsStayWithinBounds(t *testing.T) {
	tests := []struct {
		name  string
		input string
		lim   Limits
		limit bool // an ErrLimit, as opposed to a syntax error
	}{
		{"deep arrays", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), Limits{}, true},
		{"deep objects", strings.Repeat(`{"a":`, 10_000) + "1" + strings.Repeat("}", 10_000), Limits{}, true},
		{"10 MB string", `"` + strings.Repeat("x", 10<<20) + `"`, Limits{}, true},
		{"long string under a small string cap", `{"k":"` + strings.Repeat("y", 5000) + `"}`, Limits{MaxString: 1000}, true},
		{"long key", `{"` + strings.Repeat("k", 5000) + `":1}`, Limits{MaxString: 1000}, true},
		{"too many values", "[" + strings.Repeat("1,", 1000) + "1]", Limits{MaxValues: 100}, true},
		{"truncated", `{"a":[1,2`, Limits{}, false},
		{"trailing data", `{} {}`, Limits{}, false},
		{"not JSON", `<html>`, Limits{}, false},
		{"empty", ``, Limits{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.input), tt.lim)
			if err == nil {
				t.Fatal("decoded without error")
			}
			if errors.Is(err, ErrLimit) != tt.limit {
				t.Errorf("error %v: limit=%v, want %v", err, errors.Is(err, ErrLimit), tt.limit)
			}
		})
	}
}

func TestDepthLimitIsExact(t *testing.T) {
	ok := strings.Repeat("[", 64) + strings.Repeat("]", 64)
	if _, err := Decode([]byte(ok), Limits{}); err != nil {
		t.Errorf("64 levels refused: %v", err)
	}
	over := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	if _, err := Decode([]byte(over), Limits{}); !errors.Is(err, ErrLimit) {
		t.Errorf("65 levels: %v", err)
	}
}

// TestLongKeyAboveManyValues: a 200 KiB key above 2,000 values is a 400 KiB
// document whose pointers would take 400 MiB; the decoder refuses it within
// its pointer bound instead of building them.
func TestLongKeyAboveManyValues(t *testing.T) {
	body := `{"` + strings.Repeat("k", 200<<10) + `":[` + strings.TrimSuffix(strings.Repeat("0,", 2000), ",") + `]}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode([]byte(body), Limits{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("decoded with error %v, want the limit", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*DefaultMaxPointerBytes {
		t.Errorf("allocated %d MiB before refusing", grew>>20)
	}
}

func TestPruneDeeper(t *testing.T) {
	body := `{"a":` + strings.Repeat(`{"b":[`, 1000) + strings.Repeat(`]}`, 1000) + `,"c":[[1]],"d":"after"}`
	if _, err := Decode([]byte(body), Limits{}); !errors.Is(err, ErrLimit) {
		t.Fatalf("without pruning: %v", err)
	}
	doc, err := Decode([]byte(body), Limits{MaxDepth: 2, PruneDeeper: true})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Pruned {
		t.Error("Pruned not set")
	}
	if b := doc.Root.Get("a").Get("b"); !b.Is(Array) || len(b.Items) != 0 {
		t.Errorf("a.b = %+v, want an empty array", b)
	}
	if c := doc.Root.Get("c"); len(c.Items) != 1 || !c.Items[0].Is(Array) || len(c.Items[0].Items) != 0 {
		t.Errorf("c = %+v, want one empty array", c)
	}
	if s, _ := doc.Root.Get("d").Str(); s != "after" {
		t.Errorf("the member after the pruned ones: %q", s)
	}
	if _, err := Decode([]byte(body), Limits{MaxDepth: 2, PruneDeeper: true, MaxValues: 500}); !errors.Is(err, ErrLimit) {
		t.Errorf("pruned tokens are not counted: %v", err)
	}
	if _, err := Decode([]byte(`{"a":[[[1,2]]`), Limits{MaxDepth: 2, PruneDeeper: true}); err == nil || errors.Is(err, ErrLimit) {
		t.Errorf("truncated while pruning: %v", err)
	}
}

func TestAnyDecodesLikeEncodingJSON(t *testing.T) {
	const body = `{"a":[1,2.50,"x",true,null,{"b":{}}],"n":-0,"s":"é"}`
	doc, err := Decode([]byte(body), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := doc.Root.Any(); !reflect.DeepEqual(got, want) {
		t.Errorf("Any = %#v, want %#v", got, want)
	}
	dup, err := Decode([]byte(`{"k":1,"k":2}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := dup.Root.Any().(map[string]any)["k"]; got != json.Number("1") {
		t.Errorf("repeated key: %v, want the first, as Get", got)
	}
	var missing *Value
	if missing.Any() != nil {
		t.Error("Any of nil")
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "a/b": "a~1b", "~1": "~01", "~/": "~0~1", "": ""} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "a~1b": "a/b", "~01": "~1", "~0~1": "~/", "~10": "/0", "": ""} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
	for _, token := range []string{"a/b~c", "~1", "~01", "//~~", "x"} {
		if got := Unescape(Escape(token)); got != token {
			t.Errorf("Unescape(Escape(%q)) = %q", token, got)
		}
	}
}

func TestLiteralAndAccessors(t *testing.T) {
	doc, err := Decode([]byte(`{"s":"a\"b","n":-1.5e3,"b":false,"t":"true","o":{}}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Root
	if got := r.Get("s").Literal(); got != `"a\"b"` {
		t.Errorf("Literal %s", got)
	}
	if f, ok := r.Get("n").Float(); !ok || f != -1500 {
		t.Errorf("Float %v %v", f, ok)
	}
	if r.Get("t").IsTrue() || r.Get("b").IsTrue() {
		t.Error(`"true" or false read as true`)
	}
	if r.Get("o").Literal() != "object" || r.Get("nope").Literal() != "(absent)" {
		t.Error("container or absent literal")
	}
}

// FuzzDecode checks that any input either decodes to a tree that agrees with
// encoding/json, or fails cleanly; it never panics or hangs.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":null}],"a":"dup"}`, `"\u00e9"`, `1e999`, `[[[[`, `{"_links":{"self":{"href":"/"}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Decode(data, Limits{MaxDepth: 32, MaxValues: 10_000})
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		count := 0
		walk(doc.Root, func(v *Value) { count++ })
		if count > 10_000 {
			t.Fatalf("%d values over the limit", count)
		}
	})
}

func walk(v *Value, fn func(*Value)) {
	fn(v)
	for _, it := range v.Items {
		walk(it, fn)
	}
	for _, m := range v.Members {
		walk(m.Value, fn)
	}
}
