package problemjson

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentready/agentready/internal/spec"
)

// Typed values for a missing resource. A framework validates a path
// parameter against its declared schema before the handler runs, so
// MissingID sent to an integer parameter is answered by the validator (400
// or 422) and never shows what the handler answers for an item that does
// not exist. These values pass the schema and name nothing real.
const (
	missingInteger = 999999999
	missingUUID    = "7f3c7f3c-0000-4000-8000-00007f3c7f3c"
	missingDate    = "1970-01-01"
	missingTime    = "1970-01-01T00:00:00Z"
)

// missingValue is the value a not-found probe puts in the path parameter p:
// one its schema accepts (type, format, enum, pattern, bounds) and no real
// resource is likely to carry. ok is false when no such value is known (a
// boolean, a pattern none of the candidates matches), and the probe is not
// sent rather than sent with a value the validator refuses.
func missingValue(p *spec.Parameter) (string, bool) {
	s := p.Schema
	if enum, ok := s["enum"].([]any); ok {
		// Every value of an enum names something that may exist; the first
		// at least reaches the handler.
		for _, v := range enum {
			if text, ok := spec.ScalarText(v); ok {
				return text, true
			}
		}
		return "", false
	}
	switch spec.SchemaType(s) {
	case "integer", "number":
		return strconv.FormatInt(boundedInteger(s), 10), true
	case "boolean", "array", "object":
		return "", false
	}
	var candidates []string
	switch format, _ := s["format"].(string); format {
	case "uuid":
		candidates = []string{missingUUID}
	case "date":
		candidates = []string{missingDate}
	case "date-time":
		candidates = []string{missingTime}
	default:
		candidates = []string{MissingID, missingUUID, strconv.Itoa(missingInteger)}
	}
	for _, c := range candidates {
		if fitsString(s, c) {
			return c, true
		}
	}
	return "", false
}

// boundedInteger is missingInteger moved inside the schema's minimum and
// maximum: the largest value allowed when the maximum is lower.
func boundedInteger(s map[string]any) int64 {
	n := float64(missingInteger)
	if maxV, ok := number(s["maximum"]); ok && maxV < n {
		n = math.Floor(maxV)
	}
	if minV, ok := number(s["minimum"]); ok && minV > n {
		n = math.Ceil(minV)
	}
	return int64(n)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// fitsString reports whether v meets the schema's length bounds and, as
// spec.Fits judges them, its type and pattern.
func fitsString(s map[string]any, v string) bool {
	n := float64(len([]rune(v)))
	if minLen, ok := number(s["minLength"]); ok && n < minLen {
		return false
	}
	if maxLen, ok := number(s["maxLength"]); ok && n > maxLen {
		return false
	}
	return spec.Fits(s, v)
}

// typedSibling is the not-found sibling of a sampled item whose URL the
// document describes by a template ending in one parameter: the last
// segment replaced by a value typed by that parameter's schema. ok is false
// when the document says nothing of the URL, and the untyped sibling is
// used.
func typedSibling(doc *spec.Document, rawURL string) (string, bool) {
	if doc == nil {
		return "", false
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", false
	}
	op := doc.Index().Match("GET", rawURL)
	if op == nil {
		return "", false
	}
	p := lastPathParameter(op)
	if p == nil {
		return "", false
	}
	v, ok := missingValue(p)
	if !ok {
		return "", false
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", false
	}
	return withPath(u, path[:i+1]+url.PathEscape(v)), true
}

// lastPathParameter is the path parameter that is the whole last segment of
// the operation's template (/items/{id}), or nil.
func lastPathParameter(op *spec.Operation) *spec.Parameter {
	t := strings.TrimSuffix(op.PathTemplate, "/")
	last := t[strings.LastIndexByte(t, '/')+1:]
	if !strings.HasPrefix(last, "{") || !strings.HasSuffix(last, "}") || strings.Count(last, "{") != 1 {
		return nil
	}
	name := last[1 : len(last)-1]
	for i := range op.Parameters {
		if p := &op.Parameters[i]; p.In == "path" && p.Name == name {
			return p
		}
	}
	return nil
}

// withPath is u with an escaped path and no query or fragment.
func withPath(u *url.URL, escaped string) string {
	next := url.URL{Scheme: u.Scheme, Host: u.Host, RawPath: escaped}
	next.Path, _ = url.PathUnescape(escaped)
	return next.String()
}
