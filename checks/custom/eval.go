package custom

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/theory/jsonpath"
	jpspec "github.com/theory/jsonpath/spec"
)

// A rule's JSONPath is evaluated here, not by the library's Select: RFC
// 9535 lets a query nest descendant segments and filters, so that
// `$..*..*` visits every value once per level above it and `$..[?@..x]`
// walks every subtree from each of its ancestors, and the library offers
// no limit. On a 3.5 MB document such queries took seconds and gigabytes.
// The walker below counts every value it examines against the rule's
// budget and stops there; the library still parses, and evaluates the
// comparisons and function calls of filters, whose cost is bounded before
// they run (see libraryCost). Members are visited in sorted order, so that
// a rule stopped by its budget judged the same values on every run.

// Budgets of one rule, in values visited: each value a selector examines,
// each a descendant segment descends into, and the estimated cost of each
// comparison or function call of a filter.
const (
	// minDocumentVisits and visitsPerValue bound the values visited in one
	// document: the larger of the two figures. A query that reads a
	// document a few times over ($..description, $..[?@.type ==
	// 'object'], a JSONPath field on each match) stays within
	// visitsPerValue times its values; one that rereads it at every level
	// does not.
	minDocumentVisits = 1 << 20
	visitsPerValue    = 8
	// scanVisits bounds the values one rule visits over a whole scan, its
	// documents together.
	scanVisits = 1 << 25
	// maxMatches bounds the values a JSONPath field selects in one
	// selected value, and so the memory their paths take. What given
	// selects is judged as it is found, and never held.
	maxMatches = 100_000
)

// documentBudget is what a rule may visit in a document of n values.
func documentBudget(n int) int { return max(minDocumentVisits, visitsPerValue*n) }

// query is a compiled JSONPath: the library's segments, with filters
// compiled so that the walker evaluates their queries itself.
type query struct {
	// absolute is a query from the root ($), not from the current value (@).
	absolute bool
	segments []segment
}

type segment struct {
	descendant bool
	selectors  []selector
}

// selector is one of the library's name, index, slice and wildcard
// selectors, or a filter.
type selector struct {
	sel    jpspec.Selector
	filter *condition
}

type conditionKind int

const (
	conditionOr conditionKind = iota
	conditionAnd
	conditionNot
	conditionExists
	conditionLibrary
)

// condition is a filter expression: or, and and not of conditions, a query
// that must select something, or a comparison or function call that the
// library evaluates.
type condition struct {
	kind  conditionKind
	terms []*condition
	query *query
	// library evaluates the expression; power and absolute bound its cost
	// (see libraryCost).
	library  *jpspec.FilterSelector
	power    int
	absolute bool
}

func compileQuery(p *jsonpath.Path) *query { return compileSpecQuery(p.Query()) }

func compileSpecQuery(q *jpspec.PathQuery) *query {
	out := &query{absolute: strings.HasPrefix(q.String(), "$")}
	for _, seg := range q.Segments() {
		s := segment{descendant: seg.IsDescendant()}
		for _, sel := range seg.Selectors() {
			if f, ok := sel.(*jpspec.FilterSelector); ok {
				s.selectors = append(s.selectors, selector{filter: compileCondition(f.LogicalOr)})
				continue
			}
			s.selectors = append(s.selectors, selector{sel: sel})
		}
		out.segments = append(out.segments, s)
	}
	return out
}

func compileCondition(e jpspec.BasicExpr) *condition {
	switch e := e.(type) {
	case jpspec.LogicalOr:
		c := &condition{kind: conditionOr}
		for _, and := range e {
			c.terms = append(c.terms, compileCondition(and))
		}
		return c
	case jpspec.LogicalAnd:
		c := &condition{kind: conditionAnd}
		for _, term := range e {
			c.terms = append(c.terms, compileCondition(term))
		}
		return c
	case *jpspec.ParenExpr:
		return compileCondition(e.LogicalOr)
	case *jpspec.NotParenExpr:
		return &condition{kind: conditionNot, terms: []*condition{compileCondition(e.LogicalOr)}}
	case *jpspec.ExistExpr:
		return &condition{kind: conditionExists, query: compileSpecQuery(e.PathQuery)}
	case *jpspec.NonExistExpr:
		return &condition{kind: conditionNot, terms: []*condition{{kind: conditionExists, query: compileSpecQuery(e.PathQuery)}}}
	case jpspec.NonExistExpr:
		return &condition{kind: conditionNot, terms: []*condition{{kind: conditionExists, query: compileSpecQuery(e.PathQuery)}}}
	}
	power, absolute := costOf(e.String())
	return &condition{kind: conditionLibrary, library: jpspec.Filter(jpspec.LogicalAnd{e}), power: power, absolute: absolute}
}

