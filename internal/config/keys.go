package config

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	yaml "github.com/pb33f/go-yaml"

	"github.com/agentready/agentready/internal/textdist"
)

// fileShape is the type the key walk follows.
func fileShape() reflect.Type { return reflect.TypeFor[File]() }

// checkKeys walks a YAML node along the Go type it will be decoded into and
// reports every key the type does not have, with its line and the closest
// known key. Type mismatches are left to the decoder.
func checkKeys(n *yaml.Node, t reflect.Type) error {
	var errs []error
	walkKeys(n, t, "", &errs)
	return errors.Join(errs...)
}

func walkKeys(n *yaml.Node, t reflect.Type, where string, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.AliasNode && n.Alias != nil:
		walkKeys(n.Alias, t, where, errs)
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		walkStruct(n, t, where, errs)
	case t.Kind() == reflect.Slice && n.Kind == yaml.MappingNode && t.Elem().Kind() == reflect.Struct:
		// A list written as its one item (a rule's then).
		walkKeys(n, t.Elem(), where, errs)
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			walkKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", where, i), errs)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkKeys(n.Content[i+1], t.Elem(), join(where, n.Content[i].Value), errs)
		}
	}
}

func walkStruct(n *yaml.Node, t reflect.Type, where string, errs *[]error) {
	fields := yamlFields(t)
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		f, ok := fields[key.Value]
		if !ok {
			msg := fmt.Sprintf("line %d: unknown key %q", key.Line, key.Value)
			if where != "" {
				msg += " in " + where
			}
			if s := Suggest(key.Value, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += " (known keys: " + strings.Join(names, ", ") + ")"
			}
			*errs = append(*errs, errors.New(msg))
			continue
		}
		walkKeys(val, f.Type, join(where, key.Value), errs)
	}
}

// yamlFields maps the YAML keys of a struct to its fields.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name := yamlName(f); name != "" {
			out[name] = f
		}
	}
	return out
}

// yamlName is the key of a field, or "" for fields not in the file.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || name == "" {
		return ""
	}
	return name
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// Suggest returns the candidate closest to s, or "" when none is close
// enough to be a likely typo. Ties go to the first in sorted order, so the
// hint is the same on every run.
func Suggest(s string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	norm := func(x string) string { return strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(x)) }
	best, bestDist := "", len(s)/2+2
	for _, c := range sorted {
		if norm(c) == norm(s) {
			return c
		}
		if d := textdist.Distance(norm(s), norm(c), bestDist-1); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
