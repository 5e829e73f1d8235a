package halforms

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/checks/internal/hypermedia"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// specIssues compares each template with the operation its method and
// target name, filling the spec-dependent checks' issues.
func specIssues(a *analysis, doc *spec.Document) map[string][]hypermedia.Issue {
	out := map[string][]hypermedia.Issue{}
	add := func(id string, is hypermedia.Issue) { out[id] = append(out[id], is) }
	ix := doc.Index()
	for _, t := range a.templates {
		base := hypermedia.Issue{X: t.doc.X, Pointer: t.v.Pointer, Value: t.v, Subject: t.key}
		op := ix.Match(t.method, t.target)
		if op == nil {
			is := base
			is.Message = fmt.Sprintf("template %q submits %s %s, which matches no operation of the OpenAPI document", t.key, t.method, exchange.PathOf(t.target))
			is.Expected, is.Actual = "a documented operation", t.method+" "+exchange.PathOf(t.target)
			add(idTemplateOperation, is)
			continue
		}
		if doc.UsesHALRel && t.key != "default" && !relNames(op, t.key) {
			is := base
			is.Message = fmt.Sprintf("template %q submits to %s (%s) whose x-hal-rel %v names neither %q nor a namespaced form of it",
				t.key, op.Key(), orDash(op.OperationID), op.HALRels, t.key)
			is.Expected, is.Actual = "x-hal-rel including "+t.key, strings.Join(op.HALRels, ", ")
			add(idTemplateOperation, is)
		}
		fields, ok := inputFields(op, t)
		if !ok {
			continue
		}
		propertyIssues(t, op, fields, base, add)
	}
	return out
}

// relNames reports whether the operation's x-hal-rel (or, as Spring HATEOAS
// names templates after handler methods, its operationId) names key.
func relNames(op *spec.Operation, key string) bool {
	if op.OperationID == key {
		return true
	}
	for _, rel := range op.HALRels {
		if rel == key {
			return true
		}
		if _, name, ok := strings.Cut(rel, ":"); ok && name == key {
			return true
		}
	}
	return false
}

// fields is what an operation accepts: names, and which are required.
type fields struct {
	known    map[string]bool
	required map[string]bool
}

// inputFields gathers the request body schema's properties and the query
// parameters; ok is false when the operation does not enumerate its input
// (no schema, or a free-form one), since then nothing can be compared.
func inputFields(op *spec.Operation, t *template) (fields, bool) {
	f := fields{known: map[string]bool{}, required: map[string]bool{}}
	enumerated := false
	contentType, _ := t.v.Get("contentType").Str()
	if schema := bodySchema(op, contentType); schema != nil {
		if props, req, ok := objectSchema(schema, 0); ok {
			enumerated = true
			for _, p := range props {
				f.known[p] = true
			}
			for _, r := range req {
				f.required[r] = true
			}
		}
	}
	for _, p := range op.Parameters {
		if p.In == "query" {
			enumerated = true
			f.known[p.Name] = true
			if p.Required {
				f.required[p.Name] = true
			}
		}
	}
	return f, enumerated
}

// bodySchema picks the schema for the template's content type, else JSON.
func bodySchema(op *spec.Operation, contentType string) map[string]any {
	if len(op.RequestBody) == 0 {
		return nil
	}
	want := strings.ToLower(strings.TrimSpace(strings.SplitN(contentType, ";", 2)[0]))
	if s, ok := op.RequestBody[want].(map[string]any); ok && want != "" {
		return s
	}
	return activeplan.JSONBody(op)
}

// objectSchema returns the property names and required names of an object
// schema, merging allOf; ok is false for schemas that do not list
// properties.
func objectSchema(s map[string]any, depth int) (props, required []string, ok bool) {
	if depth > 8 {
		return nil, nil, false
	}
	if m, isMap := s["properties"].(map[string]any); isMap {
		ok = true
		for k := range m {
			props = append(props, k)
		}
	}
	if r, isList := s["required"].([]any); isList {
		for _, v := range r {
			if name, isStr := v.(string); isStr {
				required = append(required, name)
			}
		}
	}
	if all, isList := s["allOf"].([]any); isList {
		for _, sub := range all {
			if sm, isMap := sub.(map[string]any); isMap {
				p, r, subOK := objectSchema(sm, depth+1)
				ok = ok || subOK
				props, required = append(props, p...), append(required, r...)
			}
		}
	}
	if ap, isBool := s["additionalProperties"].(bool); ok && (!isBool || ap) && s["additionalProperties"] != nil {
		// Any extra member is accepted: unknown names cannot be judged.
		return nil, nil, false
	}
	sort.Strings(props)
	return props, required, ok
}

func propertyIssues(t *template, op *spec.Operation, f fields, base hypermedia.Issue, add func(string, hypermedia.Issue)) {
	names := map[string]bool{}
	for _, p := range t.properties {
		names[p.name] = true
		if f.known[p.name] {
			continue
		}
		is := base
		is.Pointer, is.Value, is.Subject = p.v.Pointer, p.v, t.key+"."+p.name
		is.Expected, is.Actual = "a field of "+op.Key(), p.name
		if p.required {
			is.Message = fmt.Sprintf("template %q requires property %q, which the request schema of %s does not define; agents would send a field the server rejects", t.key, p.name, op.Key())
			add(idPropertyUnknown, is)
			continue
		}
		is.Message = fmt.Sprintf("template %q offers property %q, which the request schema of %s does not define", t.key, p.name, op.Key())
		add(idPropertySchema, is)
	}
	if t.method == "PATCH" {
		return // a partial update may leave any field out
	}
	var required []string
	for name := range f.required {
		required = append(required, name)
	}
	slices.Sort(required)
	for _, name := range required {
		is := base
		is.Subject = t.key + "." + name
		switch {
		case !names[name]:
			is.Message = fmt.Sprintf("template %q lacks property %q, which %s requires; agents filling the form would omit it", t.key, name, op.Key())
			is.Expected, is.Actual = name+" (required)", "(absent)"
		case !propertyRequired(t, name):
			p := propertyNamed(t, name)
			is.Pointer, is.Value = p.v.Pointer, p.v
			is.Message = fmt.Sprintf("template %q property %q is not marked required although %s requires it", t.key, name, op.Key())
			is.Expected, is.Actual = `"required": true`, p.v.Get("required").Literal()
		default:
			continue
		}
		add(idPropertySchema, is)
	}
}

func propertyNamed(t *template, name string) property {
	for _, p := range t.properties {
		if p.name == name {
			return p
		}
	}
	return property{}
}

func propertyRequired(t *template, name string) bool { return propertyNamed(t, name).required }

func orDash(s string) string {
	if s == "" {
		return "no operationId"
	}
	return s
}
