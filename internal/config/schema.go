package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// SchemaID is where the published schema lives.
const SchemaID = "https://github.com/agentready/agentready/raw/main/docs/schema/agentready-config.schema.json"

// durationPattern is what time.ParseDuration accepts, minus signs: the
// schema cannot express "positive", but it can reject "10 seconds".
const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// Schema renders the JSON Schema (draft 2020-12) of the file from the Go
// types, so that the two cannot drift. Check IDs and families are listed so
// that editors can complete them.
func Schema(k Known) ([]byte, error) {
	g := schemaGen{known: k}
	root := g.object(fileShape())
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "agentready configuration (" + FileName + ")"
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

type schemaGen struct{ known Known }

func (g schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name := yamlName(sf)
		if name == "" {
			continue
		}
		props[name] = g.field(sf)
		if !strings.Contains(sf.Tag.Get("yaml"), ",omitempty") {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		slices.Sort(required)
		s["required"] = required
	}
	return s
}

func (g schemaGen) field(sf reflect.StructField) map[string]any {
	t := sf.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var s map[string]any
	switch t.Kind() {
	case reflect.Map:
		s = map[string]any{"type": "object"}
		if t.Elem().Kind() != reflect.Interface {
			s["additionalProperties"] = g.elem(t.Elem(), sf)
		}
		if names := g.names(sf.Tag.Get("names")); names != nil {
			s["propertyNames"] = names
		}
	case reflect.Slice:
		s = map[string]any{"type": "array", "items": g.elem(t.Elem(), sf)}
		if sf.Tag.Get("one") == "true" {
			s = map[string]any{"oneOf": []any{g.elem(t.Elem(), sf), s}}
		}
	case reflect.Struct:
		s = g.object(t)
	default:
		s = g.scalar(t, sf.Tag.Get("enum"), sf.Tag.Get("format"))
		if names := g.names(sf.Tag.Get("names")); names != nil {
			s = names
		}
		if m := sf.Tag.Get("min"); m != "" {
			n, _ := strconv.Atoi(m)
			s["minimum"] = n
		}
		if m := sf.Tag.Get("max"); m != "" {
			n, _ := strconv.Atoi(m)
			s["maximum"] = n
		}
	}
	if d := sf.Tag.Get("doc"); d != "" {
		s["description"] = d
	}
	return s
}

func (g schemaGen) elem(t reflect.Type, sf reflect.StructField) map[string]any {
	if t.Kind() == reflect.Struct {
		return g.object(t)
	}
	return g.scalar(t, sf.Tag.Get("enum"), sf.Tag.Get("format"))
}

func (g schemaGen) scalar(t reflect.Type, enum, format string) map[string]any {
	s := map[string]any{}
	switch t.Kind() {
	case reflect.Bool:
		s["type"] = "boolean"
	case reflect.Int, reflect.Int64:
		s["type"] = "integer"
	case reflect.Float64:
		s["type"] = "number"
	default:
		s["type"] = "string"
	}
	if enum != "" {
		var vals []any
		for _, v := range strings.Split(enum, ",") {
			if n, err := strconv.Atoi(v); err == nil && t.Kind() != reflect.String {
				vals = append(vals, n)
			} else {
				vals = append(vals, v)
			}
		}
		s["enum"] = vals
	}
	switch format {
	case "duration":
		s["pattern"] = durationPattern
	case "date":
		s["format"] = "date"
		s["pattern"] = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
	}
	return s
}

// names is the schema of a key or value that names a check, a family or an
// environment variable, or nil.
func (g schemaGen) names(kind string) map[string]any {
	switch kind {
	case "checks":
		// The checks of the file's own rules are named too.
		return map[string]any{"type": "string", "anyOf": []any{
			map[string]any{"enum": sorted(g.known.Checks)},
			map[string]any{"pattern": "^" + CustomFamily + "-" + strings.TrimPrefix(ruleID.String(), "^")},
		}}
	case "families":
		return map[string]any{"type": "string", "enum": sorted(g.known.Families)}
	case "env":
		return map[string]any{"type": "string", "pattern": envName.String()}
	case "rules":
		return map[string]any{"type": "string", "pattern": ruleID.String()}
	}
	return nil
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