// costOf reads, in the text of a comparison or function call, what bounds
// the values its queries visit: each descendant segment, wildcard, slice,
// filter and whole value compared (a bare @ or $) may multiply them by the
// size of the value it starts from, so power counts them; absolute is set
// when a query starts from the root. String literals are skipped.
func costOf(text string) (power int, absolute bool) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"', '\'':
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '.':
			if i+1 < len(text) && text[i+1] == '.' {
				power++
				i++
			}
		case '*', ':', '?':
			power++
		case '$', '@':
			absolute = absolute || c == '$'
			if i+1 == len(text) || text[i+1] != '[' && text[i+1] != '.' {
				power++
			}
		}
	}
	return power, absolute
}

// located is a value a query selected and its path of keys and indexes.
type located struct {
	node any
	path []any
}

// walker evaluates compiled queries on one document within a budget of
// values visited.
type walker struct {
	ctx   context.Context
	root  any
	nodes int // values in the document
	left  int // visits left
	used  int
	// stopped is set once the budget or maxMatches is reached; every
	// evaluation then returns at once, with what it had.
	stopped bool
	// tooMany is set when it was maxMatches.
	tooMany bool
	err     error
	path    []any // of the value being visited
	// keys holds each object's sorted member names once sorted, by the
	// object's identity: a query that rereads a document would sort them
	// again at every reading.
	keys map[uintptr][]string
}

func newWalker(ctx context.Context, root any, nodes, budget int) *walker {
	return &walker{ctx: ctx, root: root, nodes: nodes, left: budget}
}

// charge counts n visits, and reports whether the budget allows them.
func (w *walker) charge(n int) bool {
	if w.stopped {
		return false
	}
	if n > w.left {
		w.used += w.left
		w.left, w.stopped = 0, true
		return false
	}
	// The context is looked at every 4096 visits or so: a scan that is
	// interrupted stops its rules too.
	if (w.used+n)>>12 != w.used>>12 && w.ctx.Err() != nil {
		w.err, w.stopped = w.ctx.Err(), true
		return false
	}
	w.used += n
	w.left -= n
	return true
}

// each calls yield with every value q selects from node (from the root of
// the document for an absolute query) and its path from node, which is
// valid during the call only; it stops when yield returns false.
func (w *walker) each(q *query, node any, yield func(v any, path []any) bool) {
	base := len(w.path)
	w.run(q.segments, w.start(q, node), func(v any) bool { return yield(v, w.path[base:]) })
}

// selectAll returns the values q selects from node, at most maxMatches of
// them.
func (w *walker) selectAll(q *query, node any) []located {
	var out []located
	w.each(q, node, func(v any, path []any) bool {
		if len(out) == maxMatches {
			w.stopped, w.tooMany = true, true
			return false
		}
		out = append(out, located{v, slices.Clone(path)})
		return true
	})
	return out
}

func (w *walker) start(q *query, current any) any {
	if q.absolute {
		return w.root
	}
	return current
}

// run applies segs to node and yields each value selected, its path on
// w.path; it returns false once yield or the budget stopped it.
func (w *walker) run(segs []segment, node any, yield func(any) bool) bool {
	if w.stopped {
		return false
	}
	if len(segs) == 0 {
		return yield(node)
	}
	if segs[0].descendant {
		return w.descend(segs[0], segs[1:], node, yield)
	}
	return w.apply(segs[0], segs[1:], node, yield)
}

// apply applies seg's selectors to node, then rest to what they select.
func (w *walker) apply(seg segment, rest []segment, node any, yield func(any) bool) bool {
	next := func(key, child any) bool {
		w.path = append(w.path, key)
		ok := w.run(rest, child, yield)
		w.path = w.path[:len(w.path)-1]
		return ok
	}
	for _, sel := range seg.selectors {
		if !w.choose(sel, node, next) {
			return false
		}
	}
	return true
}

