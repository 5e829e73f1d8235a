package custom

import (
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/sanitize"
)

// A spec rule reads the document with its local references inlined, as
// Spectral does by default, so that a parameter shared through components
// counts where it is used. Inlining is bounded: a served document can make
// its expansion exponential (a ref to an object of two refs to an object of
// two refs...) or endless (a schema that contains itself).
const (
	// maxRefDepth bounds the references inlined one inside another.
	maxRefDepth = 32
	// maxResolvedValues bounds the values of the resolved document as a
	// rule walks them, a target shared by several references counted at
	// each; past it references are left as written. GitHub's description,
	// 1,223 operations in 13 MB, resolves to about 2 million.
	maxResolvedValues = 8 << 20
	// maxCopies bounds the objects and arrays the resolution allocates: a
	// target is resolved once and shared, unless a cycle below it makes
	// it differ by where it is used.
	maxCopies = 1 << 19
)

// resolved is a document with its local references inlined, and what was
// left as written.
type resolved struct {
	value any
	// size counts the values of value, a shared target at each use.
	size int
	// external, cyclic, unresolvable and deep are the distinct references
	// left as written: to another document, to one being inlined (a
	// cycle), to nothing, and beyond maxRefDepth.
	external, cyclic, unresolvable, deep map[string]bool
	// truncated is set when maxResolvedValues stopped the inlining.
	truncated bool
}

// notes says what the resolution left as written, for the rule's
// observation; "" when it inlined everything.
func (r *resolved) notes() string {
	var parts []string
	add := func(refs map[string]bool, what string) {
		if len(refs) == 0 {
			return
		}
		names := slices.Sorted(maps.Keys(refs))
		shown := names[:min(len(names), 3)]
		for i, n := range shown {
			shown[i] = sanitize.Truncate(sanitize.Line(n), valueLimit)
		}
		more := ""
		if len(names) > len(shown) {
			more = ", …"
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s%s)", len(names), what, strings.Join(shown, ", "), more))
	}
	add(r.external, "to other documents")
	add(r.cyclic, "cyclic, kept as $ref objects")
	add(r.unresolvable, "to nothing in the document")
	add(r.deep, fmt.Sprintf("nested more than %d deep", maxRefDepth))
	msg := ""
	if len(parts) > 0 {
		msg = "$ref left as written: " + strings.Join(parts, ", ")
	}
	if r.truncated {
		if msg != "" {
			msg += "; "
		}
		msg += fmt.Sprintf("inlining stopped at %d values or %d objects, later $ref are as written", maxResolvedValues, maxCopies)
	}
	return msg
}

// resolve inlines the local references of doc. Members are visited in
// sorted order so that what a bound leaves as written is the same on every
// run. A reference left as written is the document's own $ref object, the
// same map: origin tells inlined from kept by that identity.
func resolve(doc any) *resolved {
	rv := &resolver{
		doc: doc, budget: maxResolvedValues, copies: maxCopies, memo: map[string]memoEntry{},
		out: &resolved{external: map[string]bool{}, cyclic: map[string]bool{}, unresolvable: map[string]bool{}, deep: map[string]bool{}},
	}
	rv.out.value, rv.out.size = rv.walk(doc, nil)
	return rv.out
}

type resolver struct {
	doc any
	out *resolved
	// budget and copies are what is left of maxResolvedValues and
	// maxCopies.
	budget, copies int
	// cuts counts the references kept because of where they were met (in
	// a cycle, too deep, past the budget), and peak is the deepest stack
	// reached: a target resolved with neither is the same wherever it is
	// used, and is resolved once.
	cuts, peak int
	memo       map[string]memoEntry
}

type memoEntry struct {
	value any
	// size is its values, depth the references nested in it, itself
	// included.
	size, depth int
}

