// Package jsonorder decodes JSON into a tree that keeps object members in
// document order, records duplicate keys, and refuses documents beyond fixed
// bounds. HAL-FORMS needs the order ("the first template is the default") and
// the scanner needs the bounds: a response body is hostile input, and
// encoding/json would happily build a 10,000-level tree or keep only the last
// of two duplicate keys without saying so.
package jsonorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the JSON type of a value.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{Null: "null", Bool: "boolean", Number: "number", String: "string", Array: "array", Object: "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Value is one decoded JSON value. Pointer is its RFC 6901 location in the
// document, so that findings can name the offending member.
type Value struct {
	Kind    Kind
	Pointer string
	// Bool holds a boolean; Text holds a string, or a number exactly as
	// written (so 1 and 1.0 stay distinguishable).
	Bool    bool
	Text    string
	Items   []*Value
	Members []Member
}

// Member is one object member, in document order.
type Member struct {
	Key   string
	Value *Value
}

// Limits bound what Decode accepts. The zero value of a field means its
// default.
type Limits struct {
	MaxBytes  int // whole document; default 8 MiB
	MaxDepth  int // nesting of arrays and objects; default 64
	MaxString int // one string or key, in bytes; default 1 MiB
	MaxValues int // values in the document; default 200,000
	// MaxPointerBytes bounds the pointers of all values together; default
	// 32 MiB. Each value's pointer repeats its ancestors' keys, so one long
	// key above many values would otherwise cost their product in memory.
	MaxPointerBytes int
	// PruneDeeper reads arrays and objects nested beyond MaxDepth as empty
	// (counting what they held against MaxValues) instead of refusing the
	// document, for readers that look only near the top of a document that
	// may nest thousands of levels below.
	PruneDeeper bool
}

// Default limits.
const (
	DefaultMaxBytes        = 8 << 20
	DefaultMaxDepth        = 64
	DefaultMaxString       = 1 << 20
	DefaultMaxValues       = 200_000
	DefaultMaxPointerBytes = 32 << 20
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxBytes, DefaultMaxBytes)
	def(&l.MaxDepth, DefaultMaxDepth)
	def(&l.MaxString, DefaultMaxString)
	def(&l.MaxValues, DefaultMaxValues)
	def(&l.MaxPointerBytes, DefaultMaxPointerBytes)
	return l
}

// Document is a decoded JSON text.
type Document struct {
	Root *Value
	// Duplicates are the pointers of members whose key repeated an earlier
	// key of the same object, in document order. Get returns the first.
	Duplicates []string
	// Pruned is set when Limits.PruneDeeper emptied a container.
	Pruned bool
}

// ErrLimit is wrapped by every error that reports an exceeded bound, so
// callers can tell "too big to judge" from "not JSON".
var ErrLimit = errors.New("exceeds the decoder's bounds")

// Decode parses data as exactly one JSON value within lim.
func Decode(data []byte, lim Limits) (*Document, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxBytes {
		return nil, fmt.Errorf("document of %d bytes: %w (%d bytes)", len(data), ErrLimit, lim.MaxBytes)
	}
	if json.Valid(data) {
		return decodeValid(data, lim)
	}
	// Only a document that is not JSON goes token by token through
	// encoding/json, whose errors say where and what.
	return decodeTokens(data, lim)
}

