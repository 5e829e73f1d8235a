package probe

import (
	"net/url"

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
