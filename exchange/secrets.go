package exchange

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// MinSecretLen is the shortest credential value scrubbed from what a server
// sends back. Shorter values ("1", "yes", "admin") occur in ordinary bodies,
// and replacing them would corrupt what the checks judge while protecting
// next to nothing.
const MinSecretLen = 8

// plainHeaders are request fields that carry no credential whatever their
// value; scrubbing "application/json" from every body would blind the checks.
var plainHeaders = map[string]bool{
	"Accept":               true,
	"Accept-Charset":       true,
	"Accept-Encoding":      true,
	"Accept-Language":      true,
	"Cache-Control":        true,
	"Content-Language":     true,
	"Content-Type":         true,
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
}

// CredentialName reports a header whose name says it carries a credential:
// the sensitive headers (Authorization, Cookie, ...) and custom ones named
// for a key, token, secret, session, password or signature. Values of other
// shared headers (X-Tenant: acme-corp) are ordinary words that the app
// legitimately repeats in its content and links, and are not scrubbed.
func CredentialName(name string) bool {
	if IsSensitiveHeader(name) {
		return true
	}
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "token", "key", "secret", "session", "passw", "signature", "credential", "cookie", "jwt", "csrf", "xsrf"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// NewScanSecrets collects the secrets of a scan: the values of the shared
// headers (-H) whose name is a credential's (CredentialName), and every
// value of credentials, the identities' own headers, which are credentials
// whatever their name.
func NewScanSecrets(shared, credentials http.Header) *Secrets {
	named := http.Header{}
	for name, vs := range shared {
		if CredentialName(name) {
			named[name] = vs
		}
	}
	return NewSecrets(named, credentials)
}

// Secrets are the credential values a scan sends, to be replaced with
// Redacted wherever a server echoes them: a debug page that prints the
// request's headers, a problem detail quoting the token, a header, a link.
// Redacting the request headers alone does not keep them out of reports.
// A nil *Secrets scrubs nothing.
type Secrets struct {
	// patterns are the byte strings replaced, longest first, so that a whole
	// "Bearer X" goes before the X inside it.
	patterns [][]byte
}

// NewSecrets collects the secrets in the values of hs: each value of at
// least MinSecretLen bytes, and inside it the token of "Scheme token"
// (Bearer, Basic, ...), the decoded user:password of Basic and the password
// alone, and each cookie value of a Cookie. Fields in plainHeaders are left
// out. Each secret is also matched percent-encoded and with "/" escaped as
// JSON encoders may write it.
func NewSecrets(hs ...http.Header) *Secrets {
	seen := map[string]bool{}
	var out [][]byte
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) < MinSecretLen || v == Redacted {
			return
		}
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v), strings.ReplaceAll(v, "/", `\/`)} {
			if !seen[form] {
				seen[form] = true
				out = append(out, []byte(form))
			}
		}
	}
	for _, h := range hs {
		for name, vs := range h {
			name = http.CanonicalHeaderKey(name)
			if plainHeaders[name] {
				continue
			}
			for _, v := range vs {
				for _, s := range secretsIn(name, v) {
					add(s)
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
	return &Secrets{patterns: out}
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
			out = append(out, pair)
			if _, pass, ok := strings.Cut(pair, ":"); ok {
				out = append(out, pass)
			}
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
	if s == nil {
		return b, 0
	}
	n := 0
	for _, p := range s.patterns {
		if c := bytes.Count(b, p); c > 0 {
			b, n = bytes.ReplaceAll(b, p, []byte(Redacted)), n+c
		}
	}
	if cut {
		if k := s.cutTail(b); k > 0 {
			b, n = append(b[:len(b)-k:len(b)-k], Redacted...), n+1
		}
	}
	return b, n
}

// cutTail is the length of the longest tail of b that is a proper prefix of
// a secret, or 0.
func (s *Secrets) cutTail(b []byte) int {
	longest := 0
	for _, p := range s.patterns {
		for i := len(b) - min(len(p)-1, len(b)); i < len(b)-longest; i++ {
			if b[i] == p[0] && bytes.HasPrefix(p, b[i:]) {
				longest = len(b) - i
				break
			}
		}
	}
	return longest
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

// header scrubs every value of h in place, and counts the replacements.
func (s *Secrets) header(h http.Header) int {
	n := 0
	for _, vs := range h {
		for i, v := range vs {
			if scrubbed := s.String(v); scrubbed != v {
				vs[i], n = scrubbed, n+1
			}
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
	s.header(x.Request.Header)
	x.Request.Body = s.String(x.Request.Body)
	x.Err = s.String(x.Err)
	r := x.Response
	if r == nil {
		return
	}
	n := s.header(r.Header)
	var m int
	r.Body, m = s.Bytes(r.Body, r.Truncated)
	r.Redactions += n + m
}
