package spec

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Index matches concrete requests to operations, following OpenAPI's path
// templating rules: literal segments win over templated ones at the earliest
// position they differ, a template may cover part of a segment
// (/reports/{id}.json), the server base path is stripped first, and
// percent-decoding happens only after matching.
type Index struct {
	doc       *Document
	templates []*template
}

type template struct {
	path     string
	segments []segment
	ops      map[string]*Operation // by method
}

type segment struct {
	literal string         // set when the segment has no expression
	pattern *regexp.Regexp // set otherwise
}

// Index returns the document's index, built on first use; safe for
// concurrent checks.
func (d *Document) Index() *Index {
	d.indexOnce.Do(func() { d.index = NewIndex(d) })
	return d.index
}

// NewIndex builds an index over the document's operations.
func NewIndex(d *Document) *Index {
	ix := &Index{doc: d}
	byPath := map[string]*template{}
	for _, op := range d.Operations {
		t, ok := byPath[op.PathTemplate]
		if !ok {
			t = &template{path: op.PathTemplate, segments: parseTemplate(op.PathTemplate), ops: map[string]*Operation{}}
			byPath[op.PathTemplate] = t
			ix.templates = append(ix.templates, t)
		}
		t.ops[op.Method] = op
	}
	slices.SortFunc(ix.templates, func(a, b *template) int { return strings.Compare(a.path, b.path) })
	return ix
}

var expression = regexp.MustCompile(`\{[^{}/]*\}`)

func parseTemplate(path string) []segment {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	segs := make([]segment, len(parts))
	for i, p := range parts {
		if !strings.Contains(p, "{") {
			segs[i] = segment{literal: p}
			continue
		}
		var re strings.Builder
		re.WriteString("^")
		last := 0
		for _, loc := range expression.FindAllStringIndex(p, -1) {
			re.WriteString(regexp.QuoteMeta(p[last:loc[0]]))
			re.WriteString("([^/]+?)")
			last = loc[1]
		}
		re.WriteString(regexp.QuoteMeta(p[last:]))
		re.WriteString("$")
		pat, err := regexp.Compile(re.String())
		if err != nil {
			segs[i] = segment{literal: p}
			continue
		}
		segs[i] = segment{pattern: pat}
	}
	return segs
}

// MatchPath returns the path template that matches a concrete URL path (base
// path stripped), and the operations declared on it, or "" when none does.
func (ix *Index) MatchPath(rawPath string) (string, map[string]*Operation) {
	path := ix.stripBase(rawPath)
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var best *template
	var bestRank []bool
	for _, t := range ix.templates {
		rank, ok := t.match(parts)
		if !ok {
			continue
		}
		if best == nil || moreLiteral(rank, bestRank) {
			best, bestRank = t, rank
		}
	}
	if best == nil {
		return "", nil
	}
	return best.path, best.ops
}

// Match returns the operation for a method and a concrete URL (absolute or
// a path), or nil.
func (ix *Index) Match(method, rawURL string) *Operation {
	path := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		path = u.EscapedPath()
	}
	_, ops := ix.MatchPath(path)
	return ops[strings.ToUpper(method)]
}

// match reports whether the template matches, and for each segment whether it
// matched literally, which ranks candidates.
func (t *template) match(parts []string) ([]bool, bool) {
	if len(parts) != len(t.segments) {
		return nil, false
	}
	rank := make([]bool, len(parts))
	for i, s := range t.segments {
		switch {
		case s.pattern == nil:
			if parts[i] != s.literal {
				return nil, false
			}
			rank[i] = true
		case parts[i] == "" || !s.pattern.MatchString(parts[i]):
			return nil, false
		}
	}
	return rank, true
}

// moreLiteral prefers the candidate with a literal segment at the earliest
// position where the two differ.
func moreLiteral(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return false
}

func (ix *Index) stripBase(path string) string {
	if path == "" {
		path = "/"
	}
	longest := ""
	for _, b := range ix.doc.BasePaths {
		b = strings.TrimSuffix(b, "/")
		if b != "" && (path == b || strings.HasPrefix(path, b+"/")) && len(b) > len(longest) {
			longest = b
		}
	}
	if longest == "" {
		return path
	}
	if rest := strings.TrimPrefix(path, longest); rest != "" {
		return rest
	}
	return "/"
}

// Templates lists the indexed path templates, sorted.
func (ix *Index) Templates() []string {
	out := make([]string, len(ix.templates))
	for i, t := range ix.templates {
		out[i] = t.path
	}
	return out
}
