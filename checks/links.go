package checks

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/urlx"
)

// CrawledTarget is the crawl's exchange for the target of a link found in
// the response to base: ref resolved against base and normalized as the
// crawler normalizes what it queues. It is nil when the crawl did not follow
// the link (another origin, a bound, a template it could not expand).
func (in *Input) CrawledTarget(base, ref string) *exchange.Exchange {
	b, err := url.Parse(base)
	if err != nil {
		return nil
	}
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil
	}
	return in.Index.Get(exchange.PurposeCrawl, urlx.Normalize(b.ResolveReference(r)).String())
}

// Gone reports an answer saying the target does not exist: 404 Not Found
// or 410 Gone. Other errors (401, 405, 5xx) say something else about a
// resource that may well be there.
func Gone(x *exchange.Exchange) bool {
	if x == nil || x.Response == nil {
		return false
	}
	return x.Response.Status == http.StatusNotFound || x.Response.Status == http.StatusGone
}
