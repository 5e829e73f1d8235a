package probe

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/spec"
)

// Bounds of the values kept for filling parameters.
const (
	poolPerName   = 4    // values kept per name, the first seen
	poolNames     = 5000 // names kept
	maxCandidates = 6    // values tried per parameter
)

// nameAliases are the other names a parameter's value is often found
// under: an {owner} or {username} is some object's login.
var nameAliases = map[string][]string{
	"owner": {"login"}, "username": {"login"}, "user": {"login"}, "org": {"organization", "login"},
	"repo": {"repository"}, "userid": {"id"},
}

// explorer fills the path and required query parameters of the document's
// GET operations, a few URLs per operation, with values seen in responses,
// given by OpenAPI links, or declared as examples, defaults and enums. It
// runs between crawl levels, in the crawl's goroutine.
type explorer struct {
	doc   *spec.Document
	gets  []*spec.Operation // GET operations, document order
	given http.Header       // the user's headers: required header parameters they name are sent
	perOp int
	pool  map[string][]pooled
	// tried counts the URLs proposed per operation; lacking is the reason an
	// operation never had one, while it has none.
	tried   map[*spec.Operation]int
	lacking map[*spec.Operation]string
	// pending counts the queued URLs of each operation not yet fetched;
	// requested marks those the crawl queued at all, by any means, and
	// reached those that answered 2xx.
	pending   map[*spec.Operation]int
	requested map[*spec.Operation]bool
	reached   map[*spec.Operation]bool
}

// pooled is a value with the depth of the page it was first seen on.
type pooled struct {
	value string
	depth int
}

func newExplorer(doc *spec.Document, given http.Header, perOp int) *explorer {
	e := &explorer{doc: doc, given: given, perOp: perOp, pool: map[string][]pooled{},
		tried: map[*spec.Operation]int{}, lacking: map[*spec.Operation]string{},
		pending: map[*spec.Operation]int{}, requested: map[*spec.Operation]bool{}, reached: map[*spec.Operation]bool{}}
	for _, op := range doc.Operations {
		// A fetched document is read from its scrubbed body: a path that
		// held an echoed credential holds the marker now, and its real
		// value is not known, so it is never requested.
		if op.Method == http.MethodGet && !exchange.HoldsRedaction(op.PathTemplate) {
			e.gets = append(e.gets, op)
		}
	}
	return e
}

// track notes the operation each queued job requests. A guessed item URL
// is not the exploration's request: one that misses is dropped unrecorded,
// and must not count as the operation's attempt.
func (e *explorer) track(jobs []job) {
	ix := e.doc.Index()
	for i := range jobs {
		if jobs[i].guessed {
			continue
		}
		if op := ix.Match(http.MethodGet, jobs[i].url); op != nil {
			jobs[i].op = op
			e.pending[op]++
			e.requested[op] = true
		}
	}
}

// settle notes that a job of op was fetched, and whether it answered 2xx.
func (e *explorer) settle(op *spec.Operation, x *exchange.Exchange) {
	if op == nil {
		return
	}
	e.pending[op]--
	if x.Response != nil && x.Response.Status/100 == 2 {
		e.reached[op] = true
	}
}

// absorb pools a page's values, seen at depth.
func (e *explorer) absorb(h *harvest, depth int) {
	if h == nil {
		return
	}
	for _, nv := range h.values {
		list, known := e.pool[nv.name]
		if !known && len(e.pool) >= poolNames {
			continue
		}
		if len(list) >= poolPerName || slices.ContainsFunc(list, func(p pooled) bool { return p.value == nv.value }) {
			continue
		}
		e.pool[nv.name] = append(list, pooled{nv.value, depth})
	}
}

// Unfilled is, per operation key, why the exploration never had a URL for
// it: finding.ReasonPathParameter or finding.ReasonRequiredParameter.
func (e *explorer) unfilled() map[string]string {
	if e == nil {
		return nil
	}
	out := map[string]string{}
	for op, reason := range e.lacking {
		if !e.requested[op] {
			out[op.Key()] = reason
		}
	}
	return out
}

// values is a candidate assignment of an operation's parameters.
type values struct {
	path, query map[string]string // unescaped
	depth       int               // of the deepest page a value came from
}

// assignment picks the attempt-th combination of candidates for op's path
// and required query parameters, with fixed values taking precedence. ok is
// false with a reason when a parameter has no candidate.
func (e *explorer) assignment(op *spec.Operation, fixed map[string]string, attempt int) (values, string) {
	v := values{path: map[string]string{}, query: map[string]string{}}
	if missingHeaders(op, e.given) {
		return v, finding.ReasonRequiredParameter
	}
	for _, name := range spec.TemplateVars(op.PathTemplate) {
		if f, ok := fixed[name]; ok {
			v.path[name] = f
			continue
		}
		c := e.candidates(op, name, "path")
		if len(c) == 0 {
			return v, finding.ReasonPathParameter
		}
		p := c[min(attempt, len(c)-1)]
		v.path[name], v.depth = p.value, max(v.depth, p.depth)
	}
	for _, p := range op.Parameters {
		if p.In != "query" || !p.Required {
			continue
		}
		if f, ok := fixed[p.Name]; ok {
			v.query[p.Name] = f
			continue
		}
		c := e.candidates(op, p.Name, "query")
		if len(c) == 0 {
			return v, finding.ReasonRequiredParameter
		}
		pick := c[min(attempt, len(c)-1)]
		v.query[p.Name], v.depth = pick.value, max(v.depth, pick.depth)
	}
	return v, ""
}

