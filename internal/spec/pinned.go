package spec

import "strings"

// maxPinDepth bounds how deep allOf, oneOf and anyOf are followed in search
// of a pinned property: resolved $refs may nest without end.
const maxPinDepth = 4

// PinnedValues are the values a schema pins one of its object's properties
// to (a problem's type or status): the const and enum of the property, at
// the root or in any member of allOf, which each apply, and of every member
// of a oneOf or anyOf, which together give the values the property may
// take. A oneOf or anyOf with a member that does not pin the property pins
// nothing through it. $refs are resolved when the document is loaded. Nil
// when nothing pins the property.
func PinnedValues(schema map[string]any, member string) []any {
	return pinned(schema, member, 0)
}

func pinned(schema map[string]any, member string, depth int) []any {
	if schema == nil || depth > maxPinDepth {
		return nil
	}
	var out []any
	if prop := propertyOf(schema, member); prop != nil {
		if v, ok := prop["const"]; ok {
			out = append(out, v)
		}
		if enum, ok := prop["enum"].([]any); ok {
			out = append(out, enum...)
		}
	}
	for _, sub := range members(schema, "allOf") {
		out = append(out, pinned(sub, member, depth+1)...)
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		var union []any
		subs := members(schema, kw)
		for _, sub := range subs {
			vs := pinned(sub, member, depth+1)
			if vs == nil {
				union = nil
				break
			}
			union = append(union, vs...)
		}
		if len(subs) > 0 {
			out = append(out, union...)
		}
	}
	return out
}

// Unpinned is schema without what PinnedValues reads for member (the const
// and enum of the property, wherever PinnedValues finds them), so that the
// rest of the schema can be compared apart from the pinned values. The maps
// on the way are copied; schema is left as it is.
func Unpinned(schema map[string]any, member string) map[string]any {
	return unpin(schema, member, 0)
}

func unpin(schema map[string]any, member string, depth int) map[string]any {
	if schema == nil || depth > maxPinDepth {
		return schema
	}
	out := make(map[string]any, len(schema))
	for k, v := range schema {
		out[k] = v
	}
	if prop := propertyOf(schema, member); prop != nil {
		p := make(map[string]any, len(prop))
		for k, v := range prop {
			if k != "const" && k != "enum" {
				p[k] = v
			}
		}
		props := make(map[string]any, len(schema["properties"].(map[string]any)))
		for k, v := range schema["properties"].(map[string]any) {
			props[k] = v
		}
		props[member] = p
		out["properties"] = props
	}
	for _, kw := range []string{"allOf", "oneOf", "anyOf"} {
		list, ok := schema[kw].([]any)
		if !ok {
			continue
		}
		copied := make([]any, len(list))
		for i, sub := range list {
			if m, ok := sub.(map[string]any); ok {
				copied[i] = unpin(m, member, depth+1)
			} else {
				copied[i] = sub
			}
		}
		out[kw] = copied
	}
	return out
}

func propertyOf(schema map[string]any, member string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	prop, _ := props[member].(map[string]any)
	return prop
}

func members(schema map[string]any, keyword string) []map[string]any {
	list, _ := schema[keyword].([]any)
	var out []map[string]any
	for _, sub := range list {
		if m, ok := sub.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// IsErrorStatus reports a response key of an error: a 4xx or 5xx code, its
// range (4XX, in either case), or default, which is where a document
// declares the errors it does not list one by one.
func IsErrorStatus(code string) bool {
	if code == "default" {
		return true
	}
	return len(code) == 3 && (code[0] == '4' || code[0] == '5') &&
		(strings.EqualFold(code[1:], "XX") || code[1] >= '0' && code[1] <= '9' && code[2] >= '0' && code[2] <= '9')
}