// walk returns v resolved and its size in values.
func (rv *resolver) walk(v any, stack []string) (any, int) {
	if rv.budget <= 0 || rv.copies <= 0 {
		return rv.truncate(v)
	}
	rv.budget--
	size := 1
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := refOf(x); ok {
			rv.budget++ // the target counts instead
			return rv.inline(x, ref, stack)
		}
		rv.copies--
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			var n int
			out[k], n = rv.walk(x[k], stack)
			size += n
		}
		return out, size
	case []any:
		rv.copies--
		out := make([]any, len(x))
		for i, item := range x {
			var n int
			out[i], n = rv.walk(item, stack)
			size += n
		}
		return out, size
	}
	return v, size
}

// truncate leaves v as written, the bounds reached.
func (rv *resolver) truncate(v any) (any, int) {
	rv.out.truncated = true
	rv.cuts++
	return v, 1
}

func (rv *resolver) inline(x map[string]any, ref string, stack []string) (any, int) {
	switch {
	case !strings.HasPrefix(ref, "#"):
		rv.out.external[ref] = true
		return x, 1
	case slices.Contains(stack, ref):
		rv.out.cyclic[ref] = true
		rv.cuts++
		return x, 1
	case len(stack) >= maxRefDepth:
		rv.out.deep[ref] = true
		rv.cuts++
		return x, 1
	}
	if m, ok := rv.memo[ref]; ok && len(stack)+m.depth <= maxRefDepth {
		if m.size > rv.budget {
			return rv.truncate(x)
		}
		rv.budget -= m.size
		return m.value, m.size
	}
	target, _, ok := lookup(rv.doc, ref)
	if !ok {
		rv.out.unresolvable[ref] = true
		return x, 1
	}
	cuts, peak := rv.cuts, rv.peak
	rv.peak = len(stack) + 1
	v, size := rv.walk(target, append(slices.Clip(stack), ref))
	if rv.cuts == cuts {
		rv.memo[ref] = memoEntry{value: v, size: size, depth: rv.peak - len(stack)}
	}
	rv.peak = max(rv.peak, peak)
	return v, size
}

// refOf is the reference of a $ref object: a member $ref whose value is a
// string (a property named $ref in a schema's properties is an object).
// Its siblings are dropped when it is inlined, as OpenAPI 3.0 says and
// Spectral does.
func refOf(m map[string]any) (string, bool) {
	s, ok := m["$ref"].(string)
	return s, ok
}

// lookup follows a local reference (#, or # and a JSON pointer, percent-
// encoded as a URI fragment) and returns the value and its path.
func lookup(doc any, ref string) (any, []any, bool) {
	frag, err := url.PathUnescape(strings.TrimPrefix(ref, "#"))
	if err != nil {
		return nil, nil, false
	}
	if frag == "" {
		return doc, []any{}, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, nil, false
	}
	cur, path := doc, []any{}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, nil, false
			}
			cur, path = v, append(path, tok)
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, nil, false
			}
			cur, path = c[i], append(path, i)
		default:
			return nil, nil, false
		}
	}
	return cur, path, true
}

// origin maps a path in the resolved document to where its value is
// written in the document: the path itself when no inlined reference is on
// the way, else the path below the innermost reference's target, and that
// reference.
func origin(doc, res any, path []any) (src []any, ref string) {
	o, r := doc, res
	src = []any{}
	for i := 0; ; i++ {
		for {
			m, isMap := o.(map[string]any)
			s, isRef := refOf(m)
			if !isMap || !isRef || sameMap(m, r) {
				break
			}
			target, at, ok := lookup(doc, s)
			if !ok {
				break
			}
			o, src, ref = target, at, s
		}
		if i == len(path) {
			return src, ref
		}
		o, r = child(o, path[i]), child(r, path[i])
		src = append(slices.Clip(src), path[i])
	}
}

// sameMap says whether r is the map m itself, which is how the resolver
// leaves a reference as written.
func sameMap(m map[string]any, r any) bool {
	rm, ok := r.(map[string]any)
	return ok && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(rm).UnsafePointer()
}

func child(v any, step any) any {
	switch s := step.(type) {
	case string:
		if m, ok := v.(map[string]any); ok {
			return m[s]
		}
	case int:
		if a, ok := v.([]any); ok && s >= 0 && s < len(a) {
			return a[s]
		}
	}
	return nil
}
