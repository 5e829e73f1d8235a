package affordance

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/jsonorder"
)

// maxWalkDepth bounds the search for resources inside a document.
const maxWalkDepth = 16

// analysis holds the spec-independent issues by check ID, and the references
// the spec-dependent checks resolve.
type analysis struct {
	docs   int // documents that use one of the formats
	issues map[string][]hypermedia.Issue
	refs   []ref
	next   []ref
}

// ref is one reference to an operation: an affordance, an unavailable
// affordance or a next_actions entry.
type ref struct {
	x    *exchange.Exchange
	v    *jsonorder.Value // the entry
	name string           // the identifier as written
	kind string           // "operation" or "tool"
	// Set for affordances only.
	target      *jsonorder.Value
	arguments   *jsonorder.Value
	constraints *jsonorder.Value
}

func (a *analysis) add(id string, is hypermedia.Issue) { a.issues[id] = append(a.issues[id], is) }

var analysisKey = checks.NewKey[*analysis]()

func analyze(in *checks.Input) *analysis {
	return checks.Memo(in, analysisKey, func() *analysis {
		a := &analysis{issues: map[string][]hypermedia.Issue{}}
		for _, d := range hypermedia.JSONDocs(in) {
			if d.Err != nil {
				continue // not JSON, or beyond bounds: other families judge the body
			}
			used := false
			walk(d.Root(), 0, func(r *jsonorder.Value) {
				if usesFormat(r) {
					used = true
					(&resource{a: a, in: in, x: d.X, v: r, root: r == d.Root()}).check()
				}
			})
			if used {
				a.docs++
			}
		}
		return a
	})
}

func usesFormat(v *jsonorder.Value) bool {
	return v.Get("affordances") != nil || v.Get("unavailableAffordances") != nil || v.Get("next_actions") != nil
}

// walk visits every object of the tree, depth-first in document order. It
// does not descend into an object that uses a format: that object is one
// resource, and its affordances are not resources of their own.
func walk(v *jsonorder.Value, depth int, fn func(*jsonorder.Value)) {
	if depth > maxWalkDepth {
		return
	}
	switch v.Kind {
	case jsonorder.Object:
		if usesFormat(v) {
			fn(v)
			if emb := v.Get("_embedded"); emb != nil {
				walk(emb, depth+1, fn)
			}
			return
		}
		for _, m := range v.Members {
			walk(m.Value, depth+1, fn)
		}
	case jsonorder.Array:
		for _, it := range v.Items {
			walk(it, depth+1, fn)
		}
	}
}

// resource checks one object that carries affordances or next_actions.
type resource struct {
	a    *analysis
	in   *checks.Input
	x    *exchange.Exchange
	v    *jsonorder.Value
	root bool
}

func (r *resource) issue(id string, v *jsonorder.Value, msg, expected, actual string) {
	r.a.add(id, hypermedia.Issue{X: r.x, Pointer: v.Pointer, Value: v, Message: msg, Expected: expected, Actual: actual})
}

func (r *resource) check() {
	r.affordances()
	r.unavailable()
	r.nextActions()
	r.leaks()
}

// versions returns the representation's own versions: its version member
// and, for the document's root, its ETag.
func (r *resource) versions() (member, etag string) {
	if v := r.v.Get("version"); v.Is(jsonorder.String) || v.Is(jsonorder.Number) {
		member = v.Text
	}
	if r.root && r.x.Response != nil {
		etag = opaqueTag(r.x.Response.Header.Get("ETag"))
	}
	return member, etag
}

// opaqueTag strips the weakness prefix and quotes of an entity tag.
func opaqueTag(etag string) string {
	return strings.Trim(strings.TrimPrefix(strings.TrimSpace(etag), "W/"), `"`)
}

func (r *resource) affordances() {
	list := r.v.Get("affordances")
	if list == nil {
		return
	}
	if list.Kind != jsonorder.Array {
		r.issue(idShape, list, fmt.Sprintf("affordances is a JSON %s, not an array", list.Kind), "array", list.Kind.String())
		return
	}
	member, etag := r.versions()
	bound := false
	for _, it := range list.Items {
		name, ok := r.operationRef(it, "affordance")
		if !ok {
			continue
		}
		rf := ref{x: r.x, v: it, name: name, kind: "operation", target: it.Get("target"), arguments: it.Get("arguments"), constraints: it.Get("constraints")}
		r.members(it, name, &rf)
		r.a.refs = append(r.a.refs, rf)
		if vv := it.Get("validForVersion"); vv != nil {
			bound = true
			r.versionBinding(name, vv, member, etag)
		}
	}
	if !bound && len(list.Items) > 0 && (member != "" || etag != "") {
		what := "version " + member
		if member == "" {
			what = "ETag " + etag
		}
		r.issue(idVersionUnbound, list, fmt.Sprintf("the resource exposes %s but none of its %d affordances carries validForVersion, so clients cannot make conditional requests", what, len(list.Items)),
			"validForVersion on each affordance", "(absent)")
	}
}

