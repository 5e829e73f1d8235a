// Package linkheader parses RFC 8288 Link header fields for the checks. It is
// pure and bounded: parsing never fails, never panics and allocates at most
// MaxLinks links of MaxParams parameters whatever a server sends.
//
// It keeps anchored links, which the checks judge; the probe's crawler
// filters them out on top of this parser.
package linkheader

import "strings"

// Bounds on what a hostile header can make a parse allocate.
const (
	MaxLinks  = 1000
	MaxParams = 64
)

// Link is one link-value.
type Link struct {
	// Target is the URI-Reference between the angle brackets, unresolved.
	Target string
	// Rels are the relation types of the first rel parameter (RFC 8288 §3.3):
	// registered types lower-cased (§2.1.1), extension URIs as written.
	Rels []string
	// Params are the parameters by lower-cased name; the first occurrence
	// wins (§3.3 for rel, §3.4 for title, media and type).
	Params map[string]string
}

// HasRel reports whether the link carries relation type rel (compared
// case-insensitively, as both registered and extension types are).
func (l Link) HasRel(rel string) bool {
	for _, r := range l.Rels {
		if strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// Anchored reports a link whose context is not the response itself (§3.2).
func (l Link) Anchored() bool {
	_, ok := l.Params["anchor"]
	return ok
}

// Parse parses every line of a Link field. Commas inside <...> and quoted
// strings do not split link-values; a malformed link-value is skipped and the
// ones after it are still read.
func Parse(lines []string) []Link {
	var out []Link
	for _, line := range lines {
		s := scanner{s: line}
		for len(out) < MaxLinks && !s.done() {
			if l, ok := s.linkValue(); ok {
				out = append(out, l)
			}
		}
		if len(out) >= MaxLinks {
			break
		}
	}
	return out
}

// WithRel returns the links, anchored ones excluded, that carry rel.
func WithRel(links []Link, rel string) []Link {
	var out []Link
	for _, l := range links {
		if !l.Anchored() && l.HasRel(rel) {
			out = append(out, l)
		}
	}
	return out
}

type scanner struct {
	s string
	i int
}

func (s *scanner) done() bool {
	s.skipSpaceAnd(",")
	return s.i >= len(s.s)
}

// linkValue reads one link-value and consumes up to and including the comma
// that ends it.
func (s *scanner) linkValue() (Link, bool) {
	if s.s[s.i] != '<' {
		s.recover()
		return Link{}, false
	}
	end := strings.IndexByte(s.s[s.i:], '>')
	if end < 0 {
		s.i = len(s.s)
		return Link{}, false
	}
	l := Link{Target: strings.TrimSpace(s.s[s.i+1 : s.i+end]), Params: map[string]string{}}
	s.i += end + 1
	for {
		s.skipSpaceAnd("")
		if s.i >= len(s.s) || s.s[s.i] == ',' {
			break
		}
		if s.s[s.i] != ';' {
			s.recover()
			return Link{}, false
		}
		s.i++
		name, value := s.param()
		if name == "" {
			continue
		}
		if _, dup := l.Params[name]; !dup && len(l.Params) < MaxParams {
			l.Params[name] = value
		}
	}
	l.Rels = rels(l.Params["rel"])
	return l, true
}

func (s *scanner) param() (name, value string) {
	s.skipSpaceAnd("")
	start := s.i
	for s.i < len(s.s) && !strings.ContainsRune("=;, \t", rune(s.s[s.i])) {
		s.i++
	}
	name = strings.ToLower(s.s[start:s.i])
	s.skipSpaceAnd("")
	if s.i >= len(s.s) || s.s[s.i] != '=' {
		return name, ""
	}
	s.i++
	s.skipSpaceAnd("")
	if s.i < len(s.s) && s.s[s.i] == '"' {
		return name, s.quoted()
	}
	start = s.i
	for s.i < len(s.s) && !strings.ContainsRune(";, \t", rune(s.s[s.i])) {
		s.i++
	}
	return name, s.s[start:s.i]
}

// quoted reads a quoted-string, unescaping quoted-pairs; an unterminated one
// runs to the end of the line.
func (s *scanner) quoted() string {
	var b strings.Builder
	for s.i++; s.i < len(s.s); s.i++ {
		switch c := s.s[s.i]; {
		case c == '\\' && s.i+1 < len(s.s):
			s.i++
			b.WriteByte(s.s[s.i])
		case c == '"':
			s.i++
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (s *scanner) skipSpaceAnd(extra string) {
	for s.i < len(s.s) && (s.s[s.i] == ' ' || s.s[s.i] == '\t' || strings.IndexByte(extra, s.s[s.i]) >= 0) {
		s.i++
	}
}

// recover skips past the next comma outside <...> and quoted strings.
func (s *scanner) recover() {
	quoted, angled := false, false
	for ; s.i < len(s.s); s.i++ {
		switch c := s.s[s.i]; {
		case quoted && c == '\\':
			s.i++
		case c == '"' && !angled:
			quoted = !quoted
		case c == '<' && !quoted:
			angled = true
		case c == '>' && !quoted:
			angled = false
		case c == ',' && !quoted && !angled:
			s.i++
			return
		}
	}
}

func rels(v string) []string {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return nil
	}
	out := make([]string, len(fields))
	for i, r := range fields {
		if strings.Contains(r, ":") {
			out[i] = r
		} else {
			out[i] = strings.ToLower(r)
		}
	}
	return out
}
