package openapihal

// responseDialect copies a resolved OpenAPI schema into JSON Schema 2020-12
// as a response validator should read it. For OpenAPI 3.0 it translates
// nullable (a null is allowed besides the type, and in the enum) and the
// boolean exclusiveMinimum/exclusiveMaximum of draft 4. In every version a
// writeOnly member is not required of a response, format stays an
// annotation, and a schema the loader could not resolve (a cycle cut short)
// accepts anything.
//
// A required member that the schema's own properties do not define is not
// required: documents get that wrong far more often than servers do (a
// schema that requires "items" and never describes it). Overlapping oneOf
// branches are the other such mistake; the validator's errors are read with
// that in mind (see isLeaf).
func responseDialect(s map[string]any, v30 bool) map[string]any {
	return dialect(s, v30, 0).(map[string]any)
}

// maxDialectDepth matches the loader's: deeper schemas were cut already.
const maxDialectDepth = 64

// subschemaMaps are keywords whose value maps names to schemas.
var subschemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// subschemaLists are keywords whose value is a list of schemas.
var subschemaLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}

// subschemas are keywords whose value is one schema.
var subschemas = map[string]bool{"items": true, "additionalProperties": true, "not": true, "if": true, "then": true, "else": true,
	"contains": true, "propertyNames": true, "unevaluatedItems": true, "unevaluatedProperties": true, "additionalItems": true}

func dialect(v any, v30 bool, depth int) any {
	s, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool {
			return b
		}
		return map[string]any{} // nil: cut by the loader
	}
	if depth > maxDialectDepth {
		return map[string]any{}
	}
	out := make(map[string]any, len(s))
	for k, val := range s {
		switch {
		case subschemaMaps[k]:
			m, _ := val.(map[string]any)
			sub := make(map[string]any, len(m))
			for name, child := range m {
				sub[name] = dialect(child, v30, depth+1)
			}
			out[k] = sub
		case subschemaLists[k]:
			l, _ := val.([]any)
			sub := make([]any, len(l))
			for i, child := range l {
				sub[i] = dialect(child, v30, depth+1)
			}
			out[k] = sub
		case subschemas[k]:
			if l, isList := val.([]any); isList && k == "items" {
				// Draft 4 tuple items, as OpenAPI 3.0 never allows them: keep
				// them valid by reading them as prefixItems.
				sub := make([]any, len(l))
				for i, child := range l {
					sub[i] = dialect(child, v30, depth+1)
				}
				out["prefixItems"] = sub
				continue
			}
			out[k] = dialect(val, v30, depth+1)
		case k == "format", k == "$schema", k == "$id":
			// format is an annotation; the document's own dialect and
			// identifiers are replaced by the scanner's.
		default:
			out[k] = val
		}
	}
	if v30 {
		translate30(s, out)
	}
	keepDefinedRequired(out)
	return out
}

// translate30 rewrites the OpenAPI 3.0 keywords 2020-12 reads otherwise.
func translate30(in, out map[string]any) {
	if nullable, _ := in["nullable"].(bool); nullable {
		if t, ok := in["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
		if e, ok := in["enum"].([]any); ok {
			out["enum"] = append(append([]any(nil), e...), nil)
		}
	}
	delete(out, "nullable")
	for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		excl, isBool := in[b[0]].(bool)
		if !isBool {
			continue
		}
		delete(out, b[0])
		if limit, ok := in[b[1]]; ok && excl {
			out[b[0]] = limit
			delete(out, b[1])
		}
	}
}

// keepDefinedRequired keeps the required members a response must have: a
// writeOnly member is sent, never returned, and one the schema's properties
// do not define is left to the schemas that do.
func keepDefinedRequired(s map[string]any) {
	req, ok := s["required"].([]any)
	props, _ := s["properties"].(map[string]any)
	if !ok || props == nil {
		return
	}
	kept := make([]any, 0, len(req))
	for _, r := range req {
		name, _ := r.(string)
		p, defined := props[name].(map[string]any)
		if !defined || p["writeOnly"] == true {
			continue
		}
		kept = append(kept, r)
	}
	s["required"] = kept
}
