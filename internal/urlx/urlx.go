// Package urlx holds the URL rules that the crawler, the MCP step and the
// checks must agree on. One rule matters most: which URLs share the
// target's origin, since the user's credentials go to that origin only.
package urlx

import (
	"net/url"
	"strings"
)

// SameOrigin reports whether a and b have one origin (RFC 6454 §4): the
// same scheme and host, compared without case, and the same port once the
// scheme's default port fills in an absent one. User information, path,
// query and fragment play no part, so http://api:80/x and http://API/ are
// one origin while http://api:8080 and https://api are others.
func SameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil {
		return false
	}
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

// port is u's port, or its scheme's default when none is written.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
