package probe

import (
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/urlx"
)

// maxURLLength keeps absurd hrefs out of the crawl queue and the recording.
const maxURLLength = 4096

// normalize is the crawler's URL equivalence, which the checks that match
// links to crawled URLs share (urlx.Normalize).
func normalize(u *url.URL) *url.URL { return urlx.Normalize(u) }

// inScope applies Include and Exclude to a path.
func inScope(p string, include, exclude []string) bool {
	for _, pat := range exclude {
		if urlx.MatchPath(pat, p) {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	for _, pat := range include {
		if urlx.MatchPath(pat, p) {
			return true
		}
	}
	return false
}

// plainKey is the normalized URL that ref names from base, without parsing,
// when ref is a plain path (urlx.IsPlainPath) and base is http or https.
func plainKey(base *url.URL, ref string) (string, bool) {
	scheme := strings.ToLower(base.Scheme)
	if !urlx.IsPlainPath(ref) || (scheme != "http" && scheme != "https") || !urlx.IsPlainHost(base.Host) {
		return "", false
	}
	host := strings.ToLower(base.Host)
	if p := base.Port(); (scheme == "http" && p == "80") || (scheme == "https" && p == "443") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return scheme + "://" + host + ref, true
}
