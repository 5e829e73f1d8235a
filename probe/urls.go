package probe

import (
	"net/url"
	"path"
	"sort"
	"strings"
)

// maxURLLength keeps absurd hrefs out of the crawl queue and the recording.
const maxURLLength = 4096

// normalize makes equivalent URLs compare equal so that de-duplication holds:
// no fragment, lower-case scheme and host, no default port, an explicit root
// path and query parameters sorted by name (values of one name keep their
// order, which can matter to the app).
func normalize(u *url.URL) *url.URL {
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

// matchPattern reports whether a URL path matches an Include/Exclude pattern:
// path.Match syntax, where a trailing "/**" matches the directory and anything
// below it and a trailing "*" matches any suffix, slashes included. Run has
// refused malformed patterns (CheckPattern), the only error path.Match
// returns, so the errors ignored here cannot occur.
func matchPattern(pattern, p string) bool {
	if ok, _ := path.Match(pattern, p); ok {
		return true
	}
	var base string
	switch {
	case strings.HasSuffix(pattern, "/**"):
		base = strings.TrimSuffix(pattern, "/**")
		if ok, _ := path.Match(base, p); ok {
			return true
		}
	case strings.HasSuffix(pattern, "*"):
		base = pattern
	default:
		return false
	}
	// A star cannot cross a slash, so if any prefix matches, the longest
	// prefix before the next slash matches too: only those need trying.
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if ok, _ := path.Match(base, p[:i]); ok {
			return true
		}
	}
	return false
}

// inScope applies Include and Exclude to a path.
func inScope(p string, include, exclude []string) bool {
	for _, pat := range exclude {
		if matchPattern(pat, p) {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	for _, pat := range include {
		if matchPattern(pat, p) {
			return true
		}
	}
	return false
}
