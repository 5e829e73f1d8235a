package exchange

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
)

// MinSecretLen is the shortest value searched for wherever a server may
// echo it. Shorter values ("1", "yes", "eu-1") occur in ordinary text, and
// replacing them would corrupt what the checks judge while protecting next
// to nothing; they are redacted only in the request's own header lines, by
// name (RedactHeader).
const MinSecretLen = 8

// plainHeaders are request fields that carry no credential whatever their
// value: they say what the client wants or is, never who it is. Their
// values are neither redacted in the request's own header lines (see
// RedactedNames), so that a curl line replays the request, nor scrubbed:
// scrubbing "application/json" from every body, or the target's host from
// every URL, would blind the checks. Every other field a user gives is a
// credential until shown otherwise, so the list stays short.
var plainHeaders = map[string]bool{
	"Accept":               true,
	"Accept-Charset":       true,
	"Accept-Encoding":      true,
	"Accept-Language":      true,
	"Cache-Control":        true,
	"Content-Language":     true,
	"Content-Type":         true,
	"Dnt":                  true,
	"Forwarded":            true,
	"Host":                 true,
	"If-Match":             true,
	"If-Modified-Since":    true,
	"If-None-Match":        true,
	"If-Unmodified-Since":  true,
	"Mcp-Method":           true,
	"Mcp-Protocol-Version": true,
	"Origin":               true,
	"Pragma":               true,
	"Prefer":               true,
	"Referer":              true,
	"User-Agent":           true,
	"X-Forwarded-For":      true,
	"X-Forwarded-Host":     true,
	"X-Forwarded-Proto":    true,
}

// Secrets are the values a scan sends in headers, to be replaced with
// Redacted wherever they appear in what the scan records or prints: a debug
// page that prints the request's headers, a problem detail quoting the
// token, a header, a link, a tool description. Redacting the request
// headers alone does not keep them out of reports. A nil *Secrets scrubs
// nothing.
type Secrets struct {
	// patterns are the folded forms searched for (see folded), longest
	// first; each is at least MinSecretLen bytes long.
	patterns [][]byte
	// byPrefix indexes patterns by their first MinSecretLen bytes, and
	// prefixes is a filter over the same keys, so that one pass over a text
	// finds every pattern.
	byPrefix map[uint64][][]byte
	prefixes prefixFilter
}

