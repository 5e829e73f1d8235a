package jsonorder

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// validDecoder reads a document that json.Valid accepted, to the same
// Document and the same limit errors as decoder, which reads it token by
// token through encoding/json; it is several times faster. Syntax needs no
// checking here, so the only errors are the limits', met in the same order.
type validDecoder struct {
	data []byte
	pos  int
	budget
}

func decodeValid(data []byte, lim Limits) (*Document, error) {
	d := &validDecoder{data: data, budget: budget{lim: lim}}
	root, err := d.value("", 0)
	if err != nil {
		return nil, err
	}
	return d.document(root), nil
}

func (d *validDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *validDecoder) value(ptr string, depth int) (*Value, error) {
	d.space()
	if err := d.spend(ptr); err != nil {
		return nil, err
	}
	v := &Value{Pointer: ptr}
	switch c := d.data[d.pos]; c {
	case 'n':
		v.Kind, d.pos = Null, d.pos+len("null")
	case 't':
		v.Kind, v.Bool, d.pos = Bool, true, d.pos+len("true")
	case 'f':
		v.Kind, d.pos = Bool, d.pos+len("false")
	case '"':
		t := d.str()
		if err := d.text(t, ptr); err != nil {
			return nil, err
		}
		v.Kind, v.Text = String, t
	case '[', '{':
		d.pos++
		v.Kind = Object
		if c == '[' {
			v.Kind = Array
		}
		prune, err := d.nest(depth, ptr)
		if err != nil {
			return nil, err
		}
		if prune {
			return v, d.skip()
		}
		if c == '[' {
			return v, d.array(v, depth+1)
		}
		return v, d.object(v, depth+1)
	default:
		v.Kind, v.Text = Number, string(d.number())
	}
	return v, nil
}

// more consumes the comma before another element, or the closing delimiter.
func (d *validDecoder) more() bool {
	d.space()
	c := d.data[d.pos]
	d.pos++
	return c == ','
}

// empty consumes the closing delimiter of an empty container.
func (d *validDecoder) empty(closing byte) bool {
	d.space()
	if d.data[d.pos] == closing {
		d.pos++
		return true
	}
	return false
}

func (d *validDecoder) array(v *Value, depth int) error {
	v.Kind = Array
	if d.empty(']') {
		return nil
	}
	for i := 0; ; i++ {
		item, err := d.value(v.Pointer+"/"+strconv.Itoa(i), depth) // an index needs no escaping
		if err != nil {
			return err
		}
		v.Items = append(v.Items, item)
		if !d.more() {
			return nil
		}
	}
}

// keysByMap is the number of members from which an object's repeated keys
// are found by a map rather than by a scan of the keys before.
const keysByMap = 16

func (d *validDecoder) object(v *Value, depth int) error {
	v.Kind = Object
	if d.empty('}') {
		return nil
	}
	var seen map[string]bool
	for {
		d.space()
		key := d.str()
		if len(key) > d.lim.MaxString {
			return fmt.Errorf("key of %d bytes at %q: %w", len(key), v.Pointer, ErrLimit)
		}
		ptr := Join(v.Pointer, key)
		if len(v.Members) == keysByMap {
			seen = make(map[string]bool, 2*keysByMap)
			for _, m := range v.Members {
				seen[m.Key] = true
			}
		}
		if repeated(v.Members, seen, key) {
			d.dups = append(d.dups, ptr)
		}
		if seen != nil {
			seen[key] = true
		}
		d.space()
		d.pos++ // ':'
		val, err := d.value(ptr, depth)
		if err != nil {
			return err
		}
		v.Members = append(v.Members, Member{Key: key, Value: val})
		if !d.more() {
			return nil
		}
	}
}

func repeated(members []Member, seen map[string]bool, key string) bool {
	if seen != nil {
		return seen[key]
	}
	for _, m := range members {
		if m.Key == key {
			return true
		}
	}
	return false
}

// skip consumes the rest of a container whose opening delimiter was read,
// counting what encoding/json's Token would return (scalars, keys and
// delimiters, not commas and colons) against MaxValues, as decoder.skip
// does.
func (d *validDecoder) skip() error {
	for open := 1; open > 0; {
		d.space()
		switch d.data[d.pos] {
		case ',', ':':
			d.pos++
			continue
		case '[', '{':
			open++
			d.pos++
		case ']', '}':
			open--
			d.pos++
		case '"':
			d.skipString()
		case 'n', 't':
			d.pos += len("null")
		case 'f':
			d.pos += len("false")
		default:
			d.number()
		}
		if err := d.spendSkipped(); err != nil {
			return err
		}
	}
	return nil
}

func (d *validDecoder) number() []byte {
	start := d.pos
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '-', '+', '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			d.pos++
		default:
			return d.data[start:d.pos]
		}
	}
	return d.data[start:]
}

// skipString consumes a string and says whether it holds escapes or
// non-ASCII bytes.
func (d *validDecoder) skipString() (plain bool) {
	plain = true
	i := d.pos + 1
	for {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return plain
		case c == '\\':
			plain = false
			i += 2
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			i++
		}
	}
}

// str reads a string as encoding/json does: a plain one as it is, any other
// through encoding/json itself, which replaces invalid UTF-8 and lone
// surrogates as the token decoder would.
func (d *validDecoder) str() string {
	start := d.pos
	plain := d.skipString()
	quoted := d.data[start:d.pos]
	if plain {
		return string(quoted[1 : len(quoted)-1])
	}
	var s string
	_ = json.Unmarshal(quoted, &s) // the document is valid
	return s
}
