package spec

import (
	"strings"
)

// TemplateVars lists the expression names of a path template in order.
func TemplateVars(template string) []string {
	var out []string
	for _, m := range expression.FindAllString(template, -1) {
		out = append(out, m[1:len(m)-1])
	}
	return out
}

// Bind matches a concrete URL path (base path included or not) and returns
// the matching template with the value of each of its expressions, as they
// appear in the path (still percent-encoded, ready to be put back into a
// URL). ok is false when no template matches.
func (ix *Index) Bind(rawPath string) (matched string, vars map[string]string, ok bool) {
	path, _ := ix.MatchPath(rawPath)
	if path == "" {
		return "", nil, false
	}
	var t *template
	for _, c := range ix.templates {
		if c.path == path {
			t = c
			break
		}
	}
	parts := strings.Split(strings.TrimPrefix(ix.stripBase(rawPath), "/"), "/")
	vars = map[string]string{}
	for i, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		s := t.segments[i]
		if s.pattern == nil {
			continue
		}
		names := TemplateVars(seg)
		values := s.pattern.FindStringSubmatch(parts[i])
		for j, name := range names {
			if j+1 < len(values) {
				vars[name] = values[j+1]
			}
		}
	}
	return path, vars, true
}

// Expand fills every expression of a template from vars. ok is false when a
// value is missing: the caller must never invent one.
func Expand(template string, vars map[string]string) (string, bool) {
	ok := true
	out := expression.ReplaceAllStringFunc(template, func(m string) string {
		v, found := vars[m[1:len(m)-1]]
		if !found || v == "" {
			ok = false
		}
		return v
	})
	return out, ok
}

// HasTemplatePrefix reports whether template starts with the segments of
// prefix, so that values bound by a URL of prefix belong to the same
// resource: /orders/{id} is a prefix of /orders/{id}/payment, and not of
// /customers/{id}.
func HasTemplatePrefix(template, prefix string) bool {
	t := strings.Split(strings.TrimPrefix(template, "/"), "/")
	p := strings.Split(strings.TrimPrefix(prefix, "/"), "/")
	if len(p) > len(t) {
		return false
	}
	for i := range p {
		if t[i] != p[i] {
			return false
		}
	}
	return true
}
