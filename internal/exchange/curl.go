package exchange

import (
	"net/http"
	"sort"
	"strings"
)

// Redacted is what a credential is replaced with everywhere.
const Redacted = "REDACTED"

// sensitiveHeaders are redacted at freeze time; the probe adds the names of
// headers the user configured (RedactedNames).
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

// IsPlainHeader reports a request field that carries no credential
// whatever its value (see plainHeaders).
func IsPlainHeader(name string) bool {
	return plainHeaders[http.CanonicalHeaderKey(name)]
}

// RedactedNames are the names, canonical, of the headers in hs whose values
// the request's own header lines redact: every one but the plain ones. A
// user's Accept is shown as it was sent, so that the curl line replays it
// and a request planned from the recording sends it again.
func RedactedNames(hs ...http.Header) map[string]bool {
	out := map[string]bool{}
	for _, h := range hs {
		for name := range h {
			if !IsPlainHeader(name) {
				out[http.CanonicalHeaderKey(name)] = true
			}
		}
	}
	return out
}

// HoldsRedaction reports a value taken from the recording that held a
// credential, replaced with Redacted there: its real value is not known,
// and the marker must never be sent in its place.
func HoldsRedaction[S ~string | ~[]byte](s S) bool {
	return strings.Contains(string(s), Redacted)
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
			out[ck] = redactedValues(len(vs))
			continue
		}
		out[ck] = append([]string(nil), vs...)
	}
	return out
}

// RedactOwnHeader is RedactHeader for a header nothing else holds, a
// response's just read: it redacts h in place, since a copy of every header
// of every page is much of a large crawl's memory. A name that is not
// canonical makes it
// return the copy, keyed canonically, instead.
func RedactOwnHeader(h http.Header, extra map[string]bool) http.Header {
	for k := range h {
		if http.CanonicalHeaderKey(k) != k {
			return RedactHeader(h, extra)
		}
	}
	for k, vs := range h {
		if sensitiveHeaders[k] || extra[k] {
			h[k] = redactedValues(len(vs))
		}
	}
	return h
}

func redactedValues(n int) []string {
	red := make([]string, n)
	for i := range red {
		red[i] = Redacted
	}
	return red
}

// SessionHeader carries the MCP session a request belongs to.
const SessionHeader = "Mcp-Session-Id"

// sessionVar is the shell variable a curl line keeps the session ID in.
const sessionVar = "MCP_SESSION_ID"

// Curl renders a command that reproduces the request. Headers are emitted in
// sorted order so the line is stable; values are shell-quoted.
//
// A request in an MCP session names the session by its ID, which is dead by
// the time anyone reads the line: the scanner ends the sessions it opens.
// The line then opens a new session first, with the requests that opened
// the recorded one, and sends the request in it; when those are not known,
// it stops with a message instead of replaying a dead session.
func (x *Exchange) Curl() string {
	r := x.Request
	if r.Header.Get(SessionHeader) == "" {
		return curlOf(r, "-i")
	}
	var b strings.Builder
	opening := r.SessionStart()
	if len(opening) == 0 {
		b.WriteString(`: "${` + sessionVar + `:?the scan's MCP session has ended: open one with initialize and set ` + sessionVar + `}" && `)
	} else {
		b.WriteString(sessionVar + "=$(" + curlOf(opening[0], "-D - -o /dev/null") +
			` | awk 'tolower($1) == "mcp-session-id:" {print $2}' | tr -d '\r') && `)
		for _, more := range opening[1:] {
			b.WriteString(curlOf(more, "-o /dev/null") + " && ")
		}
	}
	b.WriteString(curlOf(r, "-i"))
	return b.String()
}

// curlOf is the curl command of one request, with output flags out; the
// session header, when there is one, reads the session from sessionVar.
func curlOf(r Request, out string) string {
	var b strings.Builder
	b.WriteString("curl -sS " + out)
	switch r.Method {
	case http.MethodGet:
	case http.MethodHead:
		b.WriteString(" -I")
	default:
		b.WriteString(" -X " + shellQuote(r.Method))
	}
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		if http.CanonicalHeaderKey(k) == "User-Agent" {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if http.CanonicalHeaderKey(k) == SessionHeader {
			b.WriteString(` -H "` + SessionHeader + `: $` + sessionVar + `"`)
			continue
		}
		for _, v := range r.Header[k] {
			b.WriteString(" -H " + shellQuote(k+": "+v))
		}
	}
	if r.Body != "" {
		b.WriteString(" --data-raw " + shellQuote(r.Body))
	}
	b.WriteString(" " + shellQuote(r.URL))
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