// NewSecrets collects the secrets in the values of hs, whatever the
// header's name: each value of at least MinSecretLen bytes, and inside it
// the token of "Scheme token" (Bearer, Basic, ...), the decoded Basic
// user:password, user and password, and each cookie value of a Cookie.
// Fields in plainHeaders are left out. Each secret is matched in any ASCII
// case, through one layer of JSON, percent or HTML escapes, with characters
// that print as nothing spliced in and its spaces changed (see folded),
// hex-encoded in either case, and base64-encoded in either alphabet, padded
// or not, on its own or inside a longer encoded value.
func NewSecrets(hs ...http.Header) *Secrets {
	seen := map[string]bool{}
	var out [][]byte
	add := func(p []byte) {
		if len(p) >= MinSecretLen && !seen[string(p)] {
			seen[string(p)] = true
			out = append(out, p)
		}
	}
	for _, h := range hs {
		for name, vs := range h {
			name = http.CanonicalHeaderKey(name)
			if plainHeaders[name] {
				continue
			}
			for _, v := range vs {
				for _, secret := range secretsIn(name, v) {
					secret = strings.TrimSpace(secret)
					if len(secret) < MinSecretLen || strings.EqualFold(secret, Redacted) {
						continue
					}
					for _, form := range encodedForms(secret) {
						// An echo of the form reads, folded, as the form
						// with its own escapes decoded (a secret may hold
						// "%41"); an echo that escaped them ("%2541"), as
						// the form itself.
						add(fold([]byte(form), false).text)
						add(foldAll([]byte(form)))
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b []byte) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return bytes.Compare(a, b)
	})
	sec := &Secrets{patterns: out, byPrefix: map[uint64][][]byte{}}
	for _, p := range out {
		k := prefixKey(p)
		sec.byPrefix[k] = append(sec.byPrefix[k], p)
		sec.prefixes.add(k)
	}
	return sec
}

// encodedForms are the secret, its hex encoding and its base64 encodings:
// standard and URL alphabets, padded and not, and the part of it that any
// longer encoded value holding it contains, at each of the three
// alignments. The hex form is lower-case, and matches upper case as every
// form does (see folded); inside a longer hex value it is whole, each byte
// being two digits. Like every form, it is searched for only for a secret
// of MinSecretLen bytes or more, so at least 16 digits long: the hex of a
// short value would match ordinary hex content (hashes, IDs, colours).
func encodedForms(secret string) []string {
	b := []byte(secret)
	forms := []string{secret, hex.EncodeToString(b)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		padded := enc.EncodeToString(b)
		forms = append(forms, padded, strings.TrimRight(padded, "="))
		for offset := range 3 {
			forms = append(forms, embeddedBase64(enc, b, offset))
		}
	}
	return forms
}

// embeddedBase64 is what the encoding of a value holding b at offset
// (modulo 3) surely contains: the characters whose six bits all come from
// b, whatever bytes surround it.
func embeddedBase64(enc *base64.Encoding, b []byte, offset int) string {
	encoded := enc.WithPadding(base64.NoPadding).EncodeToString(append(make([]byte, offset), b...))
	first, last := (8*offset+5)/6, 8*(offset+len(b))/6
	return encoded[first:last]
}

// secretsIn returns the value and the credentials inside it.
func secretsIn(name, v string) []string {
	out := []string{v}
	if name == "Cookie" {
		for _, part := range strings.Split(v, ";") {
			if _, val, ok := strings.Cut(part, "="); ok {
				out = append(out, strings.Trim(strings.TrimSpace(val), `"`))
			}
		}
		return out
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
	token = strings.TrimSpace(token)
	if !ok || token == "" || !isToken(scheme) {
		return out
	}
	out = append(out, token)
	if strings.EqualFold(scheme, "Basic") {
		if raw, err := base64.StdEncoding.DecodeString(token); err == nil {
			pair := string(raw)
			user, pass, _ := strings.Cut(pair, ":")
			// The user alone is the credential of keys sent as a user name
			// with no password.
			out = append(out, pair, user, pass)
		}
	}
	return out
}

// isToken reports an auth-scheme name (RFC 9110 §11.1), enough to tell
// "Bearer X" from a value that merely contains a space.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// Bytes returns b with every secret replaced, and how many were. b itself
// is returned when none occurs. When cut is set, b was truncated, and a tail
// that begins a secret is replaced as well: the cap may split an echo.
func (s *Secrets) Bytes(b []byte, cut bool) ([]byte, int) {
	if s == nil || len(b) == 0 {
		return b, 0
	}
	f := fold(b, false)
	found := s.find(f.text)
	tail := -1
	if cut {
		tail = s.cutTail(f)
	}
	if len(found) == 0 && tail < 0 {
		return b, 0
	}
	f = fold(b, true)
	var spans []span
	for _, m := range found {
		spans = append(spans, f.original(m, len(b)))
	}
	if tail >= 0 {
		spans = append(spans, span{f.from[tail], len(b)})
	}
	spans = merge(spans)
	return replaceSpans(b, spans), len(spans)
}

// span is a range of bytes, end excluded.
type span struct{ start, end int }

// find returns the occurrences of secrets in text, which is folded: at each
// position, the longest secret that begins there, and the search goes on
// after it. One pass reads each position's first MinSecretLen bytes and
// compares only where they begin a secret. Secrets that begin with a
// repeated pattern could make a text of near-matches costly; past a budget
// of comparisons the search goes on one secret at a time, which the
// standard library keeps linear.
func (s *Secrets) find(text []byte) []span {
	var out []span
	budget := 4*len(text) + 1<<16
	for i := 0; i+MinSecretLen <= len(text); {
		k := prefixKey(text[i:])
		if !s.prefixes.has(k) {
			i++
			continue
		}
		n := 0
		for _, p := range s.byPrefix[k] {
			budget -= len(p)
			if bytes.HasPrefix(text[i:], p) {
				n = len(p)
				break
			}
		}
		if budget < 0 {
			return append(out, s.findEach(text, i)...)
		}
		if n == 0 {
			i++
			continue
		}
		out = append(out, span{i, i + n})
		i += n
	}
	return out
}

// findEach is find from offset at, one secret at a time.
func (s *Secrets) findEach(text []byte, at int) []span {
	var out []span
	for _, p := range s.patterns {
		for i := at; ; {
			j := bytes.Index(text[i:], p)
			if j < 0 {
				break
			}
			out = append(out, span{i + j, i + j + len(p)})
			i += j + len(p)
		}
	}
	return out
}

func prefixKey(b []byte) uint64 { return binary.LittleEndian.Uint64(b[:MinSecretLen]) }

// prefixFilter is a set of prefix keys that may answer yes for a key not
// in it, and answers in a few instructions.
type prefixFilter [1 << 10]uint64

func (f *prefixFilter) add(k uint64) {
	h := prefixHash(k)
	f[h>>6] |= 1 << (h & 63)
}

func (f *prefixFilter) has(k uint64) bool {
	h := prefixHash(k)
	return f[h>>6]&(1<<(h&63)) != 0
}

// prefixHash spreads a key over the filter's 2^16 bits.
func prefixHash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 48 }

// cutTail is where in f the longest tail that is a proper prefix of a
// secret begins, or -1. The tail may end inside an escape (see
// folded.open), which then does not count.
func (s *Secrets) cutTail(f folded) int {
	tail := s.prefixTail(f.text)
	if f.open < len(f.text) {
		if t := s.prefixTail(f.text[:f.open]); t >= 0 && (tail < 0 || t < tail) {
			tail = t
		}
	}
	return tail
}

// prefixTail is where the longest tail of text that is a proper prefix of
// a secret begins, or -1.
func (s *Secrets) prefixTail(text []byte) int {
	longest := 0
	for _, p := range s.patterns {
		for i := len(text) - min(len(p)-1, len(text)); i < len(text)-longest; i++ {
			if text[i] == p[0] && bytes.HasPrefix(p, text[i:]) {
				longest = len(text) - i
				break
			}
		}
	}
	if longest == 0 {
		return -1
	}
	return len(text) - longest
}

// merge sorts spans and joins those that overlap, so that each echo is
// replaced once: a whole "Bearer X" and the X inside it, or a cut tail that
// begins inside a secret found whole.
func merge(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(a.start-b.start, b.end-a.end) })
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// replaceSpans returns a copy of b with each span, sorted and disjoint,
// replaced with Redacted.
func replaceSpans(b []byte, spans []span) []byte {
	out := make([]byte, 0, len(b))
	at := 0
	for _, sp := range spans {
		out = append(append(out, b[at:sp.start]...), Redacted...)
		at = sp.end
	}
	return append(out, b[at:]...)
}

// String is Bytes for a string that was not truncated.
func (s *Secrets) String(v string) string {
	if s == nil || v == "" {
		return v
	}
	out, n := s.Bytes([]byte(v), false)
	if n == 0 {
		return v
	}
	return string(out)
}

// ScrubHeader scrubs the values of h in place, and the names, which a
// hostile server may make of an echo too. It counts the fields changed.
func (s *Secrets) ScrubHeader(h http.Header) int {
	n := 0
	for name, vs := range h {
		for i, v := range vs {
			if scrubbed := s.String(v); scrubbed != v {
				vs[i], n = scrubbed, n+1
			}
		}
		if scrubbed := s.String(name); scrubbed != name {
			delete(h, name)
			scrubbed = http.CanonicalHeaderKey(scrubbed)
			h[scrubbed], n = append(h[scrubbed], vs...), n+1
		}
	}
	return n
}

// Scrub replaces the secrets in everything recorded of x: the request's URL,
// header values and body, the error, and the response's header values and
// body. Only the body changes length; Response.BodySize still counts the
// bytes received, so checks that compare it with Content-Length are not
// misled, and Response.Redactions says how many echoes were replaced.
func (s *Secrets) Scrub(x *Exchange) {
	if s == nil || x == nil {
		return
	}
	x.Request.URL = s.String(x.Request.URL)
	x.Source, x.BasedOn = s.String(x.Source), s.String(x.BasedOn)
	s.ScrubHeader(x.Request.Header)
	x.Request.Body = s.String(x.Request.Body)
	x.Err = s.String(x.Err)
	r := x.Response
	if r == nil {
		return
	}
	if first := r.Replaced; first != nil {
		s.ScrubHeader(first.Header)
	}
	n := s.ScrubHeader(r.Header)
	var m int
	r.Body, m = s.Bytes(r.Body, r.Truncated)
	var k int
	if a := x.AfterHead; a != nil {
		a.Bytes, k = s.Bytes(a.Bytes, int64(len(a.Bytes)) < a.Size)
	}
	r.Redactions += n + m + k
}
