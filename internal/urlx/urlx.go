// Package urlx holds the URL rules that the crawler, the MCP step and the
// checks must agree on. One rule matters most: which URLs share the
// target's origin, since the user's credentials go to that origin only.
package urlx

import (
	"net/url"
	"sort"
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

// Normalize makes equivalent URLs compare equal so that de-duplication holds:
// no fragment, lower-case scheme and host, no default port, an explicit root
// path and query parameters sorted by name (values of one name keep their
// order, which can matter to the app).
func Normalize(u *url.URL) *url.URL {
	n := *u
	n.User = nil
	n.Fragment, n.RawFragment = "", ""
	n.Scheme = strings.ToLower(n.Scheme)
	n.Host = strings.ToLower(n.Host)
	if p := n.Port(); (n.Scheme == "http" && p == "80") || (n.Scheme == "https" && p == "443") {
		n.Host = strings.TrimSuffix(n.Host, ":"+p)
	}
	if n.Path == "" && n.RawPath == "" {
		n.Path = "/"
	}
	n.RawQuery = sortQuery(n.RawQuery)
	n.ForceQuery = false
	return &n
}

func sortQuery(raw string) string {
	if raw == "" {
		return ""
	}
	pairs := strings.Split(raw, "&")
	kept := pairs[:0]
	for _, p := range pairs {
		if p != "" {
			kept = append(kept, p)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return queryKey(kept[i]) < queryKey(kept[j]) })
	return strings.Join(kept, "&")
}

func queryKey(pair string) string {
	k, _, _ := strings.Cut(pair, "=")
	return k
}

// IsPlainPath reports an absolute path that parsing, resolution and
// normalization all leave as it is: no dot segment, escape, query, fragment
// or template, and only characters a path keeps unescaped. Most links of a
// crawl are such paths, and the passes that meet every link skip parsing
// them.
func IsPlainPath(ref string) bool {
	if ref == "" || ref[0] != '/' || strings.HasPrefix(ref, "//") || strings.Contains(ref, "/.") {
		return false
	}
	for i := 0; i < len(ref); i++ {
		if !isPlainByte(ref[i]) {
			return false
		}
	}
	return true
}

// IsPlainHost reports a host (and port) that a URL writes as it is.
func IsPlainHost(host string) bool {
	for i := 0; i < len(host); i++ {
		if c := host[i]; !isPlainByte(c) && c != '[' && c != ']' {
			return false
		}
	}
	return host != ""
}

func isPlainByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~$&+,/:;=@", c) >= 0
}
