package surfacediff

import (
	"maps"
	"slices"

	"github.com/agentready/agentready/internal/jsonorder"
)

// maxSchemaDepth bounds the recursion into nested schemas: a hostile
// schema is bounded by the decoder already, but a diff need not go deeper.
const maxSchemaDepth = 16

// handled are the keywords compareSchema judges one by one; any other
// keyword that changed is a compatible change at its own pointer.
var handled = map[string]bool{"type": true, "enum": true, "properties": true, "required": true}

// compareSchema compares an input schema before and after; base is the
// schema's pointer in the snapshot. What narrows the inputs the server
// accepts is breaking: a property removed, a property newly required, a type
// narrowed, an enum shrunk (or one added where any value went). Everything
// else is compatible.
func compareSchema(base string, b, a any) []Diff {
	return schemaDiff{base: base}.compare("", b, a, 0)
}

// compareOutputSchema compares a schema of what the server sends (a
// response body, a tool's structured output); base is its pointer in the
// snapshot. What a client reads is the other way round from what it sends:
// breaking is a property removed, a property no longer required (it may be
// absent now), a type changed to admit values of a type it did not (or a
// null, with OpenAPI 3.0's nullable), and, as for inputs, an enum shrunk or
// added (a value a client waited for never comes again). A property added,
// required or not, an enum grown and a type narrowed are compatible.
func compareOutputSchema(base string, b, a any) []Diff {
	return schemaDiff{base: base, output: true}.compare("", b, a, 0)
}

// schemaDiff compares schemas under one base pointer; rel is a pointer
// relative to it, which messages use. output says the schemas describe what
// the server sends rather than what it accepts.
type schemaDiff struct {
	base   string
	output bool
}

// diff is a change at rel; where is the schema it is said to be in, for
// the message ("" for the root).
func (s schemaDiff) diff(rel, where, before, after string, breaking bool, why string) Diff {
	if where != "" {
		why += " in " + where
	}
	return Diff{Pointer: s.base + rel, Before: before, After: after, Breaking: breaking, Why: why}
}

func (s schemaDiff) compare(rel string, b, a any, depth int) []Diff {
	bm, bok := b.(map[string]any)
	am, aok := a.(map[string]any)
	if !bok || !aok || depth >= maxSchemaDepth {
		if jsonText(b) == jsonText(a) {
			return nil
		}
		return []Diff{s.diff(rel, rel, valueText(b), valueText(a), false, "schema changed")}
	}
	var out []Diff
	out = append(out, s.compareType(rel, bm, am)...)
	out = append(out, s.compareEnum(rel, bm, am)...)
	out = append(out, s.compareProperties(rel, bm, am, depth)...)
	for _, k := range slices.Sorted(maps.Keys(union(bm, am))) {
		if handled[k] || jsonText(bm[k]) == jsonText(am[k]) {
			continue
		}
		vb, inB := bm[k]
		va, inA := am[k]
		if k == "items" && inB && inA {
			out = append(out, s.compare(rel+"/items", vb, va, depth+1)...)
			continue
		}
		breaking, why := false, k+" changed"
		if k == "nullable" && s.output && va == true {
			breaking, why = true, "may now be null"
		}
		out = append(out, s.diff(jsonorder.Join(rel, k), rel, present(vb, inB), present(va, inA), breaking, why))
	}
	return out
}

func union(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func present(v any, ok bool) string {
	if !ok {
		return ""
	}
	return jsonText(v)
}

func valueText(v any) string {
	if v == nil {
		return ""
	}
	return jsonText(v)
}

// types is the schema's type keyword as a set; nil when it has none (any
// type goes).
func types(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if name, ok := x.(string); ok {
				out = append(out, name)
			}
		}
		return out
	}
	return nil
}

// admits reports whether a value of type t still validates against a type
// set: an integer is a number.
func admits(set []string, t string) bool {
	return slices.Contains(set, t) || t == "integer" && slices.Contains(set, "number")
}

func (s schemaDiff) compareType(rel string, b, a map[string]any) []Diff {
	if jsonText(b["type"]) == jsonText(a["type"]) {
		return nil
	}
	tb, ta := types(b), types(a)
	vb, inB := b["type"]
	va, inA := a["type"]
	narrowed := ta != nil && (tb == nil || slices.ContainsFunc(tb, func(t string) bool { return !admits(ta, t) }))
	widened := tb != nil && (ta == nil || slices.ContainsFunc(ta, func(t string) bool { return !admits(tb, t) }))
	why := "type widened"
	if narrowed {
		why = "type narrowed"
	}
	breaking := narrowed
	if s.output {
		// A client reads every type the schema admitted; one it did not
		// is a value its code was not written for.
		breaking = widened
		if widened {
			why = "type changed"
		}
	}
	return []Diff{s.diff(rel+"/type", rel, present(vb, inB), present(va, inA), breaking, why)}
}

func (s schemaDiff) compareEnum(rel string, b, a map[string]any) []Diff {
	if jsonText(b["enum"]) == jsonText(a["enum"]) {
		return nil
	}
	eb, inB := b["enum"].([]any)
	ea, inA := a["enum"].([]any)
	breaking, why := false, "enum dropped"
	switch {
	case !inA:
	case !inB:
		breaking, why = true, "enum added"
	default:
		breaking = slices.ContainsFunc(eb, func(v any) bool {
			return !slices.ContainsFunc(ea, func(x any) bool { return jsonText(x) == jsonText(v) })
		})
		why = "enum grown"
		if breaking {
			why = "enum shrunk"
		}
	}
	return []Diff{s.diff(rel+"/enum", rel, present(b["enum"], inB), present(a["enum"], inA), breaking, why)}
}

// compareProperties compares the properties both declare, and reports those
// removed, those added, and those whose required state changed.
func (s schemaDiff) compareProperties(rel string, b, a map[string]any, depth int) []Diff {
	pb, _ := b["properties"].(map[string]any)
	pa, _ := a["properties"].(map[string]any)
	rb, ra := required(b), required(a)
	var out []Diff
	for _, name := range slices.Sorted(maps.Keys(union(pb, pa))) {
		vb, inB := pb[name]
		va, inA := pa[name]
		p := rel + "/properties/" + jsonorder.Escape(name)
		switch {
		case inB && !inA:
			out = append(out, s.diff(p, rel, jsonText(vb), "", true, "property "+name+" removed"))
		case !inB && inA && s.output:
			out = append(out, s.diff(p, rel, "", jsonText(va), false, "property "+name+" added"))
		case !inB && inA && ra[name]:
			out = append(out, s.diff(p, rel, "", jsonText(va), true, "new required property "+name))
		case !inB && inA:
			out = append(out, s.diff(p, rel, "", jsonText(va), false, "optional property "+name+" added"))
		default:
			out = append(out, s.compare(p, vb, va, depth+1)...)
			before, after := jsonText(sortedKeys(rb)), jsonText(sortedKeys(ra))
			// An input newly required breaks the senders; an output no
			// longer required breaks the readers.
			if ra[name] && !rb[name] {
				out = append(out, s.diff(rel+"/required", rel, before, after, !s.output, "property "+name+" now required"))
			} else if rb[name] && !ra[name] {
				out = append(out, s.diff(rel+"/required", rel, before, after, s.output, "property "+name+" no longer required"))
			}
		}
	}
	return out
}

func required(s map[string]any) map[string]bool {
	out := map[string]bool{}
	list, _ := s["required"].([]any)
	for _, r := range list {
		if name, ok := r.(string); ok {
			out[name] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := slices.Sorted(maps.Keys(m))
	if out == nil {
		return []string{}
	}
	return out
}
