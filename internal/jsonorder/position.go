package jsonorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Position is where a value is written in a JSON text: its 1-based line
// and column, in bytes.
type Position struct{ Line, Column int }

// Positions finds where the value each pointer names is written in data,
// or, when data lacks it (a finding about a missing member), where its
// nearest enclosing value is. It reads data once, however many pointers
// are asked, and descends only into the values on their way, so a large
// document costs one scan. A pointer is missing from the answer when data
// is no JSON before its nearest value.
func Positions(data []byte, pointers []string) map[string]Position {
	wanted := map[string]bool{"": true}
	for _, p := range pointers {
		for i := len(p); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			wanted[p[:i]] = true
		}
	}
	w := positionWalker{data: data, dec: json.NewDecoder(bytes.NewReader(data)), wanted: wanted, found: map[string]int{}}
	_ = w.value("") // a syntax error ends the walk; what was found stands
	lines := lineStarts(data)
	out := map[string]Position{}
	for _, p := range pointers {
		for q := p; ; q = q[:strings.LastIndexByte(q, '/')] {
			if off, ok := w.found[q]; ok {
				line := sort.Search(len(lines), func(i int) bool { return lines[i] > off })
				out[p] = Position{Line: line, Column: off - lines[line-1] + 1}
				break
			}
			if q == "" {
				break
			}
		}
	}
	return out
}

type positionWalker struct {
	data   []byte
	dec    *json.Decoder
	wanted map[string]bool
	found  map[string]int // offset of each wanted value found
}

// value reads the value at ptr, recording where it starts, and descends
// into the members and elements that lead to a wanted pointer.
func (w *positionWalker) value(ptr string) error {
	w.found[ptr] = w.start()
	t, err := w.dec.Token()
	if err != nil {
		return err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	for i := 0; w.dec.More(); i++ {
		child := ptr + "/" + strconv.Itoa(i)
		if d == '{' {
			key, err := w.dec.Token()
			if err != nil {
				return err
			}
			name, _ := key.(string)
			child = Join(ptr, name)
		}
		if !w.wanted[child] {
			if err := w.dec.Decode(&json.RawMessage{}); err != nil {
				return err
			}
			continue
		}
		if _, seen := w.found[child]; seen {
			// A repeated key: the first is the one readers take.
			if err := w.dec.Decode(&json.RawMessage{}); err != nil {
				return err
			}
			continue
		}
		if err := w.value(child); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// start is the offset of the next value: past the separators the decoder
// has not consumed yet.
func (w *positionWalker) start() int {
	off := int(w.dec.InputOffset())
	for off < len(w.data) && strings.IndexByte(" \t\r\n,:", w.data[off]) >= 0 {
		off++
	}
	return off
}

// lineStarts are the offsets at which each line of data starts.
func lineStarts(data []byte) []int {
	out := []int{0}
	for i, b := range data {
		if b == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}