// descend applies seg to node and to each value below it, as RFC 9535
// §2.5.2 orders them: node first, then its children's subtrees in turn.
func (w *walker) descend(seg segment, rest []segment, node any, yield func(any) bool) bool {
	if !w.apply(seg, rest, node, yield) {
		return false
	}
	return w.children(node, func(key, child any) bool {
		w.path = append(w.path, key)
		ok := w.descend(seg, rest, child, yield)
		w.path = w.path[:len(w.path)-1]
		return ok
	})
}

// children calls each with every member of an object, in sorted order, or
// every item of an array; it returns false once each or the budget stopped
// it.
func (w *walker) children(node any, each func(key, child any) bool) bool {
	switch n := node.(type) {
	case map[string]any:
		if !w.charge(len(n)) {
			return false
		}
		for _, k := range w.sortedKeys(n) {
			if !each(k, n[k]) {
				return false
			}
		}
	case []any:
		if !w.charge(len(n)) {
			return false
		}
		for i, v := range n {
			if !each(i, v) {
				return false
			}
		}
	}
	return true
}

func (w *walker) sortedKeys(m map[string]any) []string {
	id := reflect.ValueOf(m).Pointer()
	keys, ok := w.keys[id]
	if !ok {
		if w.keys == nil {
			w.keys = map[uintptr][]string{}
		}
		keys = slices.Sorted(maps.Keys(m))
		w.keys[id] = keys
	}
	return keys
}

// choose calls each with what sel selects in node.
func (w *walker) choose(sel selector, node any, each func(key, child any) bool) bool {
	if sel.filter != nil {
		return w.children(node, func(key, child any) bool {
			if w.test(sel.filter, child) {
				return each(key, child)
			}
			return !w.stopped
		})
	}
	switch s := sel.sel.(type) {
	case jpspec.Name:
		if obj, ok := node.(map[string]any); ok {
			if v, ok := obj[string(s)]; ok {
				return w.charge(1) && each(string(s), v)
			}
		}
	case jpspec.Index:
		if arr, ok := node.([]any); ok {
			i := int(s)
			if i < 0 {
				i += len(arr)
			}
			if i >= 0 && i < len(arr) {
				return w.charge(1) && each(i, arr[i])
			}
		}
	case jpspec.SliceSelector:
		arr, ok := node.([]any)
		if !ok {
			return true
		}
		lower, upper := s.Bounds(len(arr))
		switch step := s.Step(); {
		case step > 0:
			for i := lower; i < upper; i += step {
				if !w.charge(1) || !each(i, arr[i]) {
					return false
				}
			}
		case step < 0:
			for i := upper; lower < i; i += step {
				if !w.charge(1) || !each(i, arr[i]) {
					return false
				}
			}
		}
	case jpspec.WildcardSelector:
		return w.children(node, each)
	}
	return true
}

// test evaluates a filter on current. Its result means nothing once the
// walker stopped.
func (w *walker) test(c *condition, current any) bool {
	switch c.kind {
	case conditionOr:
		for _, t := range c.terms {
			if w.test(t, current) {
				return true
			}
		}
		return false
	case conditionAnd:
		for _, t := range c.terms {
			if !w.test(t, current) {
				return false
			}
		}
		return true
	case conditionNot:
		return !w.test(c.terms[0], current)
	case conditionExists:
		// One value is enough: the walk stops at the first.
		found := false
		w.run(c.query.segments, w.start(c.query, current), func(any) bool {
			found = true
			return false
		})
		return found
	}
	if !w.charge(w.libraryCost(c, current)) {
		return false
	}
	return c.library.Eval(current, w.root)
}

// libraryCost bounds the values a comparison or function call visits on
// current: one for one whose queries select one value each, else the size
// of the value its queries start from to the power of the segments and
// selectors that may each visit all of it. The size of current is counted
// within what is left of the budget.
func (w *walker) libraryCost(c *condition, current any) int {
	if c.power == 0 {
		return 1
	}
	size := w.nodes
	if !c.absolute {
		size = countValues(current, w.left+1)
	}
	cost := 1
	for range c.power {
		if cost > w.left/max(size, 1) {
			return w.left + 1
		}
		cost *= max(size, 1)
	}
	return cost
}

// countValues counts v and the values below it, stopping past limit.
func countValues(v any, limit int) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			if n > limit {
				break
			}
			n += countValues(c, limit-n)
		}
	case []any:
		for _, c := range x {
			if n > limit {
				break
			}
			n += countValues(c, limit-n)
		}
	}
	return n
}
