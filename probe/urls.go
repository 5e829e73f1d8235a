package probe

import (
	"net/url"
	"path"
	"strings"

	"github.com/agentready/agentready/internal/urlx"
)

// maxURLLength keeps absurd hrefs out of the crawl queue and the recording.
const maxURLLength = 4096

// normalize is the crawler's URL equivalence, which the checks that match
// links to crawled URLs share (urlx.Normalize).
func normalize(u *url.URL) *url.URL { return urlx.Normalize(u) }

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