func decodeTokens(data []byte, lim Limits) (*Document, error) {
	d := &decoder{dec: json.NewDecoder(bytes.NewReader(data)), budget: budget{lim: lim}}
	d.dec.UseNumber()
	root, err := d.value("", 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	return d.document(root), nil
}

type decoder struct {
	dec *json.Decoder
	budget
}

// budget is what both decoders count against the Limits, so that a
// document meets the same limits, with the same errors, whichever reads it.
type budget struct {
	lim          Limits
	values       int
	pointerBytes int
	dups         []string
	pruned       bool
}

// spend counts a value at ptr.
func (b *budget) spend(ptr string) error {
	if err := b.spendSkipped(); err != nil {
		return err
	}
	b.pointerBytes += len(ptr)
	if b.pointerBytes > b.lim.MaxPointerBytes {
		return fmt.Errorf("pointers of more than %d bytes: %w", b.lim.MaxPointerBytes, ErrLimit)
	}
	return nil
}

// spendSkipped counts a value of a pruned container, which has no pointer.
func (b *budget) spendSkipped() error {
	b.values++
	if b.values > b.lim.MaxValues {
		return fmt.Errorf("more than %d values: %w", b.lim.MaxValues, ErrLimit)
	}
	return nil
}

// text checks a string's length.
func (b *budget) text(t, ptr string) error {
	if len(t) > b.lim.MaxString {
		return fmt.Errorf("string of %d bytes at %q: %w", len(t), ptr, ErrLimit)
	}
	return nil
}

// nest says whether a container opening at depth is read as empty
// (PruneDeeper), or refused.
func (b *budget) nest(depth int, ptr string) (prune bool, err error) {
	if depth+1 <= b.lim.MaxDepth {
		return false, nil
	}
	if b.lim.PruneDeeper {
		b.pruned = true
		return true, nil
	}
	return false, fmt.Errorf("nesting deeper than %d at %q: %w", b.lim.MaxDepth, ptr, ErrLimit)
}

func (b *budget) document(root *Value) *Document {
	return &Document{Root: root, Duplicates: b.dups, Pruned: b.pruned}
}

func (d *decoder) value(ptr string, depth int) (*Value, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	if err := d.spend(ptr); err != nil {
		return nil, err
	}
	v := &Value{Pointer: ptr}
	switch t := tok.(type) {
	case nil:
		v.Kind = Null
	case bool:
		v.Kind, v.Bool = Bool, t
	case json.Number:
		v.Kind, v.Text = Number, string(t)
	case string:
		if err := d.text(t, ptr); err != nil {
			return nil, err
		}
		v.Kind, v.Text = String, t
	case json.Delim:
		v.Kind = Object
		if t == '[' {
			v.Kind = Array
		}
		prune, err := d.nest(depth, ptr)
		if err != nil {
			return nil, err
		}
		if prune {
			return v, d.skip()
		}
		if t == '[' {
			return v, d.array(v, depth+1)
		}
		return v, d.object(v, depth+1)
	}
	return v, nil
}

func (d *decoder) array(v *Value, depth int) error {
	v.Kind = Array
	for i := 0; d.dec.More(); i++ {
		item, err := d.value(v.Pointer+"/"+strconv.Itoa(i), depth) // an index needs no escaping
		if err != nil {
			return err
		}
		v.Items = append(v.Items, item)
	}
	_, err := d.dec.Token() // ']'
	return syntaxError(err)
}

func (d *decoder) object(v *Value, depth int) error {
	v.Kind = Object
	seen := map[string]bool{}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		key, ok := tok.(string)
		if !ok {
			return errors.New("invalid JSON: object key is not a string")
		}
		if len(key) > d.lim.MaxString {
			return fmt.Errorf("key of %d bytes at %q: %w", len(key), v.Pointer, ErrLimit)
		}
		ptr := Join(v.Pointer, key)
		if seen[key] {
			d.dups = append(d.dups, ptr)
		}
		seen[key] = true
		val, err := d.value(ptr, depth)
		if err != nil {
			return err
		}
		v.Members = append(v.Members, Member{Key: key, Value: val})
	}
	_, err := d.dec.Token() // '}'
	return syntaxError(err)
}

// skip consumes the rest of a container whose opening delimiter was read,
// counting each token against MaxValues.
func (d *decoder) skip() error {
	for open := 1; open > 0; {
		tok, err := d.dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		if err := d.spendSkipped(); err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			open++
		case json.Delim(']'), json.Delim('}'):
			open--
		}
	}
	return nil
}

func syntaxError(err error) error {
	if err == nil {
		return nil
	}
	if err == io.EOF {
		return errors.New("invalid JSON: unexpected end of input")
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

// Get returns the first member named key of an object, or nil. It is nil-safe
// so that chains such as doc.Get("_links").Get("self") need no checks.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for _, m := range v.Members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Elements returns an array's items, or nil for anything else (nil included).
func (v *Value) Elements() []*Value {
	if v == nil || v.Kind != Array {
		return nil
	}
	return v.Items
}

// Is reports whether v is present and of kind k.
func (v *Value) Is(k Kind) bool { return v != nil && v.Kind == k }

// Str returns the string value and whether v is a string.
func (v *Value) Str() (string, bool) {
	if v.Is(String) {
		return v.Text, true
	}
	return "", false
}

// IsTrue reports the JSON literal true, and nothing else: HAL and HAL-FORMS
// clients treat "true" (a string) as false.
func (v *Value) IsTrue() bool { return v.Is(Bool) && v.Bool }

// Float returns a number's value.
func (v *Value) Float() (float64, bool) {
	if !v.Is(Number) {
		return 0, false
	}
	f, err := json.Number(v.Text).Float64()
	return f, err == nil
}

// Any returns v as encoding/json decodes it with UseNumber: an object as a
// map[string]any holding the first of repeated keys (as Get does), an array
// as []any, a number as json.Number; nil for null or a nil v.
func (v *Value) Any() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Text)
	case String:
		return v.Text
	case Array:
		out := make([]any, len(v.Items))
		for i, it := range v.Items {
			out[i] = it.Any()
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			if _, seen := out[m.Key]; !seen {
				out[m.Key] = m.Value.Any()
			}
		}
		return out
	}
	return nil
}

// Literal renders a scalar for messages: strings quoted, others as written,
// containers by kind.
func (v *Value) Literal() string {
	switch {
	case v == nil:
		return "(absent)"
	case v.Kind == String:
		b, _ := json.Marshal(v.Text)
		return string(b)
	case v.Kind == Number:
		return v.Text
	case v.Kind == Bool:
		return fmt.Sprint(v.Bool)
	}
	return v.Kind.String()
}

// Escape escapes one reference token (RFC 6901 §3): "~" becomes "~0" and "/"
// becomes "~1", in that order.
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// Unescape reverses Escape: "~1" becomes "/" before "~0" becomes "~", so
// that "~01" reads as "~1" and not as "/".
func Unescape(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Join appends an unescaped reference token to a pointer.
func Join(ptr, token string) string { return ptr + "/" + Escape(token) }

// Pointer joins unescaped reference tokens into a pointer from the root.
func Pointer(tokens []string) string {
	ptr := ""
	for _, t := range tokens {
		ptr = Join(ptr, t)
	}
	return ptr
}
