package leakage

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
)

// PurposeMissingSibling is a GET, as a lower identity, of a URL next to a
// resource the most privileged identity read, that certainly does not exist.
// (The GET of that resource itself is purpose.CrossFetch, which the active
// probes read too.)
const PurposeMissingSibling = "leakage/missing-sibling"

// minCrossFetch is the least number of resources the privileged identity
// read that each lower identity fetches too; otherwise its page share is.
const minCrossFetch = 24

// MissingSegment replaces the last path segment to make a URL that no
// application routes to an existing resource.
const MissingSegment = "agentready-missing-7f3c"

// family is embedded in every check of the family: it brings the family's
// part, the planning of what the lower identities fetch.
type family struct{}

// Parts implements checks.WithParts.
func (family) Parts() []checks.Part { return []checks.Part{crossFetch{}} }

// crossFetch plans, for a lower identity, a GET of the targets of the links,
// templates and affordances it was offered (PlanTargets), a GET of each
// resource the privileged identity read successfully that the lower
// identity's own crawl did not reach (bounded), and one missing sibling per
// parent path: together the pairs that expose an existence oracle. The
// resources fetched are bounded by the identity's page share, at least
// minCrossFetch, so that a lower identity whose own crawl stops at a 401 root
// still sees as much of the frontier as its share allows.
type crossFetch struct{}

func (crossFetch) PlanAsIdentity(in *checks.IdentityPlanInput) []exchange.PlannedRequest {
	limit := max(minCrossFetch, in.Pages)
	out := PlanTargets(in.Crawled)
	seen := map[string]bool{}
	for _, x := range in.Crawled {
		seen[x.Request.URL] = true
	}
	fetched := 0
	for x := range in.Privileged.Crawled() {
		if fetched >= limit {
			break
		}
		if x.Request.Method != http.MethodGet || x.Response == nil || x.Response.Status != http.StatusOK {
			continue
		}
		sibling, ok := MissingSibling(x.Request.URL)
		if !ok {
			continue
		}
		if !seen[x.Request.URL] {
			seen[x.Request.URL] = true
			fetched++
			out = append(out, exchange.PlannedRequest{Purpose: purpose.CrossFetch, Method: http.MethodGet, URL: x.Request.URL, BasedOn: x.Request.URL})
		}
		if !seen[sibling] {
			seen[sibling] = true
			out = append(out, exchange.PlannedRequest{Purpose: PurposeMissingSibling, Method: http.MethodGet, URL: sibling, BasedOn: x.Request.URL})
		}
	}
	return out
}

// MissingSibling is rawURL with its last path segment replaced by
// MissingSegment and no query; ok is false for the root, which has no sibling.
func MissingSibling(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", false
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return "", false
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = path.Join(path.Dir(p), MissingSegment), "", "", ""
	return u.String(), true
}