// operationRef validates that an entry is an object with an operation
// identifier and returns it.
func (r *resource) operationRef(it *jsonorder.Value, what string) (string, bool) {
	if it.Kind != jsonorder.Object {
		r.issue(idShape, it, fmt.Sprintf("%s entry is a JSON %s, not an object with an operation", what, it.Kind), "object", it.Kind.String())
		return "", false
	}
	op := it.Get("operation")
	name, ok := op.Str()
	if !ok || strings.TrimSpace(name) == "" {
		at := it
		if op != nil {
			at = op
		}
		r.issue(idShape, at, fmt.Sprintf("%s entry has no operation identifier (operation is %s)", what, op.Literal()), `"operation": "<operationId or URI>"`, op.Literal())
		return "", false
	}
	return name, true
}

// members checks the types of an affordance's optional members.
func (r *resource) members(it *jsonorder.Value, name string, rf *ref) {
	want := map[string]jsonorder.Kind{"target": jsonorder.String, "arguments": jsonorder.Object, "constraints": jsonorder.Object}
	for _, key := range []string{"target", "arguments", "constraints"} {
		v := it.Get(key)
		if v == nil || v.Kind == want[key] {
			continue
		}
		r.issue(idShape, v, fmt.Sprintf("affordance %s has %s of type %s, not %s", name, key, v.Kind, want[key]), want[key].String(), v.Kind.String())
		switch key {
		case "target":
			rf.target = nil
		case "arguments":
			rf.arguments = nil
		default:
			rf.constraints = nil
		}
	}
	if c := rf.constraints; c != nil {
		for _, m := range c.Members {
			if m.Value.Kind != jsonorder.Object {
				r.issue(idShape, m.Value, fmt.Sprintf("affordance %s constraint %q is a JSON %s, not a schema fragment", name, m.Key, m.Value.Kind), "object", m.Value.Kind.String())
			}
		}
	}
}

func (r *resource) versionBinding(name string, vv *jsonorder.Value, member, etag string) {
	got := vv.Text
	if !vv.Is(jsonorder.String) && !vv.Is(jsonorder.Number) {
		r.issue(idShape, vv, fmt.Sprintf("affordance %s validForVersion is a JSON %s, not a version string", name, vv.Kind), "string", vv.Kind.String())
		return
	}
	if member == "" && etag == "" {
		r.issue(idVersionMismatch, vv, fmt.Sprintf("affordance %s is valid for version %q but the resource exposes no version member or ETag to compare with", name, got),
			"a version member or an ETag", "(none)")
		return
	}
	if got == member || (etag != "" && opaqueTag(got) == etag) {
		return
	}
	var have []string
	if member != "" {
		have = append(have, "version "+member)
	}
	if etag != "" {
		have = append(have, "ETag "+etag)
	}
	r.issue(idVersionMismatch, vv, fmt.Sprintf("affordance %s is valid for version %q but the representation is at %s", name, got, strings.Join(have, ", ")),
		strings.Join(have, " or "), got)
}

func (r *resource) unavailable() {
	list := r.v.Get("unavailableAffordances")
	if list == nil {
		return
	}
	if list.Kind != jsonorder.Array {
		r.issue(idShape, list, fmt.Sprintf("unavailableAffordances is a JSON %s, not an array", list.Kind), "array", list.Kind.String())
		return
	}
	for _, it := range list.Items {
		if name, ok := r.operationRef(it, "unavailable affordance"); ok {
			r.a.refs = append(r.a.refs, ref{x: r.x, v: it, name: name, kind: "operation"})
		}
	}
}

func (r *resource) nextActions() {
	list := r.v.Get("next_actions")
	if list == nil {
		return
	}
	if list.Kind != jsonorder.Array {
		r.issue(idShape, list, fmt.Sprintf("next_actions is a JSON %s, not an array", list.Kind), "array", list.Kind.String())
		return
	}
	for _, it := range list.Items {
		kind, name := "", ""
		for _, k := range []string{"tool", "operation"} {
			if s, ok := it.Get(k).Str(); ok && strings.TrimSpace(s) != "" {
				kind, name = k, s
				break
			}
		}
		if name == "" {
			r.issue(idShape, it, "next_actions entry names neither a tool nor an operation", `{"tool": "<name>"}`, it.Literal())
			continue
		}
		r.a.next = append(r.a.next, ref{x: r.x, v: it, name: name, kind: kind})
	}
	member, state := hypermedia.StateOf(r.v)
	if len(list.Items) > 0 && terminalStates[strings.ToLower(state)] {
		r.issue(idTerminal, list, fmt.Sprintf("next_actions offers %d actions although %s is %q, a terminal state; an empty list means the flow is finished", len(list.Items), member, state),
			"[] in a terminal state", fmt.Sprintf("%d actions", len(list.Items)))
	}
}

// terminalStates are state names that end a lifecycle in every domain the
// scanner knows of. States after which a follow-up flow is common (shipped,
// delivered, paid) are deliberately absent.
var terminalStates = map[string]bool{
	"cancelled": true, "canceled": true, "completed": true, "closed": true, "finished": true,
	"rejected": true, "refunded": true, "expired": true, "archived": true, "deleted": true, "terminated": true,
}
