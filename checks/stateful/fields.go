package stateful

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/jsonorder"
)

// named is one field name as a member lists it.
type named struct {
	member string // inputs[].field, allowed_patch, missing or depends_on
	name   string
	v      *jsonorder.Value
}

// patchFields judges the four lists that name patch fields against the
// patch schema of the node's next actions and against each other.
func (n *node) patchFields(entries []entry) {
	inputs, depends := n.inputFields()
	allowed := n.names("allowed_patch")
	missing := n.names("missing")
	var schema map[string]any
	for _, e := range entries {
		if schema = n.a.catalog.patchSchema(e.name); schema != nil {
			break
		}
	}
	hasAllowed := n.v.Get("allowed_patch").Is(jsonorder.Array)
	for _, f := range concat(inputs, allowed, missing, depends) {
		why := ""
		switch {
		case schema != nil && !inSchema(schema, f.name):
			why = "the patch schema of the node's next actions has no such field"
		case f.member == "missing" && hasAllowed && !mentions(allowed, f.name):
			why = "allowed_patch does not list it, so the missing field cannot be supplied"
		case f.member != "inputs[].field" && len(inputs) > 0 && !mentions(inputs, f.name):
			why = "no inputs[].field describes it"
		default:
			continue
		}
		n.a.add(idPatchFields, n.x, f.v, f.name,
			fmt.Sprintf("%s names %q, but %s", f.member, f.name, why), "a field of the patch", f.name)
	}
}

func (n *node) inputFields() (fields, depends []named) {
	for _, it := range n.v.Get("inputs").Elements() {
		if s, ok := it.Get("field").Str(); ok && s != "" {
			fields = append(fields, named{"inputs[].field", s, it.Get("field")})
		}
		for _, d := range it.Get("depends_on").Elements() {
			if s, ok := d.Str(); ok && s != "" {
				depends = append(depends, named{"depends_on", s, d})
			}
		}
	}
	return fields, depends
}

func (n *node) names(member string) []named {
	var out []named
	for _, it := range n.v.Get(member).Elements() {
		if s, ok := it.Str(); ok && s != "" {
			out = append(out, named{member, s, it})
		}
	}
	return out
}

func concat(lists ...[]named) []named {
	var out []named
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// mentions reports a list naming the field, a field inside it, or the
// field that holds it: "items" and "items[].quantity" name the same data.
func mentions(list []named, name string) bool {
	for _, f := range list {
		if related(f.name, name) {
			return true
		}
	}
	return false
}

func related(a, b string) bool {
	return a == b || within(a, b) || within(b, a)
}

func within(outer, inner string) bool {
	return strings.HasPrefix(inner, outer) && len(inner) > len(outer) && (inner[len(outer)] == '.' || inner[len(outer)] == '[')
}

// inSchema walks a field path (items[].quantity) through a schema's
// properties and array items. Where a schema does not enumerate what it
// holds, the path is taken to exist: only a schema that lists its
// properties can say a field is not one of them.
func inSchema(schema map[string]any, path string) bool {
	s := schema
	for _, seg := range strings.Split(path, ".") {
		name, arrays := seg, 0
		for strings.HasSuffix(name, "[]") {
			name, arrays = strings.TrimSuffix(name, "[]"), arrays+1
		}
		if name != "" {
			props := activeplan.Properties(s)
			if props == nil {
				return true
			}
			next, ok := props[name].(map[string]any)
			if !ok {
				return false
			}
			s = next
		}
		for range arrays {
			items, ok := s["items"].(map[string]any)
			if !ok {
				return true
			}
			s = items
		}
	}
	return true
}