// attempts bounds the combinations worth trying for op: beyond the longest
// candidate list every attempt repeats the last.
func (e *explorer) attempts(op *spec.Operation) int {
	n := 1
	for _, name := range spec.TemplateVars(op.PathTemplate) {
		n = max(n, len(e.candidates(op, name, "path")))
	}
	return n
}

// candidates are the values to try for one parameter: seen in responses
// under its name or an alias, then its examples, default and enum, keeping
// only those its schema accepts.
func (e *explorer) candidates(op *spec.Operation, name, in string) []pooled {
	p := declared(op, name, in)
	var out []pooled
	addValue := func(v string, depth int) {
		if in == "path" && strings.Contains(v, "/") {
			// A path segment; "octocat/Hello-World" is two.
			return
		}
		if len(out) < maxCandidates && v != "" && accepts(p, v) && !slices.ContainsFunc(out, func(c pooled) bool { return c.value == v }) {
			out = append(out, pooled{v, depth})
		}
	}
	key := normName(name)
	for _, k := range append([]string{key}, nameAliases[key]...) {
		for _, pv := range e.pool[k] {
			addValue(pv.value, pv.depth)
		}
	}
	for _, v := range declaredValues(p) {
		addValue(v, 0)
	}
	return out
}

// declared is op's parameter named name in location in, or nil.
func declared(op *spec.Operation, name, in string) *spec.Parameter {
	for i := range op.Parameters {
		if p := &op.Parameters[i]; p.Name == name && p.In == in {
			return p
		}
	}
	return nil
}

// declaredValues are a parameter's examples, then its schema's example,
// examples, default and enum, as they would be written in a URL.
func declaredValues(p *spec.Parameter) []string {
	if p == nil {
		return nil
	}
	var out []string
	add := func(v any) {
		if s, ok := urlScalar(v); ok {
			out = append(out, s)
		}
	}
	for _, v := range p.Examples {
		add(v)
	}
	s := p.Schema
	if items, ok := s["items"].(map[string]any); ok && spec.SchemaType(s) == "array" {
		// One element is a valid array, written as one value.
		s = items
	}
	add(s["example"])
	for _, key := range []string{"examples", "enum"} {
		if key == "enum" {
			add(s["default"])
		}
		if list, ok := s[key].([]any); ok {
			for _, v := range list {
				add(v)
			}
		}
	}
	return out
}

// urlScalar writes a scalar example as it goes into a URL, if it is short
// enough to be one.
func urlScalar(v any) (string, bool) {
	t, ok := spec.ScalarText(v)
	return t, ok && len(t) <= maxValueLength
}

// accepts reports whether a value fits the parameter's schema as far as a
// URL can tell: its type, its enum and its pattern. An undeclared parameter
// accepts anything.
func accepts(p *spec.Parameter, v string) bool {
	if p == nil || p.Schema == nil {
		return true
	}
	return spec.Fits(p.Schema, v)
}

// fillURL writes op's URL under base with v, or "" when a value is missing.
func fillURL(base string, op *spec.Operation, v values) string {
	escaped := make(map[string]string, len(v.path))
	for name, value := range v.path {
		escaped[name] = url.PathEscape(value)
	}
	p, ok := spec.Expand(op.PathTemplate, escaped)
	if !ok {
		return ""
	}
	ref := joinPath(base, p)
	if len(v.query) > 0 {
		q := url.Values{}
		for name, value := range v.query {
			q.Set(name, value)
		}
		ref += "?" + q.Encode()
	}
	return ref
}

// proposal is a URL the exploration offers the crawl for op.
type proposal struct {
	op    *spec.Operation
	ref   string
	depth int
	from  string // the URL or document it was derived from
	how   string // "example", "link <name>", ...
}

// next proposes, for each GET operation that needs values and is under
// its quota, the first combination not yet decided: one URL per operation
// per level, so that every operation gets its first try before any gets a
// second. isDecided tells URLs the crawl already fetched or refused.
func (e *explorer) next(base string, isDecided func(ref string) bool) []proposal {
	var out []proposal
	for _, op := range e.gets {
		if e.tried[op] >= e.perOp || e.seedable(op) || e.reached[op] || e.pending[op] > 0 {
			continue
		}
		n := e.attempts(op)
		for attempt := e.tried[op]; attempt < n+e.tried[op]; attempt++ {
			v, reason := e.assignment(op, nil, attempt%n)
			if reason != "" {
				e.lacking[op] = reason
				break
			}
			ref := fillURL(base, op, v)
			if ref == "" || isDecided(ref) {
				continue
			}
			out = append(out, proposal{op: op, ref: ref, depth: v.depth + 1, from: e.doc.Source, how: "filled"})
			break
		}
	}
	return out
}

// seedable reports operations the seeds cover: no path parameter, and no
// required parameter the crawl lacks.
func (e *explorer) seedable(op *spec.Operation) bool {
	return !strings.Contains(op.PathTemplate, "{") && !requiresParameters(op, e.given)
}

// note is a line for the report on what the exploration could not fill.
func (e *explorer) note() string {
	if e == nil {
		return ""
	}
	counts := map[string]int{}
	for _, reason := range e.unfilled() {
		counts[reason]++
	}
	var parts []string
	if n := counts[finding.ReasonPathParameter]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d lacked a path parameter", n))
	}
	if n := counts[finding.ReasonRequiredParameter]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d a required query, header or cookie parameter (headers given with -H are sent)", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("GET operations of the OpenAPI document never requested, as no response, example, default, enum or link gave a value: %s (of %d)",
		strings.Join(parts, ", "), len(e.gets))
}
