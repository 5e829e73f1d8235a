package spec

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// maxPattern bounds the schema patterns compiled: a document is read from
// the scanned app, and a pattern longer than this is taken as met rather
// than compiled.
const maxPattern = 512

// SchemaType is the schema's type, the first non-null one of a 3.1 list.
func SchemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if name, ok := e.(string); ok && name != "null" {
				return name
			}
		}
	}
	return ""
}

// Fits reports whether a value written in a URL fits schema s: its type,
// its enum and its pattern. An array fits when each of
// its comma-separated elements fits the items schema: a value seen under
// the name of an array of enums (a "type" of "user") is not one of them.
func Fits(s map[string]any, v string) bool {
	if items, ok := s["items"].(map[string]any); ok && SchemaType(s) == "array" {
		for _, elem := range strings.Split(v, ",") {
			if !Fits(items, elem) {
				return false
			}
		}
		return true
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return slices.ContainsFunc(enum, func(e any) bool { w, ok := ScalarText(e); return ok && w == v })
	}
	switch SchemaType(s) {
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return false
		}
	case "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return false
		}
	case "boolean":
		if v != "true" && v != "false" {
			return false
		}
	}
	if pat, ok := s["pattern"].(string); ok && len(pat) <= maxPattern {
		if re, err := regexp.Compile(pat); err == nil && !re.MatchString(v) {
			return false
		}
	}
	return true
}

// ScalarText writes a scalar JSON value (an example, an enum member) as it
// goes into a URL; ok is false for an empty string and anything else.
func ScalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, t != ""
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}
