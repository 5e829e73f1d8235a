package probe

import (
	"strings"
)

// Link is one link-value of an RFC 8288 Link header.
type Link struct {
	// URI is the target as written between the angle brackets, unresolved.
	URI string
	// Rels are the relation types of the first rel parameter. Registered
	// types are lower-cased (RFC 8288 §2.1.1 compares them case-insensitively);
	// extension types (URIs) are kept as written.
	Rels []string
	// Params holds every parameter by lower-cased name; the first occurrence
	// of a name wins, as §3 asks of rel and is the safe choice for the rest.
	Params map[string]string
}

// Bounds on what a hostile header can make us allocate.
const (
	maxLinksPerHeader = 1000
	maxParamsPerLink  = 64
)

// ParseLinkHeader parses the values of every Link header line. Commas inside
// <...> and quoted strings do not split links. Links with an anchor parameter
// are dropped: their context is another resource, which a client that does not
// track anchors must not confuse with the response itself (§3.2). Malformed
// link-values are skipped; parsing never fails.
func ParseLinkHeader(values []string) []Link {
	var links []Link
	for _, v := range values {
		p := linkParser{s: v}
		for len(links) < maxLinksPerHeader {
			l, ok, more := p.next()
			if ok {
				if _, anchored := l.Params["anchor"]; !anchored {
					links = append(links, l)
				}
			}
			if !more {
				break
			}
		}
	}
	return links
}

type linkParser struct {
	s string
	i int
}

// next parses one link-value. more is false once the line is exhausted.
func (p *linkParser) next() (l Link, ok, more bool) {
	p.skip(" \t,")
	if p.i >= len(p.s) {
		return Link{}, false, false
	}
	if p.s[p.i] != '<' {
		p.skipToComma()
		return Link{}, false, p.i < len(p.s)
	}
	end := strings.IndexByte(p.s[p.i+1:], '>')
	if end < 0 {
		return Link{}, false, false
	}
	l.URI = strings.TrimSpace(p.s[p.i+1 : p.i+1+end])
	p.i += end + 2
	l.Params = map[string]string{}
	for {
		p.skip(" \t")
		if p.i >= len(p.s) || p.s[p.i] == ',' {
			break
		}
		if p.s[p.i] != ';' {
			// Garbage after the target: drop this link-value, keep the rest.
			p.skipToComma()
			return Link{}, false, p.i < len(p.s)
		}
		p.i++
		name, value, hasName := p.param()
		if !hasName {
			continue
		}
		if _, dup := l.Params[name]; !dup && len(l.Params) < maxParamsPerLink {
			l.Params[name] = value
		}
	}
	l.Rels = splitRels(l.Params["rel"])
	return l, true, p.i < len(p.s)
}

// param parses `name [= token / quoted-string]` after a semicolon.
func (p *linkParser) param() (name, value string, ok bool) {
	p.skip(" \t")
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune("=;, \t", rune(p.s[p.i])) {
		p.i++
	}
	name = strings.ToLower(p.s[start:p.i])
	p.skip(" \t")
	if p.i >= len(p.s) || p.s[p.i] != '=' {
		return name, "", name != ""
	}
	p.i++
	p.skip(" \t")
	if p.i < len(p.s) && p.s[p.i] == '"' {
		value = p.quoted()
	} else {
		start := p.i
		for p.i < len(p.s) && !strings.ContainsRune(";, \t", rune(p.s[p.i])) {
			p.i++
		}
		value = p.s[start:p.i]
	}
	return name, value, name != ""
}

// quoted reads a quoted-string starting at the opening quote, unescaping
// quoted-pairs. An unterminated string runs to the end of the line.
func (p *linkParser) quoted() string {
	var b strings.Builder
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case c == '"':
			p.i++
			return b.String()
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return b.String()
}

func (p *linkParser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// skipToComma moves past the next comma that is outside <...> and quotes.
func (p *linkParser) skipToComma() {
	inQuote, inAngle := false, false
	for ; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case inQuote && c == '\\':
			p.i++
		case c == '"' && !inAngle:
			inQuote = !inQuote
		case c == '<' && !inQuote:
			inAngle = true
		case c == '>' && !inQuote:
			inAngle = false
		case c == ',' && !inQuote && !inAngle:
			p.i++
			return
		}
	}
}

func splitRels(v string) []string {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return nil
	}
	rels := make([]string, len(fields))
	for i, r := range fields {
		if strings.Contains(r, ":") {
			rels[i] = r
		} else {
			rels[i] = strings.ToLower(r)
		}
	}
	return rels
}
