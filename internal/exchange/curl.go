package exchange

import (
	"net/http"
	"sort"
	"strings"
)

// Redacted is what a credential is replaced with everywhere.
const Redacted = "REDACTED"

// sensitiveHeaders are redacted at freeze time; the probe adds the names of
// headers the user configured.
var sensitiveHeaders = map[string]bool{
	"Authorization":       true,
	"Proxy-Authorization": true,
	"Cookie":              true,
	"Set-Cookie":          true,
	"X-Api-Key":           true,
	"Api-Key":             true,
	"X-Auth-Token":        true,
}

// IsSensitiveHeader reports whether a header carries credentials by name.
func IsSensitiveHeader(name string) bool {
	return sensitiveHeaders[http.CanonicalHeaderKey(name)]
}

// RedactHeader returns a copy of h with sensitive and extra headers redacted.
func RedactHeader(h http.Header, extra map[string]bool) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		if IsSensitiveHeader(ck) || extra[ck] {
			red := make([]string, len(vs))
			for i := range red {
				red[i] = Redacted
			}
			out[ck] = red
			continue
		}
		out[ck] = append([]string(nil), vs...)
	}
	return out
}

// Curl renders a command that reproduces the request. Headers are emitted in
// sorted order so the line is stable; values are shell-quoted.
func (x *Exchange) Curl() string {
	var b strings.Builder
	b.WriteString("curl -sS -i")
	switch x.Request.Method {
	case http.MethodGet:
	case http.MethodHead:
		b.WriteString(" -I")
	default:
		b.WriteString(" -X " + shellQuote(x.Request.Method))
	}
	names := make([]string, 0, len(x.Request.Header))
	for k := range x.Request.Header {
		if http.CanonicalHeaderKey(k) == "User-Agent" {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range x.Request.Header[k] {
			b.WriteString(" -H " + shellQuote(k+": "+v))
		}
	}
	if x.Request.Body != "" {
		b.WriteString(" --data-raw " + shellQuote(x.Request.Body))
	}
	b.WriteString(" " + shellQuote(x.Request.URL))
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
